// Card reversals (issue 33) against the Stripe stand-in: a stolen card topped up, exchanged and spent,
// then disputed or refunded, leaves what it became taken back and the rest owed, which blocks spending;
// events that come before their payment's credit wait for it; every step exact under concurrent deliveries.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, ledger, licenseKeys, paymentReversals, payments, stripeParkedEvents, users } from '../../../platform/db/schema';
import { api, db, signedInUser, unreconciledUsers } from '../../../test/helpers';
import { deliver, paidSession, signedEvent } from '../../../test/payment-helpers';
import { makeProduct } from '../../../test/shop-helpers';
import { sandbox } from '../../../test/sandbox';
import { DEFAULT_PAYMENT_SETTINGS } from '../../settings/schemas';

const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)).get())!;
const paymentRow = async (id: string) => (await db().select().from(payments).where(eq(payments.id, id)).get())!;

/** A verified customer with a card top-up of `cents` started through the API (pending until Stripe says paid). */
async function startTopUp(cents: number) {
  const customer = await signedInUser();
  const res = await api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: cents / 100 } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const sessionId = res.body.id;
  return {
    ...customer,
    sessionId,
    intent: `pi_test_${sessionId.slice(-16)}`,
    paid: () => signedEvent('checkout.session.completed', paidSession(sessionId, customer.user.id, cents)),
  };
}

const refunded = (intent: string, total: number) =>
  signedEvent('charge.refunded', { id: `ch_${intent}`, object: 'charge', payment_intent: intent, amount_refunded: total });
const disputeEvent = (
  type: 'charge.dispute.created' | 'charge.dispute.closed',
  intent: string,
  amount: number,
  status = 'needs_response',
) => signedEvent(type, { id: `dp_${intent}`, object: 'dispute', payment_intent: intent, amount, reason: 'fraudulent', status });

const exchange = (token: string, usdAmount: number) => api('POST', '/api/credits/exchange', { token, body: { usdAmount } });
const buy = (token: string, productId: string, duration = 1) => api('POST', '/api/keys/purchase', { token, body: { productId, duration } });

