// What stands between an account and spending, beyond its balances: an amount owed after a card
// reversal (nothing can be spent until it is settled or written off), for a reseller commission owed
// after a customer's reversal (the same), and top-ups still held for a first-time payer (they cannot
// be exchanged yet). The guard itself is a trigger on the ledger (migrations 0017 and 0027), inside
// every purchase's and exchange's batch; this reads the figures for the refusal's message and for the
// account's pages.
import { and, eq, gt, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { commissionClawbacks, payments } from '../../platform/db/schema';
import { dbErrorText } from '../../platform/db/errors';
import { AppError } from '../../platform/errors';

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export type SpendingStanding = {
  /** Owed to the shop after a refund or a dispute, in USD. */
  owedUsd: number;
  /** USD of top-ups that cannot be exchanged yet, and when the last of them frees. */
  heldUsd: number;
  heldUntil: string | null;
};

/** The query of the standing, for a batch (one round trip with what the page needs besides). */
export const standingQuery = (db: DB, userId: string, now = Date.now()) =>
  db
    .select({
      owed: sql<number>`coalesce((SELECT sum(refund_owed_cents) FROM payments WHERE user_id = ${userId} AND refund_owed_cents > 0), 0)`,
      held: sql<number>`coalesce(sum(${payments.amountCents} - ${payments.refundedCents} - ${payments.disputeCents}), 0)`,
      until: sql<number | null>`max(${payments.heldUntil})`,
    })
    .from(payments)
    .where(and(eq(payments.userId, userId), gt(payments.heldUntil, new Date(now))));

export function toStanding(row: { owed: number; held: number; until: number | null } | undefined): SpendingStanding {
  return {
    owedUsd: (row?.owed ?? 0) / 100,
    heldUsd: Math.max(0, row?.held ?? 0) / 100,
    heldUntil: row?.until ? new Date(row.until).toISOString() : null,
  };
}

export async function spendingStanding(db: DB, userId: string, now = Date.now()): Promise<SpendingStanding> {
  return toStanding((await standingQuery(db, userId, now))[0]);
}

export const owedMessage = (owedUsd: number) =>
  `Your account owes ${dollars(Math.round(owedUsd * 100))} after a card payment was refunded or disputed, so it cannot spend until this is settled. Please contact the shop.`;

/** Credits a reseller owes of commission taken back after customers' card reversals (commission_clawbacks). */
export async function commissionOwed(db: DB, resellerId: string): Promise<number> {
  const [row] = await db
    .select({ owed: sql<number>`coalesce(sum(${commissionClawbacks.owed}), 0)` })
    .from(commissionClawbacks)
    .where(and(eq(commissionClawbacks.resellerId, resellerId), gt(commissionClawbacks.owed, 0)));
  return row?.owed ?? 0;
}

export const owedCommissionMessage = (credits: number) =>
  `Your account owes ${credits} credits of commission taken back after a customer's card payment was refunded or disputed, so it cannot spend until this is settled. Please contact the shop.`;

/**
 * The refusal for a batch the ledger's spending guard aborted (migration 0017), or null when the
 * error is something else. `userId`: the account whose credits or USD the batch spent.
 */
export async function spendingRefusal(db: DB, err: unknown, userId: string): Promise<AppError | null> {
  const text = dbErrorText(err);
  if (text.includes('SPENDING_BLOCKED_OWED')) {
    const [{ owedUsd }, owedCredits] = await Promise.all([spendingStanding(db, userId), commissionOwed(db, userId)]);
    if (owedUsd === 0 && owedCredits > 0) {
      return new AppError('PAYMENT_OWED', owedCommissionMessage(owedCredits), { details: { owedUsd, owedCredits } });
    }
    return new AppError('PAYMENT_OWED', owedMessage(owedUsd), { details: { owedUsd, owedCredits } });
  }
  if (text.includes('FUNDS_HELD')) {
    const { heldUsd, heldUntil } = await spendingStanding(db, userId);
    return new AppError(
      'FUNDS_HELD',
      `${dollars(Math.round(heldUsd * 100))} of your balance comes from a first card top-up that is held until ${heldUntil ?? 'later'} before it can be exchanged.`,
      { details: { heldUsd, heldUntil } },
    );
  }
  return null;
}
