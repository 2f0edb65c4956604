// What Stripe's verified webhook events do. A paid Checkout Session credits its amount once (its
// topup ledger row, unique per session, moves the balance: migration 0013); a refund takes back what
// the balance still holds and records the rest as owed; a dispute flags the customer's account.
// Each change is one D1 batch whose statements are guarded inside SQL, so duplicated or concurrent
// deliveries of an event change nothing more. Events that name no known payment change nothing.
import { balanceToppedUpEvent, dispatchCommitted } from './webhook-outbox';
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { runBatch, SqlStatement, type DB, type Statement } from '../db/client';
import { payments } from '../db/schema';
import { failedConstraint } from '../lib/db-errors';
import { newId } from '../lib/ids';
import type { Stripe } from '../lib/stripe';
import { auditStatement } from './audit';

export type EventOutcome = 'credited' | 'refunded' | 'disputed' | 'expired' | 'failed' | 'duplicate' | 'ignored';

const objectId = z.union([z.string(), z.object({ id: z.string() })]).transform((v) => (typeof v === 'string' ? v : v.id));

const sessionSchema = z.object({
  id: z.string(),
  mode: z.string(),
  payment_status: z.string(),
  currency: z.string().nullable(),
  amount_total: z.number().int().nullable(),
  client_reference_id: z.string().nullable().optional(),
  payment_intent: objectId.nullable().optional(),
});
const chargeSchema = z.object({ id: z.string(), payment_intent: objectId.nullable(), amount_refunded: z.number().int().min(0) });
const disputeSchema = z.object({
  id: z.string(),
  payment_intent: objectId.nullable(),
  amount: z.number().int(),
  reason: z.string().nullable().optional(),
});

export async function applyStripeEvent(db: DB, event: Stripe.Event, now = Date.now()): Promise<EventOutcome> {
  const object: unknown = event.data?.object;
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = sessionSchema.safeParse(object);
      // An unpaid completion (a bank debit still on its way) waits for async_payment_succeeded.
      if (!session.success || session.data.payment_status !== 'paid') return 'ignored';
      return creditTopUp(db, session.data, now);
    }
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed': {
      const session = sessionSchema.safeParse(object);
      if (!session.success) return 'ignored';
      return closeUnpaid(db, session.data.id, event.type === 'checkout.session.expired' ? 'expired' : 'failed');
    }
    case 'charge.refunded': {
      const charge = chargeSchema.safeParse(object);
      return charge.success ? recordRefund(db, charge.data, now) : 'ignored';
    }
    case 'charge.dispute.created': {
      const dispute = disputeSchema.safeParse(object);
      return dispute.success ? recordDispute(db, dispute.data, now) : 'ignored';
    }
    default:
      return 'ignored';
  }
}

const findPayment = (db: DB, id: string) => db.select().from(payments).where(eq(payments.id, id)).get();
const findByIntent = (db: DB, paymentIntentId: string) =>
  db.select().from(payments).where(eq(payments.paymentIntentId, paymentIntentId)).get();

export type TopUpCredit = { sessionId: string; userId: string; amountCents: number; paymentIntentId: string | null; now: number };

/**
 * The statements of a credited top-up, for one D1 batch: the topup ledger row (which moves the
 * balance), the payment marked paid, the audit entry. Each is guarded: the ledger row goes in only
 * while the payment is pending, its customer exists and the session has no topup row yet (read
 * through ledger_topup_session_unique, which also refuses a second one whatever the code says); the
 * others only when that row went in, which `credited` tests, so a statement
 * added to the batch (an outbox row for `balance.topped_up`) can take the same guard.
 */
export function topUpCreditStatements(
  db: DB,
  credit: TopUpCredit,
): { ledgerId: string; credited: ReturnType<typeof sql>; statements: Statement[] } {
  const ledgerId = newId(credit.now);
  const credited = sql`EXISTS (SELECT 1 FROM ledger WHERE id = ${ledgerId})`;
  const note = `Card top-up of $${(credit.amountCents / 100).toFixed(2)} (Stripe Checkout)`;
  return {
    ledgerId,
    credited,
    statements: [
      new SqlStatement(
        `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, usd_cents_delta, reference, note, created_at)
         SELECT ?1, p.user_id, NULL, 'topup', 0, ?2, p.id, ?3, ?4 FROM payments p JOIN users u ON u.id = p.user_id
          WHERE p.id = ?5 AND p.status = 'pending'
            AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.kind = 'topup' AND l.reference = p.id) RETURNING id`,
        [ledgerId, credit.amountCents, note, credit.now, credit.sessionId],
      ),
      new SqlStatement(
        `UPDATE payments SET status = 'paid', amount_cents = ?1, payment_intent_id = ?2, paid_at = ?3
          WHERE id = (SELECT reference FROM ledger WHERE id = ?4)`,
        [credit.amountCents, credit.paymentIntentId, credit.now, ledgerId],
      ),
      auditStatement(
        db,
        null,
        'payment.credited',
        { type: 'payment', id: credit.sessionId },
        { userId: credit.userId, amount: credit.amountCents / 100, paymentIntent: credit.paymentIntentId },
        null,
        credited,
      ),
    ],
  };
}