describe('a stolen card topped up, exchanged and spent, then disputed', () => {
  it('takes back nothing it cannot, records the rest as owed, blocks every way to spend, and the owner settles it', async () => {
    const thief = await startTopUp(50_000);
    expect((await deliver(await thief.paid())).body.outcome).toBe('credited');
    // $500 at 10 credits a dollar, spent at once on keys of 2,500 credits.
    expect((await exchange(thief.token, 500)).status).toBe(200);
    const product = await makeProduct({ baseCreditCost: 2490, creditsPerDay: 10 });
    expect((await buy(thief.token, product.id)).status).toBe(201);
    expect((await buy(thief.token, product.id)).status).toBe(201);
    expect(await userRow(thief.user.id)).toMatchObject({ balanceCents: 0, credits: 0 });

    const opened = await disputeEvent('charge.dispute.created', thief.intent, 50_000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(opened)));
    expect(answers.map((a) => a.body.outcome).filter((o) => o === 'disputed')).toHaveLength(1);
    expect(await paymentRow(thief.sessionId)).toMatchObject({ refundOwedCents: 50_000, disputeStatus: 'open', disputeCents: 50_000 });

    // Owed: no purchase, no exchange, whatever credits arrive meanwhile.
    await db().update(users).set({ credits: 5000, balanceCents: 1000 }).where(eq(users.id, thief.user.id));
    await db()
      .insert(ledger)
      .values({
        id: `gift${thief.sessionId.slice(-20)}`,
        userId: thief.user.id,
        kind: 'adjustment',
        creditsDelta: 5000,
        usdCentsDelta: 1000,
        createdAt: new Date(),
      });
    const refusedBuy = await buy(thief.token, product.id);
    expect(refusedBuy.status).toBe(402);
    expect(refusedBuy.body).toMatchObject({ code: 'PAYMENT_OWED', details: { owedUsd: 500 } });
    expect(refusedBuy.body.message).toContain('$500.00');
    const refusedExchange = await exchange(thief.token, 5);
    expect(refusedExchange.status).toBe(402);
    expect(refusedExchange.body).toMatchObject({ code: 'PAYMENT_OWED', details: { owedUsd: 500 } });
    const options = await api('GET', '/api/payments/options', { token: thief.token });
    expect(options.body).toMatchObject({ owedUsd: 500, heldUsd: 0 });
    expect(await userRow(thief.user.id)).toMatchObject({ credits: 5000, balanceCents: 1000 });

    // The dispute is lost: it settles once, and what is owed stays owed.
    const lost = await disputeEvent('charge.dispute.closed', thief.intent, 50_000, 'lost');
    const closes = await Promise.all(Array.from({ length: 10 }, () => deliver(lost)));
    expect(closes.map((a) => a.body.outcome).filter((o) => o === 'dispute_lost')).toHaveLength(1);
    expect(await paymentRow(thief.sessionId)).toMatchObject({ refundOwedCents: 50_000, disputeStatus: 'lost' });

    // The owner sees it, revokes what the money bought in one action, and writes the amount off.
    const owner = await signedInUser('owner');
    const listed = await api('GET', `/api/admin/payments?user=${thief.username}`, { token: owner.token });
    expect(listed.body.payments[0]).toMatchObject({ _id: thief.sessionId, refundOwed: 500, disputeStatus: 'lost' });
    const revoked = await api('POST', `/api/admin/payments/${thief.sessionId}/revoke-keys`, { token: owner.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked).toHaveLength(2);
    const keys = await db().select().from(licenseKeys).where(eq(licenseKeys.purchasedBy, thief.user.id)).all();
    expect(keys.map((k) => k.status)).toEqual(['revoked', 'revoked']);
    expect(customerRefusedAgain(await api('POST', `/api/admin/payments/${thief.sessionId}/revoke-keys`, { token: owner.token }))).toBe(
      true,
    );

    const written = await api('POST', `/api/admin/payments/${thief.sessionId}/write-off`, { token: owner.token });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ writtenOff: 500, payment: { refundOwed: 0 } });
    expect((await api('POST', `/api/admin/payments/${thief.sessionId}/write-off`, { token: owner.token })).status).toBe(409);
    const audit = await db().select().from(auditLog).where(eq(auditLog.targetId, thief.sessionId)).all();
    expect(audit.map((a) => a.action).sort()).toEqual(
      ['payment.credited', 'payment.disputed', 'payment.dispute_lost', 'payment.keys_revoked', 'payment.owed_written_off'].sort(),
    );
    expect(audit.find((a) => a.action === 'payment.owed_written_off')).toMatchObject({ actorId: owner.user.id });
    expect((await buy(thief.token, product.id)).status).toBe(201);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('takes the credits the top-up became, at the rate of that exchange, before recording anything owed', async () => {
    const customer = await startTopUp(10_000);
    await deliver(await customer.paid());
    expect((await exchange(customer.token, 60)).status).toBe(200); // 600 credits
    const product = await makeProduct({ baseCreditCost: 190, creditsPerDay: 10 });
    expect((await buy(customer.token, product.id)).status).toBe(201); // 200 spent: 400 left, $40 left
    expect((await deliver(await refunded(customer.intent, 10_000))).body.outcome).toBe('refunded');
    // $40 from the balance, then $60 as 600 credits: 400 taken, and the $20 they no longer hold is owed.
    expect(await userRow(customer.user.id)).toMatchObject({ balanceCents: 0, credits: 0 });
    expect(await paymentRow(customer.sessionId)).toMatchObject({ refundedCents: 10_000, refundOwedCents: 2000, status: 'refunded' });
    const [reversal] = await db().select().from(paymentReversals).where(eq(paymentReversals.paymentId, customer.sessionId)).all();
    expect(reversal).toMatchObject({ kind: 'refund', amountCents: 10_000, usdCents: 4000, credits: 400, owedCents: 2000 });
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('holds a dispute’s value while it is open and gives it back when the dispute is won', async () => {
    const customer = await startTopUp(3000);
    await deliver(await customer.paid());
    expect((await exchange(customer.token, 10)).status).toBe(200); // $20 and 100 credits
    await deliver(await disputeEvent('charge.dispute.created', customer.intent, 3000));
    // All of it held: nothing left to spend from this top-up, nothing owed.
    expect(await userRow(customer.user.id)).toMatchObject({ balanceCents: 0, credits: 0 });
    expect(await paymentRow(customer.sessionId)).toMatchObject({ refundOwedCents: 0, disputeStatus: 'open' });
    expect((await exchange(customer.token, 1)).status).toBe(402);

    const won = await disputeEvent('charge.dispute.closed', customer.intent, 3000, 'won');
    const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(won)));
    expect(answers.map((a) => a.body.outcome).filter((o) => o === 'dispute_won')).toHaveLength(1);
    expect(await userRow(customer.user.id)).toMatchObject({ balanceCents: 2000, credits: 100 });
    expect(await paymentRow(customer.sessionId)).toMatchObject({ disputeStatus: 'won', disputeCents: 0, refundOwedCents: 0 });
    expect((await exchange(customer.token, 1)).status).toBe(200);
    expect(await unreconciledUsers()).toEqual([]);
  });
});

function customerRefusedAgain(res: { status: number; body: { revoked?: unknown[] } }) {
  // A second revocation finds nothing left to revoke.
  return res.status === 200 && res.body.revoked?.length === 0;
}

