// Card top-ups: checkout against the Stripe stand-in, and the webhook that alone credits a balance.
import { env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, ledger, payments, users } from '../../../platform/db/schema';
import { dbErrorText } from '../../../platform/db/errors';
import { api, db, signedInUser, unreconciledUsers } from '../../../test/helpers';
import { deliver, paidSession, signedEvent, standInFails, standInRequests, workerWith } from '../../../test/payment-helpers';
import { sandbox } from '../../../test/sandbox';

async function checkout(token: string, usdAmount: unknown, headers: Record<string, string> = {}) {
  return api('POST', '/api/payments/checkout', { token, body: { usdAmount }, headers });
}

/** A customer with a pending top-up of `cents`, started through the API. */
async function pendingTopUp(cents = 2500, extra: { balanceCents?: number } = {}) {
  const customer = await signedInUser('user', extra);
  const res = await checkout(customer.token, cents / 100);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...customer, sessionId: res.body.id };
}

const balanceOf = async (userId: string) => (await db().select().from(users).where(eq(users.id, userId)).get())!.balanceCents;
const paymentRow = (id: string) => db().select().from(payments).where(eq(payments.id, id)).get();
const topUpRows = (sessionId: string) =>
  db()
    .select()
    .from(ledger)
    .where(and(eq(ledger.reference, sessionId), eq(ledger.kind, 'topup')))
    .all();
const auditRows = (sessionId: string) => db().select().from(auditLog).where(eq(auditLog.targetId, sessionId)).all();

