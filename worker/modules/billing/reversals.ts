// Card reversals (issue 33): a refund or a dispute takes back what the money became. Each reversal
// is one D1 batch: a payment_reversals row written by one guarded INSERT that works out, inside SQL
// and so against the balances as they stand at that moment, what it takes (the USD balance first,
// then the credits the top-up became, at the rate of the customer's exchanges since it was paid) and
// what neither covers (owed); its ledger row (moving both balances by a trigger, migration 0017);
// the payment's figures; and the audit entry. Every statement after the first reads the reversal row
// by its id, so a delivery whose guard failed (a repeat, a concurrent twin) changes nothing at all.
//
// A reversal that leaves its customer owing also takes back the commission their purchases since
// the payment earned a reseller (issue 42): the money those purchases were made with is gone, so the
// commission it paid goes too. One row per commission (commission_clawbacks), in the same batch: the
// reseller's credits cover what they can (a card_reversal ledger row), the rest the reseller owes,
// which blocks their spending as owing blocks a customer's (the ledger's spending guard, 0027). A won
// dispute gives it back; the owner's write-off of the payment writes the reseller's part off too.
import { and, eq, gte, ne, sql } from 'drizzle-orm';
import { runBatch, SqlStatement, type DB, type Statement } from '../../platform/db/client';
import { licenseKeys, payments } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { auditStatement, type AuditAction } from '../audit';
import { dispatchCommitted, keyEvents } from '../webhooks';

type ReversalKind = 'refund' | 'dispute';

/**
 * The guarded INSERT of a reversal of payment ?2: `amount` and `guard` are SQL over `p` (the
 * payment) with the statement's parameters. Nothing is written when the guard fails or the amount
 * is not positive (a dispute of an already refunded payment is marked by its own statement).
 */
function reversalInsert(id: string, paymentId: string, kind: ReversalKind, amount: string, guard: string, params: unknown[], now: number) {
  return new SqlStatement(
    `WITH base AS (
       SELECT p.id AS pid, p.user_id AS uid, u.balance_cents AS bal, u.credits AS cr, (${amount}) AS amt,
              coalesce((SELECT sum(l.credits_delta) FROM ledger l WHERE l.user_id = p.user_id AND l.kind = 'exchange' AND l.created_at >= p.paid_at), 0) AS xc,
              coalesce((SELECT -sum(l.usd_cents_delta) FROM ledger l WHERE l.user_id = p.user_id AND l.kind = 'exchange' AND l.created_at >= p.paid_at), 0) AS xu
         FROM payments p JOIN users u ON u.id = p.user_id
        WHERE p.id = ?2 AND p.status IN ('paid', 'refunded') AND (${guard})
     ),
     usd AS (SELECT *, min(bal, amt) AS usd_taken FROM base WHERE amt > 0),
     want AS (SELECT *, CASE WHEN xu > 0 THEN ((amt - usd_taken) * xc + xu - 1) / xu ELSE 0 END AS credits_wanted FROM usd),
     took AS (SELECT *, min(cr, credits_wanted) AS credits_taken FROM want)
     INSERT INTO payment_reversals (id, payment_id, user_id, kind, amount_cents, usd_cents, credits, owed_cents, created_at)
     SELECT ?1, pid, uid, ?3, amt, usd_taken, credits_taken,
            amt - usd_taken - CASE WHEN credits_taken >= credits_wanted THEN amt - usd_taken ELSE (credits_taken * xu) / xc END, ?4
       FROM took RETURNING id, usd_cents AS usdCents, credits, owed_cents AS owedCents`,
    [id, paymentId, kind, now, ...params],
  );
}

/**
 * The ledger row of reversal ?2: minus what it took (a return took a negative amount, so it gives
 * back). Its deltas move both balances (trigger, migration 0017).
 */
function reversalLedger(reversalId: string, now: number, note: string, kind: 'card_reversal' | 'dispute_return') {
  return new SqlStatement(
    `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, usd_cents_delta, reference, note, created_at)
     SELECT ?1, user_id, NULL, ?3, -credits, -usd_cents, payment_id, ?4, ?5 FROM payment_reversals WHERE id = ?2`,
    [newId(now), reversalId, kind, note, now],
  );
}

