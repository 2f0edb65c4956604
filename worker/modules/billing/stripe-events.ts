// What Stripe's verified webhook events do. A paid Checkout Session credits its amount once (its
// topup ledger row, unique per session, moves the balance: migration 0013); a refund or a dispute
// takes back what the money became (modules/billing/reversals.ts); a closed dispute settles either way.
// Each change is one D1 batch whose statements are guarded inside SQL, so duplicated or concurrent
// deliveries of an event change nothing more. A refund or dispute that names a payment not credited
// yet is parked and applied right after the credit. Events that name no known payment change nothing.
import { asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { runBatch, SqlStatement, type DB, type Statement } from '../../platform/db/client';
import { payments, stripeParkedEvents } from '../../platform/db/schema';
import { failedConstraint } from '../../platform/db/errors';
import { newId } from '../../platform/ids';
import type { Stripe } from './stripe';
import { closeDispute, disputeReversal, markDisputeSettledFirst, refundReversal } from './reversals';
import { auditStatement } from '../audit';
import { balanceToppedUpEvent, dispatchCommitted } from '../webhooks';
import { type StripeEventOutcome } from './schemas/payments';

export type EventOutcome = StripeEventOutcome;

/** What the owner's settings say about a credit: hours a first-time payer's top-up is held (0: none). */
export type CreditPolicy = { firstTopUpHoldHours: number };
const NO_HOLD: CreditPolicy = { firstTopUpHoldHours: 0 };

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
  status: z.string().nullable().optional(),
});

type PaymentRow = typeof payments.$inferSelect;
type ChargeEvent = { id: string; type: string; created: number; object: unknown };

export async function applyStripeEvent(
  db: DB,
  event: Stripe.Event,
  now = Date.now(),
  policy: CreditPolicy = NO_HOLD,
): Promise<EventOutcome> {
  const object: unknown = event.data?.object;
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = sessionSchema.safeParse(object);
      // An unpaid completion (a bank debit still on its way) waits for async_payment_succeeded.
      if (!session.success || session.data.payment_status !== 'paid') return 'ignored';
      const outcome = await creditTopUp(db, session.data, now, policy);
      // Refunds and disputes that came first apply now (again on a retried delivery, which finds them done).
      if ((outcome === 'credited' || outcome === 'duplicate') && session.data.payment_intent) {
        await applyParkedEvents(db, session.data.payment_intent, now);
      }
      return outcome;
    }
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed': {
      const session = sessionSchema.safeParse(object);
      if (!session.success) return 'ignored';
      return closeUnpaid(db, session.data.id, event.type === 'checkout.session.expired' ? 'expired' : 'failed');
    }
    case 'charge.refunded':
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
      return applyChargeEvent(db, { id: event.id, type: event.type, created: event.created, object }, now, true);
    default:
      return 'ignored';
  }
}

function intentOf(event: ChargeEvent): string | null {
  const parsed = (event.type === 'charge.refunded' ? chargeSchema : disputeSchema).safeParse(event.object);
  return parsed.success ? parsed.data.payment_intent : null;
}

/**
 * A refund or dispute event. Its payment is found by the payment intent, which the payment learns
 * from its credit; when no payment has it yet, the event is parked (one guarded INSERT: only while
 * still no payment has that intent, so a credit committing meanwhile is seen and the event applied).
 */
async function applyChargeEvent(db: DB, event: ChargeEvent, now: number, mayPark: boolean): Promise<EventOutcome> {
  const intent = intentOf(event);
  if (!intent) return 'ignored';
  const payment = await findByIntent(db, intent);
  if (!payment) {
    if (!mayPark) return 'ignored';
    const parked = await db.run(
      sql`INSERT INTO stripe_parked_events (id, payment_intent_id, type, object, event_created, created_at)
          SELECT ${event.id}, ${intent}, ${event.type}, ${JSON.stringify(event.object)}, ${event.created}, ${now}
           WHERE NOT EXISTS (SELECT 1 FROM payments WHERE payment_intent_id = ${intent})
          ON CONFLICT (id) DO NOTHING`,
    );
    if (parked.meta.changes === 1) return 'parked';
    // Parked already (a repeat), or the credit has just committed: then it applies now.
    if (!(await findByIntent(db, intent))) return 'duplicate';
    return applyChargeEvent(db, event, now, false);
  }
  if (payment.status !== 'paid' && payment.status !== 'refunded') return 'ignored';
  switch (event.type) {
    case 'charge.refunded':
      return recordRefund(db, payment, chargeSchema.parse(event.object), now);
    case 'charge.dispute.created':
      return recordDispute(db, payment, disputeSchema.parse(event.object), now);
    default:
      return settleDispute(db, payment, disputeSchema.parse(event.object), now);
  }
}