describe('POST /api/payments/checkout', () => {
  it('creates a payment-mode Checkout Session in USD for the customer and records it as pending', async () => {
    const customer = await signedInUser();
    const res = await checkout(customer.token, 25, { 'Idempotency-Key': 'click-1' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^cs_test_/) as unknown, url: `${env.STRIPE_API_BASE}/checkout/${res.body.id}` });

    const sent = (await standInRequests()).filter((r) => r.params.client_reference_id === customer.user.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: 'POST',
      path: '/v1/checkout/sessions',
      authorization: 'Bearer sk_test_stand_in',
      idempotencyKey: `topup:${customer.user.id}:click-1`,
    });
    expect(sent[0].params).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '2500',
      'line_items[0][quantity]': '1',
      success_url: 'http://localhost:8787/add-balance?payment={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:8787/add-balance?cancelled=1',
    });
    expect(await paymentRow(res.body.id)).toMatchObject({ userId: customer.user.id, amountCents: 2500, status: 'pending', paidAt: null });
    // Nothing is credited by starting a checkout.
    expect(await balanceOf(customer.user.id)).toBe(0);

    // The same click retried opens the same session and records it once.
    const again = await checkout(customer.token, 25, { 'Idempotency-Key': 'click-1' });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(res.body.id);
    expect(await db().select().from(payments).where(eq(payments.userId, customer.user.id)).all()).toHaveLength(1);

    const mine = await api('GET', '/api/payments', { token: customer.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      total: 1,
      totalPages: 1,
      payments: [{ _id: res.body.id, amount: 25, status: 'pending', refunded: 0, disputed: false }],
    });
    const status = await api('GET', `/api/payments/${res.body.id}`, { token: customer.token });
    expect(status.body).toMatchObject({ payment: { _id: res.body.id, status: 'pending' }, balance: 0 });
  });

  it('refuses amounts outside the bounds, with more than two decimals, or not a number, asking Stripe nothing', async () => {
    const customer = await signedInUser();
    for (const amount of [4.99, 500.01, 0, -5, 10.001, '25', null, 'abc']) {
      const res = await checkout(customer.token, amount);
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await checkout(customer.token, 4.99)).body.message).toBe('A top-up must be between $5.00 and $500.00');
    const malformed = await api('POST', '/api/payments/checkout', { token: customer.token, rawBody: '{"usdAmount":' });
    expect(malformed.status).toBe(400);
    expect((await standInRequests()).filter((r) => r.params.client_reference_id === customer.user.id)).toEqual([]);
    expect(await db().select().from(payments).where(eq(payments.userId, customer.user.id)).all()).toEqual([]);
    // The bounds themselves are accepted.
    expect((await checkout(customer.token, 5)).status).toBe(201);
    expect((await checkout(customer.token, 500)).status).toBe(201);
  });

  it('needs a signed-in user', async () => {
    expect((await api('POST', '/api/payments/checkout', { body: { usdAmount: 25 } })).status).toBe(401);
    expect((await api('GET', '/api/payments')).status).toBe(401);
  });

  it('is 403 when the owner turned card top-ups off, or without a Stripe secret key', async () => {
    const box = await sandbox({
      settings: {
        payments: { cardTopUpsEnabled: false, minTopUpUsd: 5, maxTopUpUsd: 500, quickTopUpAmounts: [10], firstTopUpHoldHours: 0 },
      },
    });
    const customer = await box.signedInUser();
    const off = await box.api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: 25 } });
    expect(off.status).toBe(403);
    expect(off.body).toEqual({ code: 'PAYMENTS_DISABLED', message: 'Card top-ups are turned off' });
    expect((await box.api('GET', '/api/payments/options', { token: customer.token })).body).toEqual({
      enabled: false,
      minUsd: 5,
      maxUsd: 500,
      quickAmounts: [10],
      emailVerified: true,
      owedUsd: 0,
      heldUsd: 0,
      heldUntil: null,
    });

    const noKey = workerWith({ STRIPE_SECRET_KEY: undefined });
    const other = await signedInUser();
    const res = await api('POST', '/api/payments/checkout', { token: other.token, body: { usdAmount: 25 }, fetch: noKey });
    expect(res.status).toBe(403);
    expect((await api('GET', '/api/payments/options', { token: other.token, fetch: noKey })).body.enabled).toBe(false);
    expect((await api('GET', '/api/payments/options', { token: other.token })).body).toEqual({
      enabled: true,
      minUsd: 5,
      maxUsd: 500,
      quickAmounts: [10, 25, 50, 100],
      emailVerified: true,
      owedUsd: 0,
      heldUsd: 0,
      heldUntil: null,
    });
  });

  it('is 502 with a clear message and leaves no pending payment when Stripe cannot be reached or fails', async () => {
    const customer = await signedInUser();
    const unreachable = await api('POST', '/api/payments/checkout', {
      token: customer.token,
      body: { usdAmount: 25 },
      fetch: workerWith({ STRIPE_API_BASE: 'http://127.0.0.1:9' }),
    });
    expect(unreachable.status).toBe(502);
    expect(unreachable.body).toEqual({
      code: 'PAYMENT_PROVIDER_ERROR',
      message: 'The payment provider could not be reached. Nothing was charged; please try again in a moment.',
    });

    // Stripe answering 500 to the call and to the SDK's one retry.
    await standInFails(500, 2, customer.user.id);
    const failing = await checkout(customer.token, 25);
    expect(failing.status).toBe(502);
    expect(await db().select().from(payments).where(eq(payments.userId, customer.user.id)).all()).toEqual([]);
  });
});