const reversalExists = (id: string) => sql`EXISTS (SELECT 1 FROM payment_reversals WHERE id = ${id})`;

/** A ledger row's id written in SQL, as the commission trigger writes them (0021). */
const LEDGER_ID_SQL = (ms: string) => `printf('%08x', ${ms} / 1000) || lower(hex(randomblob(8)))`;

/**
 * The commission reversal ?1 takes back, when it left its customer owing: every commission ledger
 * row of the customer's purchases since the payment was paid (from the resellers they have had),
 * not taken back before. Of each reseller's, in order, what their credits cover is taken and the
 * rest owed (taken adds up to min(credits, commissions)). ?2 is now.
 */
const CLAWBACK_SQL = `WITH due AS (
    SELECT c.id AS cid, c.user_id AS rid, c.credits_delta AS amt, r.id AS rev, r.payment_id AS pid, r.user_id AS cust, u.credits AS bal,
           coalesce(sum(c.credits_delta) OVER (PARTITION BY c.user_id ORDER BY c.created_at, c.id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
      FROM payment_reversals r
      JOIN payments p ON p.id = r.payment_id
      JOIN ledger c ON c.user_id IN (SELECT s.reseller_id FROM customer_resellers s WHERE s.customer_id = r.user_id)
                   AND c.actor_id = r.user_id AND +c.kind = 'commission' AND c.created_at >= p.paid_at
      JOIN users u ON u.id = c.user_id
     WHERE r.id = ?1 AND r.owed_cents > 0
       AND NOT EXISTS (SELECT 1 FROM commission_clawbacks x WHERE x.commission_id = c.id)
  ),
  took AS (SELECT *, max(0, min(amt, bal - before)) AS taken FROM due)
  INSERT INTO commission_clawbacks (commission_id, reversal_id, payment_id, reseller_id, customer_id, credits, taken, owed, created_at)
  SELECT cid, rev, pid, rid, cust, amt, taken, amt - taken, ?2 FROM took`;

/** Each reseller's card_reversal ledger row for what reversal ?1 took of their credits (its trigger moves them). */
const CLAWBACK_LEDGER_SQL = `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, usd_cents_delta, reference, note, created_at)
  SELECT ${LEDGER_ID_SQL('?2')}, reseller_id, NULL, 'card_reversal', -sum(taken), 0, payment_id,
         'Commission taken back: a customer' || char(39) || 's card payment was reversed', ?2
    FROM commission_clawbacks WHERE reversal_id = ?1 GROUP BY reseller_id, payment_id HAVING sum(taken) > 0`;

const clawback = (reversalId: string, now: number) => [
  new SqlStatement(CLAWBACK_SQL, [reversalId, now]),
  new SqlStatement(CLAWBACK_LEDGER_SQL, [reversalId, now]),
];

/**
 * A won dispute (reversal ?1, of payment ?2) gives back what its dispute took of resellers'
 * commission, and forgives what they owe of it. ?3 is now.
 */
const clawbackReturn = (wonId: string, paymentId: string, now: number) => {
  const ofDispute = `SELECT id FROM payment_reversals WHERE payment_id = ?2 AND kind = 'dispute'`;
  const won = `EXISTS (SELECT 1 FROM payment_reversals WHERE id = ?1)`;
  return [
    new SqlStatement(
      `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, usd_cents_delta, reference, note, created_at)
       SELECT ${LEDGER_ID_SQL('?3')}, reseller_id, NULL, 'dispute_return', sum(taken), 0, payment_id,
              'Commission given back: a customer' || char(39) || 's card dispute was won', ?3
         FROM commission_clawbacks WHERE reversal_id IN (${ofDispute}) AND ${won}
        GROUP BY reseller_id, payment_id HAVING sum(taken) > 0`,
      [wonId, paymentId, now],
    ),
    new SqlStatement(`DELETE FROM commission_clawbacks WHERE reversal_id IN (${ofDispute}) AND ${won}`, [wonId, paymentId]),
  ];
};

export type ReversalResult = { applied: boolean; usdCents: number; credits: number; owedCents: number };