describe('refunds and disputes that arrive before their payment is credited', () => {
  it('are kept and applied once when the credit arrives, however the deliveries interleave', async () => {
    const customer = await startTopUp(10_000);
    const early = await refunded(customer.intent, 3000);
    expect((await deliver(early)).body.outcome).toBe('parked');
    // The credit and many more deliveries of both, at once.
    const paid = await customer.paid();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => deliver(paid)),
      ...Array.from({ length: 10 }, () => deliver(early)),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.outcome === 'credited')).toHaveLength(1);
    expect(await userRow(customer.user.id)).toMatchObject({ balanceCents: 7000 });
    expect(await paymentRow(customer.sessionId)).toMatchObject({ status: 'refunded', refundedCents: 3000, refundOwedCents: 0 });
    expect(await db().select().from(paymentReversals).where(eq(paymentReversals.paymentId, customer.sessionId)).all()).toHaveLength(1);
    expect(await db().select().from(stripeParkedEvents).where(eq(stripeParkedEvents.paymentIntentId, customer.intent)).all()).toEqual([]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('never lets a credit be paid in full when its dispute came first, even delivered all at once', async () => {
    for (let round = 0; round < 3; round++) {
      const customer = await startTopUp(5000);
      const opened = await disputeEvent('charge.dispute.created', customer.intent, 5000);
      const lost = await disputeEvent('charge.dispute.closed', customer.intent, 5000, 'lost');
      const paid = await customer.paid();
      await Promise.all([
        ...Array.from({ length: 6 }, () => deliver(opened)),
        ...Array.from({ length: 6 }, () => deliver(lost)),
        ...Array.from({ length: 6 }, () => deliver(paid)),
      ]);
      // Whatever arrived first, Stripe retries until each applied: a retry of each finds it done.
      for (const event of [paid, opened, lost]) await deliver(event);
      expect(await userRow(customer.user.id)).toMatchObject({ balanceCents: 0, credits: 0 });
      expect(await paymentRow(customer.sessionId)).toMatchObject({
        status: 'paid',
        disputeStatus: 'lost',
        disputeCents: 5000,
        refundOwedCents: 0,
      });
      const rows = await db()
        .select()
        .from(ledger)
        .where(and(eq(ledger.reference, customer.sessionId), eq(ledger.userId, customer.user.id)))
        .all();
      expect(rows.map((r) => [r.kind, r.usdCentsDelta]).sort()).toEqual([
        ['card_reversal', -5000],
        ['topup', 5000],
      ]);
    }
    expect(await unreconciledUsers()).toEqual([]);
  });
});

describe('fresh money waits, if the owner wants', () => {
  it("holds a first-time payer's top-up for the owner's hours before it can be exchanged, and says when it frees", async () => {
    const box = await sandbox({ settings: { payments: { ...DEFAULT_PAYMENT_SETTINGS, firstTopUpHoldHours: 24 } } });
    const customer = await box.signedInUser();
    const start = await box.api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: 50 } });
    expect(start.status).toBe(201);
    const before = Date.now();
    const credited = await deliver(
      await signedEvent('checkout.session.completed', paidSession(start.body.id, customer.user.id, 5000)),
      box.api,
    );
    expect(credited.body.outcome).toBe('credited');
    const { heldUntil } = await paymentRow(start.body.id);
    expect(heldUntil!.getTime()).toBeGreaterThanOrEqual(before + 24 * 3_600_000);

    const refused = await box.api('POST', '/api/credits/exchange', { token: customer.token, body: { usdAmount: 10 } });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: 'FUNDS_HELD', details: { heldUsd: 50, heldUntil: heldUntil!.toISOString() } });
    const options = await box.api('GET', '/api/payments/options', { token: customer.token });
    expect(options.body).toMatchObject({ heldUsd: 50, heldUntil: heldUntil!.toISOString() });
    const mine = await box.api('GET', '/api/payments', { token: customer.token });
    expect(mine.body.payments[0]).toMatchObject({ heldUntil: heldUntil!.toISOString() });
    // Money that is not held (an owner's credit) can be exchanged meanwhile.
    await db().update(users).set({ balanceCents: 6000 }).where(eq(users.id, customer.user.id));
    await db()
      .insert(ledger)
      .values({
        id: `own${start.body.id.slice(-21)}`,
        userId: customer.user.id,
        kind: 'adjustment',
        usdCentsDelta: 1000,
        createdAt: new Date(),
      });
    expect((await box.api('POST', '/api/credits/exchange', { token: customer.token, body: { usdAmount: 10 } })).status).toBe(200);
    expect((await box.api('POST', '/api/credits/exchange', { token: customer.token, body: { usdAmount: 1 } })).status).toBe(402);

    // Once the hold has passed the money is free, and a payer with a settled top-up is not held again.
    await db()
      .update(payments)
      .set({ heldUntil: new Date(Date.now() - 1000), paidAt: new Date(Date.now() - 25 * 3_600_000) })
      .where(eq(payments.id, start.body.id));
    expect((await box.api('POST', '/api/credits/exchange', { token: customer.token, body: { usdAmount: 10 } })).status).toBe(200);
    const next = await box.api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: 20 } });
    await deliver(await signedEvent('checkout.session.completed', paidSession(next.body.id, customer.user.id, 2000)), box.api);
    expect((await paymentRow(next.body.id)).heldUntil).toBeNull();
    expect(await unreconciledUsers()).toEqual([]);
  });
});
