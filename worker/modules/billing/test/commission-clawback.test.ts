// Issue 42, 4c: a card reversal that leaves a customer owing also takes back the commission their
// purchases since that payment earned their reseller. What the reseller's credits cover is taken at
// once; the rest is owed, and owing blocks the reseller's spending as it blocks a customer's. A won
// dispute gives it back; the owner's write-off of the payment writes it off. Exact under concurrent
// deliveries of the same event, and the ledger reconciles throughout.
import { and, eq, sql } from 'drizzle-orm';
import { newId } from '../../../platform/ids';
import { describe, expect, it } from 'vitest';
import { commissionClawbacks, ledger, users } from '../../../platform/db/schema';
import { api, db, signedInUser, uniqueName, unreconciledUsers } from '../../../test/helpers';
import { deliver, paidSession, signedEvent } from '../../../test/payment-helpers';
import { makeProduct } from '../../../test/shop-helpers';
import { tokenFor } from '../../../test/role-matrix';

const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)).get())!;
const clawbacksOf = (resellerId: string) =>
  db().select().from(commissionClawbacks).where(eq(commissionClawbacks.resellerId, resellerId)).all();
/** Credits and USD given (or taken) by the owner, with the ledger row that keeps the account reconciled. */
async function adjust(userId: string, credits: number, cents: number) {
  await db()
    .insert(ledger)
    .values({ id: newId(), userId, kind: 'adjustment', creditsDelta: credits, usdCentsDelta: cents, createdAt: new Date() });
  await db()
    .update(users)
    .set({ credits: sql`${users.credits} + ${credits}`, balanceCents: sql`${users.balanceCents} + ${cents}` })
    .where(eq(users.id, userId));
}
const exchange = (token: string, usdAmount: number) => api('POST', '/api/credits/exchange', { token, body: { usdAmount } });
const buy = (token: string, productId: string, duration = 1) => api('POST', '/api/keys/purchase', { token, body: { productId, duration } });
const disputeEvent = (
  type: 'charge.dispute.created' | 'charge.dispute.closed',
  intent: string,
  amount: number,
  status = 'needs_response',
) => signedEvent(type, { id: `dp_${intent}`, object: 'dispute', payment_intent: intent, amount, reason: 'fraudulent', status });
const refunded = (intent: string, total: number) =>
  signedEvent('charge.refunded', { id: `ch_${intent}`, object: 'charge', payment_intent: intent, amount_refunded: total });

/**
 * A reseller on a 10% commission tier with no credits, and their customer who topped up $100 by
 * card, exchanged it (1,000 credits) and spent it all on two keys of 500: 50 + 50 credits of
 * commission. The reseller then spends 60 of their 100 on a key of their own.
 */
async function resellerPaidByACard() {
  const owner = await tokenFor('owner');
  const tier = await api('POST', '/api/admin/reseller-tiers', {
    token: owner,
    body: { name: uniqueName('Tier '), discountPercent: 0, commissionPercent: 10 },
  });
  expect(tier.status, JSON.stringify(tier.body)).toBe(201);
  const reseller = await signedInUser('reseller');
  expect(
    (await api('PUT', `/api/admin/resellers/${reseller.user.id}/tier`, { token: owner, body: { tierId: tier.body._id } })).status,
  ).toBe(200);
  const customer = await signedInUser();
  expect(
    (await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, { token: owner, body: { resellerId: reseller.user.id } })).status,
  ).toBe(200);
  const checkout = await api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: 100 } });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  const sessionId = checkout.body.id;
  const intent = `pi_test_${sessionId.slice(-16)}`;
  expect(
    (await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, customer.user.id, 10_000)))).body.outcome,
  ).toBe('credited');
  expect((await exchange(customer.token, 100)).status).toBe(200);
  const product = await makeProduct({ baseCreditCost: 490, creditsPerDay: 10 });
  expect((await buy(customer.token, product.id)).status).toBe(201);
  expect((await buy(customer.token, product.id)).status).toBe(201);
  expect(await userRow(customer.user.id)).toMatchObject({ credits: 0, balanceCents: 0 });
  expect((await userRow(reseller.user.id)).credits).toBe(100);
  const small = await makeProduct({ baseCreditCost: 50, creditsPerDay: 10 });
  expect((await buy(reseller.token, small.id)).status).toBe(201);
  expect((await userRow(reseller.user.id)).credits).toBe(40);
  return { owner, reseller, customer, sessionId, intent, small };
}