async function runReversal(db: DB, statements: Statement[]): Promise<ReversalResult> {
  const [inserted] = (await runBatch(db, statements)) as [Array<{ usdCents: number; credits: number; owedCents: number }>];
  const row = inserted[0];
  return row ? { applied: true, ...row } : { applied: false, usdCents: 0, credits: 0, owedCents: 0 };
}

function audit(db: DB, action: AuditAction, paymentId: string, reversalId: string, details: Record<string, unknown>) {
  // What it took and left owed is on the reversal row the entry names.
  return auditStatement(
    db,
    null,
    action,
    { type: 'payment', id: paymentId },
    { ...details, reversal: reversalId },
    null,
    reversalExists(reversalId),
  );
}

/**
 * Stripe's running refunded total reached `totalCents`: what it adds to the total recorded is
 * reversed. Guarded on the recorded total, so a repeated or older event adds nothing.
 */
export function refundReversal(db: DB, refund: { paymentId: string; userId: string; totalCents: number; charge: string; now: number }) {
  const id = newId(refund.now);
  // Never more than what the payment still holds (a lost dispute took the rest).
  const amount = `min(?5, p.amount_cents - p.dispute_cents) - p.refunded_cents`;
  return runReversal(db, [
    reversalInsert(id, refund.paymentId, 'refund', amount, 'p.refunded_cents < ?5', [refund.totalCents], refund.now),
    reversalLedger(id, refund.now, `Card payment refunded (Stripe charge ${refund.charge})`, 'card_reversal'),
    new SqlStatement(
      `UPDATE payments SET refunded_cents = refunded_cents + r.amount_cents, refund_owed_cents = refund_owed_cents + r.owed_cents, status = 'refunded'
         FROM (SELECT payment_id, amount_cents, owed_cents FROM payment_reversals WHERE id = ?1) AS r WHERE payments.id = r.payment_id`,
      [id],
    ),
    audit(db, 'payment.refunded', refund.paymentId, id, {
      userId: refund.userId,
      refundedTotal: refund.totalCents / 100,
      charge: refund.charge,
    }),
    ...clawback(id, refund.now),
  ]);
}

/**
 * A dispute opened: its amount is taken at once (held while Stripe decides, as Stripe holds the
 * shop's money) and the account is flagged. Guarded on the payment having no dispute yet.
 */
export async function disputeReversal(
  db: DB,
  dispute: { paymentId: string; userId: string; disputeId: string; amountCents: number; reason: string | null; now: number },
): Promise<boolean> {
  const id = newId(dispute.now);
  const { now } = dispute;
  const amount = `min(?5, p.amount_cents - p.refunded_cents)`;
  const marked = sql`EXISTS (SELECT 1 FROM payments WHERE id = ${dispute.paymentId} AND dispute_id = ${dispute.disputeId} AND disputed_at = ${now})`;
  const [, , , mark] = await runBatch(db, [
    reversalInsert(id, dispute.paymentId, 'dispute', amount, 'p.dispute_id IS NULL', [dispute.amountCents], now),
    reversalLedger(id, now, `Card payment disputed (Stripe dispute ${dispute.disputeId}): held until it closes`, 'card_reversal'),
    new SqlStatement(
      `UPDATE payments SET refund_owed_cents = refund_owed_cents + r.owed_cents, dispute_cents = r.amount_cents
         FROM (SELECT payment_id, amount_cents, owed_cents FROM payment_reversals WHERE id = ?1) AS r WHERE payments.id = r.payment_id`,
      [id],
    ),
    // Marked even when nothing was left to take (the payment was refunded in full first).
    new SqlStatement(
      `UPDATE payments SET dispute_id = ?1, disputed_at = ?2, dispute_status = 'open' WHERE id = ?3 AND dispute_id IS NULL RETURNING id`,
      [dispute.disputeId, now, dispute.paymentId],
    ),
    new SqlStatement(
      `UPDATE users SET payment_flagged_at = coalesce(payment_flagged_at, ?1)
        WHERE id = (SELECT user_id FROM payments WHERE id = ?2 AND dispute_id = ?3 AND disputed_at = ?1)`,
      [now, dispute.paymentId, dispute.disputeId],
    ),
    auditStatement(
      db,
      null,
      'payment.disputed',
      { type: 'payment', id: dispute.paymentId },
      { userId: dispute.userId, dispute: dispute.disputeId, amount: dispute.amountCents / 100, reason: dispute.reason },
      null,
      marked,
    ),
    ...clawback(id, now),
  ]);
  return (mark as unknown[]).length === 1;
}

