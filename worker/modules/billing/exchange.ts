// USD to credits at the owner's rate. Final and irreversible: there is no way back to USD.
// One D1 batch moves both balances and writes the ledger row; the balance cannot go below zero
// (CHECK on users.balance_cents), so racing exchanges can never spend the same cent twice.
import { eq, sql } from 'drizzle-orm';
import { rawSql, runBatch, type DB, type Statement } from '../../platform/db/client';
import { dispatchMails, mailStatement } from '../mail';
import { ledger, users } from '../../platform/db/schema';
import { failedConstraint } from '../../platform/db/errors';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { creditsForCents, type ExchangeResponse, INSUFFICIENT_USD_MESSAGE } from './schemas/exchange';
import { claimStatement, findReplay, lostIdempotencyRace, type IdempotencyClaim } from '../../platform/idempotency';
import { spendingRefusal } from './spending';
import { findUserById, toUserJson, type UserRow } from '../accounts';
import { dispatchCommitted, exchangeEvent } from '../webhooks';

export type ExchangeOrder = {
  userId: string;
  cents: number;
  /** Credits per USD, from the settings. */
  rate: number;
  /** The credits the customer's screen showed; more than the server's figure means the rate fell. */
  promisedCredits?: number;
  idempotency?: IdempotencyClaim;
  now?: number;
  /** With low-balance mail on: the threshold (cents) below which the balance left is mailed about, once per dip. */
  lowBalanceBelowCents?: number;
};

export const EXCHANGE_STATUS = 200;

/**
 * The low-balance mail, when the exchange leaves the balance below the threshold: the account is
 * marked in the same batch, and only a batch that marked it writes the mail, so however many
 * exchanges race, one mail goes until the balance recovers (the cron clears the mark then).
 */
function lowBalanceStatements(userId: string, thresholdCents: number | undefined, now: number): Statement[] {
  if (thresholdCents === undefined) return [];
  return [
    rawSql(
      'UPDATE users SET low_balance_mailed_at = ?3 WHERE id = ?1 AND balance_cents < ?2 AND low_balance_mailed_at IS NULL',
      userId,
      thresholdCents,
      now,
    ),
    mailStatement({ kind: 'low_balance', userId, data: { thresholdCents } }, now, {
      sql: 'EXISTS (SELECT 1 FROM users WHERE id = ?7 AND low_balance_mailed_at = ?8)',
      params: [userId, now],
    }),
  ];
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function insufficientBalance(cents: number, availableCents: number) {
  return new AppError('INSUFFICIENT_BALANCE', INSUFFICIENT_USD_MESSAGE, {
    details: { requiredUsd: cents / 100, availableUsd: availableCents / 100 },
  });
}

/**
 * With an Idempotency-Key the claim rides in the exchange's own batch and nothing is read first, as
 * for a purchase (purchase.ts): a retry of an exchange already made fails on the claim, or on the
 * balance the first time spent, and answers what the first time stored. The claim stores the balances
 * right after the move; a replay answers them with the account as it is now.
 */
const EXCHANGE_REFUSALS = new Set<string>(['INSUFFICIENT_BALANCE', 'RATE_CHANGED', 'VALIDATION_ERROR', 'NOT_FOUND']);

export async function exchangeUsdForCredits(db: DB, order: ExchangeOrder): Promise<{ body: ExchangeResponse; replayed: boolean }> {
  try {
    return { body: await exchangeOnce(db, order), replayed: false };
  } catch (err) {
    if (
      !order.idempotency ||
      !(err instanceof AppError || lostIdempotencyRace(err)) ||
      (err instanceof AppError && !EXCHANGE_REFUSALS.has(err.code))
    )
      throw err;
    const replay = await findReplay<StoredBalances>(db, order.idempotency);
    if (!replay) throw err;
    const user = await findUserById(db, order.userId);
    if (!user) throw notFound('User');
    return { body: answer({ ...toUserJson(user), ...replay.body }), replayed: true };
  }
}

type StoredBalances = { balance: number; credits: number };

async function exchangeOnce(db: DB, order: ExchangeOrder): Promise<ExchangeResponse> {
  const { userId, cents, rate, idempotency } = order;
  const credits = creditsForCents(cents, rate);
  if (credits < 1) {
    throw new AppError('VALIDATION_ERROR', `${dollars(cents)} buys no credits at the current rate of ${rate} credits per USD`, {
      details: { field: 'usdAmount' },
    });
  }
  if (order.promisedCredits !== undefined && order.promisedCredits > credits) {
    throw new AppError(
      'RATE_CHANGED',
      `The exchange rate has changed to ${rate} credits per USD: ${dollars(cents)} now buys ${credits} credits, not ${order.promisedCredits}. Please check the new amount and try again.`,
      { details: { rate, creditsToAdd: credits } },
    );
  }

  const now = new Date(order.now ?? Date.now());
  const debit = db
    .update(users)
    .set({ balanceCents: sql`${users.balanceCents} - ${cents}`, credits: sql`${users.credits} + ${credits}` })
    .where(eq(users.id, userId))
    .returning();
  const record = db.insert(ledger).values({
    id: newId(now.getTime()),
    // NULL (and so a failed batch) when the account is gone.
    userId: sql`(SELECT ${users.id} FROM ${users} WHERE ${users.id} = ${userId})`,
    actorId: userId,
    kind: 'exchange',
    creditsDelta: credits,
    usdCentsDelta: -cents,
    note: `${dollars(cents)} at ${rate} credits per USD`,
    createdAt: now,
  });
  const event = exchangeEvent(userId, { usdAmount: cents / 100, credits, rate }, now.getTime());
  const lowBalance = lowBalanceStatements(userId, order.lowBalanceBelowCents, now.getTime());
  try {
    if (!idempotency) {
      const [after, , ...events] = await runBatch(db, [debit, record, event, ...lowBalance]);
      await dispatchCommitted(events, db);
      await dispatchMails(events, db);
      return answer(toUserJson((after as UserRow[])[0]));
    }
    // The balances as they stand inside the batch, right after the move.
    const stored = sql`(SELECT json_object('balance', ${users.balanceCents} / 100.0, 'credits', ${users.credits}) FROM ${users} WHERE ${users.id} = ${userId})`;
    const [after, , , ...events] = await runBatch(db, [
      debit,
      record,
      claimStatement(db, idempotency, stored, EXCHANGE_STATUS, now),
      event,
      ...lowBalance,
    ]);
    await dispatchCommitted(events, db);
    await dispatchMails(events, db);
    return answer(toUserJson((after as UserRow[])[0]));
  } catch (err) {
    const refusal = await spendingRefusal(db, err, userId);
    if (refusal) throw refusal;
    if (failedConstraint(err, 'CHECK', 'users_balance_check')) {
      throw insufficientBalance(cents, (await findUserById(db, userId))?.balanceCents ?? 0);
    }
    if (failedConstraint(err, 'NOT NULL', 'ledger.user_id')) throw notFound('User');
    throw err;
  }
}

function answer(user: ExchangeResponse['user']): ExchangeResponse {
  return { user, balances: { usd: user.balance, credits: user.credits } };
}