describe('a reversal that leaves the customer owing', () => {
  it("takes back the commission it paid: the reseller's credits first, the rest owed, which blocks their spending until the dispute is won", async () => {
    const { reseller, intent, small, customer } = await resellerPaidByACard();
    const opened = await disputeEvent('charge.dispute.created', intent, 10_000);
    const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(opened)));
    expect(answers.filter((a) => a.body.outcome === 'disputed')).toHaveLength(1);

    // Each commission taken back once: 40 of the reseller's credits, 60 owed.
    const rows = await clawbacksOf(reseller.user.id);
    expect(rows).toHaveLength(2);
    expect(rows.reduce((n, r) => n + r.credits, 0)).toBe(100);
    expect(rows.reduce((n, r) => n + r.taken, 0)).toBe(40);
    expect(rows.reduce((n, r) => n + r.owed, 0)).toBe(60);
    expect((await userRow(reseller.user.id)).credits).toBe(0);
    const taken = await db()
      .select()
      .from(ledger)
      .where(and(eq(ledger.userId, reseller.user.id), eq(ledger.kind, 'card_reversal')))
      .all();
    expect(taken.map((l) => l.creditsDelta)).toEqual([-40]);

    // Owing blocks every way the reseller spends: a key in the shop, a key for a customer, an exchange.
    await adjust(reseller.user.id, 500, 1000);
    const refused = await buy(reseller.token, small.id);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: 'PAYMENT_OWED', details: { owedUsd: 0, owedCredits: 60 } });
    expect(refused.body.message).toContain('owes 60 credits of commission');
    const forCustomer = await api('POST', `/api/admin/users/${customer.user.id}/purchase/${small.id}`, {
      token: reseller.token,
      body: { duration: 1, useResellerCredits: true },
    });
    expect(forCustomer.status, JSON.stringify(forCustomer.body)).toBe(402);
    expect((await exchange(reseller.token, 5)).status).toBe(402);
    await adjust(reseller.user.id, -500, -1000);

    // The dispute won: what was taken comes back, and nothing is owed.
    const won = await disputeEvent('charge.dispute.closed', intent, 10_000, 'won');
    const closes = await Promise.all(Array.from({ length: 4 }, () => deliver(won)));
    expect(closes.every((c) => c.status === 200)).toBe(true);
    expect(await clawbacksOf(reseller.user.id)).toEqual([]);
    expect((await userRow(reseller.user.id)).credits).toBe(40);
    const tiny = await makeProduct({ baseCreditCost: 20, creditsPerDay: 10 });
    expect((await buy(reseller.token, tiny.id)).status).toBe(201);
    expect((await userRow(reseller.user.id)).credits).toBe(10);
    expect((await unreconciledUsers()).filter((u) => [reseller.user.id, customer.user.id].includes(u.id))).toEqual([]);
  });

  it("a refund's owed commission is written off with the payment, and a repeated reversal takes nothing twice", async () => {
    const { owner, reseller, sessionId, intent, small } = await resellerPaidByACard();
    // Half refunded, then the rest: each leaves the customer owing; each commission is taken once.
    await deliver(await refunded(intent, 5_000));
    const afterHalf = await clawbacksOf(reseller.user.id);
    expect(afterHalf.map((r) => r.credits)).toEqual([50, 50]);
    await Promise.all(Array.from({ length: 4 }, async () => deliver(await refunded(intent, 10_000))));
    expect(await clawbacksOf(reseller.user.id)).toEqual(afterHalf);
    expect((await buy(reseller.token, small.id)).status).toBe(402);

    const written = await api('POST', `/api/admin/payments/${sessionId}/write-off`, { token: owner });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect((await clawbacksOf(reseller.user.id)).reduce((n, r) => n + r.owed, 0)).toBe(0);
    await adjust(reseller.user.id, 100, 0);
    expect((await buy(reseller.token, small.id)).status).toBe(201);
  });

  it('takes nothing when the reversal leaves nothing owed', async () => {
    const owner = await tokenFor('owner');
    const reseller = await signedInUser('reseller');
    const customer = await signedInUser();
    await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, { token: owner, body: { resellerId: reseller.user.id } });
    const checkout = await api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: 20 } });
    const sessionId = checkout.body.id;
    await deliver(await signedEvent('checkout.session.completed', paidSession(sessionId, customer.user.id, 2_000)));
    // The whole top-up is still on the balance: the refund takes it from there, nothing owed.
    await deliver(await refunded(`pi_test_${sessionId.slice(-16)}`, 2_000));
    expect(await clawbacksOf(reseller.user.id)).toEqual([]);
  });
});