/**
 * A dispute closed. Lost: what it took stays taken (and what it left owed stays owed). Won (or an
 * inquiry closed): what it took is given back and its owed amount (what is left of it after a
 * write-off) forgiven. Guarded on the dispute being open, so it settles once. A close that arrives
 * before its opening marks the payment settled (won) or runs the opening first (lost).
 */
export async function closeDispute(
  db: DB,
  close: { paymentId: string; userId: string; disputeId: string; won: boolean; status: string; now: number },
): Promise<boolean> {
  const { now } = close;
  const settled = sql`EXISTS (SELECT 1 FROM payments WHERE id = ${close.paymentId} AND dispute_id = ${close.disputeId} AND dispute_status = ${close.won ? 'won' : 'lost'} AND disputed_at IS NOT NULL)`;
  const auditRow = auditStatement(
    db,
    null,
    close.won ? 'payment.dispute_won' : 'payment.dispute_lost',
    { type: 'payment', id: close.paymentId },
    { userId: close.userId, dispute: close.disputeId, status: close.status },
    null,
    sql`${settled} AND NOT EXISTS (SELECT 1 FROM audit_log WHERE target_id = ${close.paymentId} AND action IN ('payment.dispute_won', 'payment.dispute_lost'))`,
  );
  if (!close.won) {
    const [lost] = await runBatch(db, [
      new SqlStatement(
        `UPDATE payments SET dispute_status = 'lost' WHERE id = ?1 AND dispute_id = ?2 AND dispute_status = 'open' RETURNING id`,
        [close.paymentId, close.disputeId],
      ),
      auditRow,
    ]);
    return (lost as unknown[]).length === 1;
  }
  const id = newId(now);
  const [, , , marked] = await runBatch(db, [
    // The return: minus what the dispute's own reversal took; owed forgiven no further than what is still owed.
    new SqlStatement(
      `INSERT INTO payment_reversals (id, payment_id, user_id, kind, amount_cents, usd_cents, credits, owed_cents, created_at)
       SELECT ?1, p.id, p.user_id, 'dispute_won', -r.amount_cents, -r.usd_cents, -r.credits, -min(r.owed_cents, p.refund_owed_cents), ?4
         FROM payments p JOIN payment_reversals r ON r.payment_id = p.id AND r.kind = 'dispute'
        WHERE p.id = ?2 AND p.dispute_id = ?3 AND p.dispute_status = 'open' RETURNING id`,
      [id, close.paymentId, close.disputeId, now],
    ),
    reversalLedger(id, now, `Card payment dispute won (Stripe dispute ${close.disputeId}): given back`, 'dispute_return'),
    new SqlStatement(
      `UPDATE payments SET refund_owed_cents = refund_owed_cents + r.owed_cents
         FROM (SELECT payment_id, owed_cents FROM payment_reversals WHERE id = ?1) AS r WHERE payments.id = r.payment_id`,
      [id],
    ),
    new SqlStatement(
      `UPDATE payments SET dispute_status = 'won', dispute_cents = 0 WHERE id = ?1 AND dispute_id = ?2 AND dispute_status = 'open' RETURNING id`,
      [close.paymentId, close.disputeId],
    ),
    auditRow,
    ...clawbackReturn(id, close.paymentId, now),
  ]);
  return (marked as unknown[]).length === 1;
}

/** A close (won) that came before its opening: the payment is marked settled, so the opening takes nothing. */
export async function markDisputeSettledFirst(db: DB, close: { paymentId: string; disputeId: string; now: number }): Promise<boolean> {
  const [marked] = await runBatch(db, [
    new SqlStatement(
      `UPDATE payments SET dispute_id = ?1, disputed_at = ?2, dispute_status = 'won' WHERE id = ?3 AND dispute_id IS NULL RETURNING id`,
      [close.disputeId, close.now, close.paymentId],
    ),
  ]);
  return (marked as unknown[]).length === 1;
}