describe('POST /api/payments/stripe/webhook', () => {
  it('refuses a missing, forged, stale or tampered signature with 400 and changes nothing', async () => {
    const { user, sessionId } = await pendingTopUp();
    const object = paidSession(sessionId, user.id, 2500);
    const forged = await signedEvent('checkout.session.completed', object, { secret: 'whsec_attacker' });
    const stale = await signedEvent('checkout.session.completed', object, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    const genuine = await signedEvent('checkout.session.completed', object);
    const tampered = { body: genuine.body.replace('"amount_total":2500', '"amount_total":250000'), signature: genuine.signature };
    for (const event of [forged, stale, tampered, { body: genuine.body, signature: '' }, { body: genuine.body, signature: 'nonsense' }]) {
      const res = await deliver(event);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    const unsigned = await api('POST', '/api/payments/stripe/webhook', { rawBody: genuine.body });
    expect(unsigned.body).toEqual({ code: 'VALIDATION_ERROR', message: 'Missing Stripe-Signature header' });
    expect(await balanceOf(user.id)).toBe(0);
    expect(await paymentRow(sessionId)).toMatchObject({ status: 'pending' });
    expect(await topUpRows(sessionId)).toEqual([]);
  });

  it('credits a paid session once, with its ledger row and audit entry', async () => {
    const { user, token, sessionId } = await pendingTopUp(2500, { balanceCents: 100 });
    const res = await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 2500)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: 'credited' });
    expect(await balanceOf(user.id)).toBe(2600);
    expect(await topUpRows(sessionId)).toMatchObject([{ userId: user.id, usdCentsDelta: 2500, creditsDelta: 0, actorId: null }]);
    expect(await auditRows(sessionId)).toMatchObject([
      { action: 'payment.credited', targetType: 'payment', details: { userId: user.id, amount: 25 } },
    ]);
    expect(await paymentRow(sessionId)).toMatchObject({
      status: 'paid',
      amountCents: 2500,
      paymentIntentId: `pi_test_${sessionId.slice(-16)}`,
    });
    const status = await api('GET', `/api/payments/${sessionId}`, { token });
    expect(status.body).toMatchObject({ payment: { status: 'paid', amount: 25, paidAt: expect.any(String) as unknown }, balance: 26 });

    // Delivered again (Stripe retries), or as its async success: nothing more.
    const again = await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 2500)));
    expect(again.body.outcome).toBe('duplicate');
    expect(
      (await deliver(await signedEvent('checkout.session.async_payment_succeeded', paidSession(sessionId, user.id, 2500)))).body.outcome,
    ).toBe('duplicate');
    expect(await balanceOf(user.id)).toBe(2600);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('credits exactly once when Stripe delivers the same session 20 times at once', async () => {
    const { user, sessionId } = await pendingTopUp(4200);
    const completed = await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 4200));
    const succeeded = await signedEvent('checkout.session.async_payment_succeeded', paidSession(sessionId, user.id, 4200));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(i % 2 ? succeeded : completed)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.body.outcome === 'credited')).toHaveLength(1);
    expect(answers.filter((a) => a.body.outcome === 'duplicate')).toHaveLength(19);
    expect(await balanceOf(user.id)).toBe(4200);
    expect(await topUpRows(sessionId)).toHaveLength(1);
    expect(await auditRows(sessionId)).toHaveLength(1);
  });

  it('has a unique key per session in the ledger: a second topup row for it is refused', async () => {
    const { user, sessionId } = await pendingTopUp(1000);
    await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 1000)));
    const again = db()
      .insert(ledger)
      .values({ id: `dup${Date.now()}`, userId: user.id, kind: 'topup', usdCentsDelta: 1000, reference: sessionId, createdAt: new Date() });
    const refused = await again.run().then(
      () => null,
      (err: unknown) => err,
    );
    expect(dbErrorText(refused)).toMatch(/UNIQUE constraint failed: ledger\.reference/);
    expect(await balanceOf(user.id)).toBe(1000);
  });

  it('credits an unpaid completion only on its async success, and closes expired or failed sessions', async () => {
    const { user, sessionId } = await pendingTopUp(1500);
    const unpaid = await deliver(
      await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 1500, { payment_status: 'unpaid' })),
    );
    expect(unpaid.body.outcome).toBe('ignored');
    expect(await balanceOf(user.id)).toBe(0);
    const succeeded = await deliver(await signedEvent('checkout.session.async_payment_succeeded', paidSession(sessionId, user.id, 1500)));
    expect(succeeded.body.outcome).toBe('credited');
    expect(await balanceOf(user.id)).toBe(1500);

    const expired = await pendingTopUp(1500);
    expect(
      (
        await deliver(
          await signedEvent(
            'checkout.session.expired',
            paidSession(expired.sessionId, expired.user.id, 1500, { payment_status: 'unpaid', status: 'expired' }),
          ),
        )
      ).body.outcome,
    ).toBe('expired');
    expect(await paymentRow(expired.sessionId)).toMatchObject({ status: 'expired' });
    // A paid event for an expired session credits nothing.
    expect(
      (await deliver(await signedEvent('checkout.session.completed', paidSession(expired.sessionId, expired.user.id, 1500)))).body.outcome,
    ).toBe('ignored');
    expect(await balanceOf(expired.user.id)).toBe(0);

    const failed = await pendingTopUp(1500);
    expect(
      (
        await deliver(
          await signedEvent(
            'checkout.session.async_payment_failed',
            paidSession(failed.sessionId, failed.user.id, 1500, { payment_status: 'unpaid' }),
          ),
        )
      ).body.outcome,
    ).toBe('failed');
    expect(await paymentRow(failed.sessionId)).toMatchObject({ status: 'failed' });
  });

  it('answers 200 and changes nothing for unknown sessions, unhandled types and odd objects', async () => {
    const { user, sessionId } = await pendingTopUp(2000);
    const events = [
      await signedEvent('checkout.session.completed', paidSession('cs_test_unknown0000000000000000', user.id, 2000)),
      await signedEvent('customer.created', { id: 'cus_test_1', object: 'customer' }),
      await signedEvent('checkout.session.completed', { id: sessionId, weird: true }),
      // Another customer's reference, another currency, no amount: not this shop's top-up.
      await signedEvent('checkout.session.completed', paidSession(sessionId, 'someone-else', 2000)),
      await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 2000, { currency: 'eur' })),
      await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 2000, { amount_total: null })),
      await signedEvent('charge.refunded', { id: 'ch_test_x', object: 'charge', payment_intent: null, amount_refunded: 500 }),
      await signedEvent('charge.dispute.created', { id: 'dp_test_x', object: 'dispute', payment_intent: 42, amount: 500 }),
      { body: 'not json', signature: '' },
    ];
    events[events.length - 1] = { body: 'not json', signature: (await signedEvent('x', {})).signature };
    for (const event of events.slice(0, -1)) {
      const res = await deliver(event);
      expect(res.status, event.body).toBe(200);
      expect(res.body).toEqual({ received: true, outcome: 'ignored' });
    }
    // A body that is not what was signed is refused as any forgery.
    expect((await deliver(events[events.length - 1])).status).toBe(400);
    expect(await balanceOf(user.id)).toBe(0);
    expect(await paymentRow(sessionId)).toMatchObject({ status: 'pending' });
    // A refund or dispute of a payment intent no payment has yet is kept for its credit (reversals.test.ts).
    const early = await signedEvent('charge.refunded', {
      id: 'ch_test_y',
      object: 'charge',
      payment_intent: 'pi_test_unknown',
      amount_refunded: 500,
    });
    expect((await deliver(early)).body).toEqual({ received: true, outcome: 'parked' });
    expect((await deliver(early)).body).toEqual({ received: true, outcome: 'duplicate' });
  });

  it('takes a refund back from the balance, then from the credits it became, and records the rest as owed, once', async () => {
    const { user, token, sessionId } = await pendingTopUp(3000);
    const intent = `pi_test_${sessionId.slice(-16)}`;
    await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 3000)));
    const charge = (refunded: number) => ({
      id: `ch_test_${sessionId.slice(-8)}`,
      object: 'charge',
      payment_intent: intent,
      amount_refunded: refunded,
      refunded: refunded === 3000,
    });

    const partial = await deliver(await signedEvent('charge.refunded', charge(1000)));
    expect(partial.body.outcome).toBe('refunded');
    expect(await balanceOf(user.id)).toBe(2000);
    expect(await paymentRow(sessionId)).toMatchObject({ status: 'refunded', refundedCents: 1000, refundOwedCents: 0 });

    // The customer exchanges most of the rest (150 credits at 10 a dollar) and spends 100 of them.
    expect((await api('POST', '/api/credits/exchange', { token, body: { usdAmount: 15 } })).status).toBe(200);
    await db().update(users).set({ credits: 50 }).where(eq(users.id, user.id));
    await db()
      .insert(ledger)
      .values({ id: `spent${sessionId.slice(-19)}`, userId: user.id, kind: 'adjustment', creditsDelta: -100, createdAt: new Date() });
    const full = await signedEvent('charge.refunded', charge(3000));
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(full)));
    expect(answers.filter((a) => a.body.outcome === 'refunded')).toHaveLength(1);
    // $5 from the balance, 50 credits ($5) from the credits, and the $10 they no longer hold is owed.
    const after = (await db().select().from(users).where(eq(users.id, user.id)).get())!;
    expect({ balance: after.balanceCents, credits: after.credits }).toEqual({ balance: 0, credits: 0 });
    expect(await paymentRow(sessionId)).toMatchObject({ refundedCents: 3000, refundOwedCents: 1000 });
    // An older event arriving late adds nothing.
    expect((await deliver(await signedEvent('charge.refunded', charge(1000)))).body.outcome).toBe('duplicate');
    const reversals = await db()
      .select()
      .from(ledger)
      .where(and(eq(ledger.reference, sessionId), eq(ledger.kind, 'card_reversal')))
      .all();
    expect(reversals.map((r) => [r.usdCentsDelta, r.creditsDelta])).toEqual([
      [-1000, 0],
      [-500, -50],
    ]);
    expect(await auditRows(sessionId)).toHaveLength(3);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('takes a dispute at once, flags the account and pauses its card top-ups', async () => {
    const { user, token, sessionId } = await pendingTopUp(2000);
    await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 2000)));
    const dispute = await signedEvent('charge.dispute.created', {
      id: `dp_test_${sessionId.slice(-8)}`,
      object: 'dispute',
      payment_intent: `pi_test_${sessionId.slice(-16)}`,
      charge: 'ch_test_1',
      amount: 2000,
      reason: 'fraudulent',
      status: 'needs_response',
    });
    const answers = await Promise.all([deliver(dispute), deliver(dispute), deliver(dispute)]);
    expect(answers.map((a) => a.body.outcome).sort()).toEqual(['disputed', 'duplicate', 'duplicate']);
    expect(await paymentRow(sessionId)).toMatchObject({
      disputeId: `dp_test_${sessionId.slice(-8)}`,
      disputedAt: expect.any(Date) as unknown,
      disputeStatus: 'open',
      disputeCents: 2000,
    });
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())!.paymentFlaggedAt).toBeInstanceOf(Date);
    expect((await auditRows(sessionId)).filter((a) => a.action === 'payment.disputed')).toHaveLength(1);
    // Its value is held while Stripe decides: out of the balance.
    expect(await balanceOf(user.id)).toBe(0);
    const refused = await checkout(token, 25);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('PAYMENTS_DISABLED');
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('is served during maintenance and needs no session', async () => {
    const box = await sandbox({ settings: { maintenanceMode: true } });
    const { user, sessionId } = await pendingTopUp(1200);
    const res = await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, user.id, 1200)), box.api);
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('credited');
    expect(await balanceOf(user.id)).toBe(1200);
  });

  it('is 404 NOT_CONFIGURED, naming the secret to set, when no webhook secret is configured', async () => {
    const event = await signedEvent('checkout.session.completed', {});
    const res = await api('POST', '/api/payments/stripe/webhook', {
      rawBody: event.body,
      headers: { 'stripe-signature': event.signature },
      fetch: workerWith({ STRIPE_WEBHOOK_SECRET: undefined }),
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_CONFIGURED');
    expect(res.body.message).toContain('STRIPE_WEBHOOK_SECRET');
  });
});