/** The parked events of a payment intent, in Stripe's order, each applied and then forgotten. */
async function applyParkedEvents(db: DB, intent: string, now: number) {
  const parked = await db
    .select()
    .from(stripeParkedEvents)
    .where(eq(stripeParkedEvents.paymentIntentId, intent))
    .orderBy(asc(stripeParkedEvents.eventCreated), asc(stripeParkedEvents.createdAt), asc(stripeParkedEvents.id));
  for (const event of parked) {
    await applyChargeEvent(
      db,
      { id: event.id, type: event.type, created: event.eventCreated, object: JSON.parse(event.object) },
      now,
      false,
    );
    await db.delete(stripeParkedEvents).where(eq(stripeParkedEvents.id, event.id));
  }
}

const findPayment = (db: DB, id: string) => db.select().from(payments).where(eq(payments.id, id)).get();
const findByIntent = (db: DB, paymentIntentId: string) =>
  db.select().from(payments).where(eq(payments.paymentIntentId, paymentIntentId)).get();

export type TopUpCredit = {
  sessionId: string;
  userId: string;
  amountCents: number;
  paymentIntentId: string | null;
  now: number;
  /** Hours a first-time payer's top-up is held before it can be exchanged (0: not held). */
  holdHours?: number;
};

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
      // A first-time payer (no other top-up paid, unreversed, at least the hold ago) waits out the hold.
      new SqlStatement(
        `UPDATE payments SET status = 'paid', amount_cents = ?1, payment_intent_id = ?2, paid_at = ?3,
                held_until = CASE WHEN ?5 > 0 AND NOT EXISTS (
                  SELECT 1 FROM payments q WHERE q.user_id = payments.user_id AND q.id != payments.id AND q.paid_at <= ?3 - ?5
                     AND q.dispute_id IS NULL AND q.refunded_cents = 0) THEN ?3 + ?5 END
          WHERE id = (SELECT reference FROM ledger WHERE id = ?4)`,
        [credit.amountCents, credit.paymentIntentId, credit.now, ledgerId, Math.round((credit.holdHours ?? 0) * 3_600_000)],
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

async function creditTopUp(db: DB, session: z.infer<typeof sessionSchema>, now: number, policy: CreditPolicy): Promise<EventOutcome> {
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
    holdHours: policy.firstTopUpHoldHours,
  });
  try {
    // The balance.topped_up webhook event commits with the credit, and only with it.
    const results = await runBatch(db, [
      ...statements,
      balanceToppedUpEvent(payment.userId, { amountUsd: session.amount_total / 100, ledgerId }, now),
    ]);
    await dispatchCommitted(results, db);
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
 * Stripe reports the charge's running total refunded: what it adds to the total recorded is
 * reversed (modules/billing/reversals.ts): taken from the USD balance, then from the credits it became, and
 * the rest recorded as owed. Guarded on the recorded total, so a repeated or older event adds nothing.
 */
async function recordRefund(db: DB, payment: PaymentRow, charge: z.infer<typeof chargeSchema>, now: number): Promise<EventOutcome> {
  const total = Math.min(charge.amount_refunded, payment.amountCents);
  if (total <= payment.refundedCents) return 'duplicate';
  const result = await refundReversal(db, { paymentId: payment.id, userId: payment.userId, totalCents: total, charge: charge.id, now });
  return result.applied ? 'refunded' : 'duplicate';
}

/** A dispute takes its amount back at once (held until it closes) and flags the customer's account. */
async function recordDispute(db: DB, payment: PaymentRow, dispute: z.infer<typeof disputeSchema>, now: number): Promise<EventOutcome> {
  if (payment.disputeId) return 'duplicate';
  const marked = await disputeReversal(db, {
    paymentId: payment.id,
    userId: payment.userId,
    disputeId: dispute.id,
    amountCents: dispute.amount,
    reason: dispute.reason ?? null,
    now,
  });
  return marked ? 'disputed' : 'duplicate';
}

/** charge.dispute.closed: lost keeps what the opening took; won (or an inquiry closed) gives it back. */
async function settleDispute(db: DB, payment: PaymentRow, dispute: z.infer<typeof disputeSchema>, now: number): Promise<EventOutcome> {
  const won = dispute.status !== 'lost';
  if (!payment.disputeId) {
    // The close came first. Lost: open it now (taking its amount), then close it. Won: nothing to take.
    if (won)
      return (await markDisputeSettledFirst(db, { paymentId: payment.id, disputeId: dispute.id, now })) ? 'dispute_won' : 'duplicate';
    await recordDispute(db, payment, dispute, now);
  } else if (payment.disputeId !== dispute.id || payment.disputeStatus !== 'open') {
    return 'duplicate';
  }
  const settled = await closeDispute(db, {
    paymentId: payment.id,
    userId: payment.userId,
    disputeId: dispute.id,
    won,
    status: dispute.status ?? 'unknown',
    now,
  });
  if (!settled) return 'duplicate';
  return won ? 'dispute_won' : 'dispute_lost';
}