async function creditTopUp(db: DB, session: z.infer<typeof sessionSchema>, now: number): Promise<EventOutcome> {
  const payment = await findPayment(db, session.id);
  if (!payment || session.mode !== 'payment' || session.currency !== 'usd' || !session.amount_total || session.amount_total < 1)
    return 'ignored';
  // The session is ours for this customer; anything else is not a payment this shop started.
  if (session.client_reference_id && session.client_reference_id !== payment.userId) return 'ignored';
  if (payment.status !== 'pending') return payment.status === 'paid' || payment.status === 'refunded' ? 'duplicate' : 'ignored';
  const { ledgerId, statements } = topUpCreditStatements(db, {
    sessionId: session.id,
    userId: payment.userId,
    amountCents: session.amount_total,
    paymentIntentId: session.payment_intent ?? null,
    now,
  });
  try {
    // The balance.topped_up webhook event commits with the credit, and only with it.
    const results = await runBatch(db, [
      ...statements,
      balanceToppedUpEvent(payment.userId, { amountUsd: session.amount_total / 100, ledgerId }, now),
    ]);
    await dispatchCommitted(results);
    const [inserted] = results as [unknown[]];
    return inserted.length === 1 ? 'credited' : 'duplicate';
  } catch (err) {
    // A concurrent delivery's row went in first: the unique index refused this one, nothing changed.
    if (failedConstraint(err, 'UNIQUE', 'ledger.reference')) return 'duplicate';
    throw err;
  }
}

async function closeUnpaid(db: DB, sessionId: string, status: 'expired' | 'failed'): Promise<EventOutcome> {
  const closed = await db
    .update(payments)
    .set({ status })
    .where(sql`${payments.id} = ${sessionId} AND ${payments.status} = 'pending'`)
    .returning({ id: payments.id });
  return closed.length ? status : 'ignored';
}

/**
 * Stripe reports the charge's running total refunded. What this event adds to the total recorded
 * is taken back from the USD balance as far as it goes (a topup_refund ledger row, moving the
 * balance by the trigger), and the rest is recorded on the payment as owed. Guarded on the recorded
 * total, so a repeated or older event adds nothing.
 */
async function recordRefund(db: DB, charge: z.infer<typeof chargeSchema>, now: number): Promise<EventOutcome> {
  if (!charge.payment_intent) return 'ignored';
  const payment = await findByIntent(db, charge.payment_intent);
  if (!payment || (payment.status !== 'paid' && payment.status !== 'refunded')) return 'ignored';
  const total = Math.min(charge.amount_refunded, payment.amountCents);
  if (total <= payment.refundedCents) return 'duplicate';
  const ledgerId = newId(now);
  const recorded = sql`EXISTS (SELECT 1 FROM ledger WHERE id = ${ledgerId})`;
  const [inserted] = (await runBatch(db, [
    new SqlStatement(
      `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, usd_cents_delta, reference, note, created_at)
       SELECT ?1, p.user_id, NULL, 'topup_refund', 0, -min(u.balance_cents, ?2 - p.refunded_cents), p.id, ?3, ?4
         FROM payments p JOIN users u ON u.id = p.user_id
        WHERE p.id = ?5 AND p.status IN ('paid', 'refunded') AND p.refunded_cents < ?2 RETURNING id`,
      [ledgerId, total, `Card payment refunded (Stripe charge ${charge.id})`, now, payment.id],
    ),
    // The right-hand sides read the row as it was: owed grows by what the ledger row could not take.
    new SqlStatement(
      `UPDATE payments SET refund_owed_cents = refund_owed_cents + (?1 - refunded_cents) + (SELECT usd_cents_delta FROM ledger WHERE id = ?2),
              refunded_cents = ?1, status = 'refunded'
        WHERE id = (SELECT reference FROM ledger WHERE id = ?2 AND kind = 'topup_refund')`,
      [total, ledgerId],
    ),
    auditStatement(
      db,
      null,
      'payment.refunded',
      { type: 'payment', id: payment.id },
      { userId: payment.userId, refundedTotal: total / 100, charge: charge.id },
      null,
      recorded,
    ),
  ])) as [unknown[]];
  return inserted.length === 1 ? 'refunded' : 'duplicate';
}

/** A dispute marks the payment and flags the customer's account for the owner (card top-ups pause). */
async function recordDispute(db: DB, dispute: z.infer<typeof disputeSchema>, now: number): Promise<EventOutcome> {
  if (!dispute.payment_intent) return 'ignored';
  const payment = await findByIntent(db, dispute.payment_intent);
  if (!payment) return 'ignored';
  if (payment.disputeId) return 'duplicate';
  const marked = sql`EXISTS (SELECT 1 FROM payments WHERE id = ${payment.id} AND dispute_id = ${dispute.id} AND disputed_at = ${now})`;
  const [changed] = (await runBatch(db, [
    new SqlStatement(`UPDATE payments SET dispute_id = ?1, disputed_at = ?2 WHERE id = ?3 AND dispute_id IS NULL RETURNING id`, [
      dispute.id,
      now,
      payment.id,
    ]),
    new SqlStatement(
      `UPDATE users SET payment_flagged_at = coalesce(payment_flagged_at, ?1)
        WHERE id = (SELECT user_id FROM payments WHERE id = ?2 AND dispute_id = ?3 AND disputed_at = ?1)`,
      [now, payment.id, dispute.id],
    ),
    auditStatement(
      db,
      null,
      'payment.disputed',
      { type: 'payment', id: payment.id },
      { userId: payment.userId, dispute: dispute.id, amount: dispute.amount / 100, reason: dispute.reason ?? null },
      null,
      marked,
    ),
  ])) as [unknown[]];
  return changed.length === 1 ? 'disputed' : 'duplicate';
}