// The owner's answers to a reversal: writing an owed amount off, and revoking what the money bought.

export type PaymentAdmin = { db: DB; actor: { id: string }; ip: string | null };

const findPaymentRow = (db: DB, id: string) => db.select().from(payments).where(eq(payments.id, id)).get();

/**
 * Writes off what a payment's reversals left owed (the account may spend again once nothing is
 * owed), and what its resellers owe of the commission the reversals took back.
 */
export async function writeOffOwed(admin: PaymentAdmin, paymentId: string): Promise<number> {
  const { db, actor, ip } = admin;
  const payment = await findPaymentRow(db, paymentId);
  if (!payment) throw notFound('Payment');
  if (payment.refundOwedCents === 0) throw new AppError('CONFLICT', 'Nothing is owed on this payment.');
  const owed = payment.refundOwedCents;
  // Guarded on the amount read: a reversal landing meanwhile changes it, and the owner looks again.
  const [, changed] = await runBatch(db, [
    auditStatement(
      db,
      actor,
      'payment.owed_written_off',
      { type: 'payment', id: paymentId },
      { userId: payment.userId, amount: owed / 100 },
      ip,
      sql`EXISTS (SELECT 1 FROM payments WHERE id = ${paymentId} AND refund_owed_cents = ${owed})`,
    ),
    new SqlStatement(`UPDATE payments SET refund_owed_cents = 0 WHERE id = ?1 AND refund_owed_cents = ?2 RETURNING id`, [paymentId, owed]),
    // The commission its resellers owe after the reversal is written off with it: the shop takes the loss whole.
    new SqlStatement(
      `UPDATE commission_clawbacks SET owed = 0
        WHERE payment_id = ?1 AND owed > 0 AND EXISTS (SELECT 1 FROM payments WHERE id = ?1 AND refund_owed_cents = 0)`,
      [paymentId],
    ),
  ]);
  if ((changed as unknown[]).length === 0) throw new AppError('CONFLICT', 'The amount owed changed meanwhile. Please look again.');
  return owed;
}

/**
 * Revokes, in one batch, every key the payment's customer paid for with credits since the payment
 * was credited (their devices stop validating at once), with one audit entry and a key.revoked
 * event each. Keys bought for others by a reseller are the reseller's payment, not this one.
 */
export async function revokeKeysSincePayment(admin: PaymentAdmin, paymentId: string, now = Date.now()): Promise<string[]> {
  const { db, actor, ip } = admin;
  const payment = await findPaymentRow(db, paymentId);
  if (!payment) throw notFound('Payment');
  if (!payment.paidAt) throw new AppError('CONFLICT', 'This payment was never credited: no key was bought with it.');
  const keys = await db
    .select({ id: licenseKeys.id })
    .from(licenseKeys)
    .where(and(eq(licenseKeys.paidBy, payment.userId), gte(licenseKeys.createdAt, payment.paidAt), ne(licenseKeys.status, 'revoked')))
    .all();
  const ids = keys.map((k) => k.id);
  if (!ids.length) return [];
  const reason = `Bought after a reversed card payment (${paymentId})`;
  const results = await runBatch(db, [
    auditStatement(db, actor, 'payment.keys_revoked', { type: 'payment', id: paymentId }, { userId: payment.userId, keys: ids.length }, ip),
    new SqlStatement(
      `UPDATE license_keys SET status = 'revoked', revoke_reason = ?1, revoked_at = ?2
        WHERE id IN (SELECT value FROM json_each(?3)) AND status != 'revoked' RETURNING id`,
      [reason, now, JSON.stringify(ids)],
    ),
    keyEvents('key.revoked', ids, now, ` AND k.status = 'revoked' AND k.revoked_at = ?2`),
  ]);
  await dispatchCommitted(results, db);
  return (results[1] as Array<{ id: string }>).map((r) => r.id);
}
