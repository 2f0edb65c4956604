// The owner's view of card top-ups: the paged, filtered list, the analytics figures, the settings.
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, payments, users } from '../../../platform/db/schema';
import { systemAnalytics } from '../../reporting/analytics';
import { newId } from '../../../platform/ids';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { api, db, signedInUser } from '../../../test/helpers';
import { deliver, paidSession, signedEvent } from '../../../test/payment-helpers';
import { OWNER_ONLY, roleMatrix, tokenFor } from '../../../test/role-matrix';
import { sandbox } from '../../../test/sandbox';

roleMatrix('GET /api/admin/payments', { request: () => ({ method: 'GET', path: '/api/admin/payments' }), state: () => null }, OWNER_ONLY);

describe('GET /api/admin/payments', () => {
  it('lists every payment newest first, paged, filtered by status and customer, refunds and disputes marked', async () => {
    const customer = await signedInUser();
    const started: string[] = [];
    for (const usd of [10, 20, 30]) {
      const res = await api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: usd } });
      started.push(res.body.id);
    }
    const [first, second] = started;
    await deliver(await signedEvent('checkout.session.completed', paidSession(first, customer.user.id, 1000)));
    await deliver(await signedEvent('checkout.session.completed', paidSession(second, customer.user.id, 2000)));
    await deliver(
      await signedEvent('charge.refunded', {
        id: 'ch_test_a',
        object: 'charge',
        payment_intent: `pi_test_${first.slice(-16)}`,
        amount_refunded: 1000,
      }),
    );
    await deliver(
      await signedEvent('charge.dispute.created', {
        id: `dp_test_${second.slice(-8)}`,
        object: 'dispute',
        payment_intent: `pi_test_${second.slice(-16)}`,
        amount: 2000,
      }),
    );

    const owner = await tokenFor('owner');
    const mine = await api('GET', `/api/admin/payments?user=${customer.username.toUpperCase()}&limit=2`, { token: owner });
    expect(mine.status).toBe(200);
    expect(mine.body.total).toBe(3);
    expect(mine.body.totalPages).toBe(2);
    const page2 = await api('GET', `/api/admin/payments?user=${customer.username}&limit=2&page=2`, { token: owner });
    const all = [...mine.body.payments, ...page2.body.payments];
    expect(all.map((p: { _id: string }) => p._id).sort()).toEqual([...started].sort());
    const byId = Object.fromEntries(all.map((p: { _id: string }) => [p._id, p]));
    expect(byId[first]).toMatchObject({
      status: 'refunded',
      amount: 10,
      refunded: 10,
      refundOwed: 0,
      user: { _id: customer.user.id, username: customer.username },
    });
    expect(byId[second]).toMatchObject({ status: 'paid', disputed: true, accountFlagged: true, disputedAt: expect.any(String) as unknown });
    expect(byId[started[2]]).toMatchObject({ status: 'pending', disputed: false });

    const pending = await api('GET', `/api/admin/payments?user=${customer.username}&status=pending`, { token: owner });
    expect(pending.body.payments.map((p: { _id: string }) => p._id)).toEqual([started[2]]);
    const nobody = await api('GET', '/api/admin/payments?user=nosuchuser', { token: owner });
    expect(nobody.body).toEqual({ payments: [], totalPages: 0, total: 0 });
    const bad = await api('GET', '/api/admin/payments?status=lost', { token: owner });
    expect(bad.status).toBe(400);
    expect((await api('GET', '/api/admin/payments?limit=101', { token: owner })).status).toBe(400);

    // The customer sees only their own.
    const own = await api('GET', '/api/payments?limit=100', { token: customer.token });
    expect(own.body.total).toBe(3);
    const stranger = await signedInUser();
    expect((await api('GET', `/api/payments/${first}`, { token: stranger.token })).status).toBe(404);
    expect((await api('GET', '/api/payments/not-a-session', { token: stranger.token })).status).toBe(400);
  });
});

describe('payment figures in analytics', () => {
  it('counts the paid top-ups of the period, their amount, refunds, owed amounts and disputes', async () => {
    const now = Date.UTC(2003, 5, 10, 12);
    const userId = newId();
    await db()
      .insert(users)
      .values({
        id: userId,
        username: `pf${Date.now().toString(36)}`,
        email: `pf${Date.now()}@example.com`,
        createdAt: new Date(Date.UTC(2001, 0, 1)),
      })
      .run();
    const row = (at: number, extra: Partial<typeof payments.$inferInsert>) => ({
      id: `cs_test_${newId()}`,
      userId,
      amountCents: 1000,
      createdAt: new Date(at),
      ...extra,
    });
    await db()
      .insert(payments)
      .values([
        row(now - 3600_000, { status: 'paid', paidAt: new Date(now) }),
        row(now - 2 * 86400_000, {
          status: 'refunded',
          amountCents: 2500,
          paidAt: new Date(now),
          refundedCents: 2500,
          refundOwedCents: 700,
          disputeId: 'dp_1',
          disputedAt: new Date(now),
        }),
        row(now - 3600_000, { status: 'pending' }),
        // Before the period.
        row(now - 10 * 86400_000, { status: 'paid', paidAt: new Date(now) }),
      ])
      .run();
    const week = await systemAnalytics(db(), 7, now);
    expect(week.payments).toEqual({ topUps: 2, toppedUp: 35, refunded: 25, refundOwed: 7, disputes: 1 });
  });
});

describe('payment settings', () => {
  it('has defaults ($5 to $500), validates bounds and quick amounts, and keeps older documents valid', async () => {
    const box = await sandbox();
    const { token, user: owner } = await box.signedInUser('owner');
    expect((await box.api('GET', '/api/settings', { token })).body.payments).toEqual({
      cardTopUpsEnabled: true,
      minTopUpUsd: 5,
      maxTopUpUsd: 500,
      quickTopUpAmounts: [10, 25, 50, 100],
      firstTopUpHoldHours: 0,
    });
    const put = (payments: unknown) => box.api('PUT', '/api/settings', { token, body: { ...DEFAULT_SETTINGS, payments } });
    const changed = { cardTopUpsEnabled: false, minTopUpUsd: 2.5, maxTopUpUsd: 50, quickTopUpAmounts: [2.5, 20], firstTopUpHoldHours: 0 };
    expect((await put(changed)).body.payments).toEqual(changed);
    const audited = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, owner.id), eq(auditLog.action, 'settings.update')))
      .all();
    expect(audited.map((a) => a.details)).toEqual([{ changes: { payments: { from: DEFAULT_SETTINGS.payments, to: changed } } }]);
    for (const bad of [
      { ...changed, minTopUpUsd: 60 },
      { ...changed, quickTopUpAmounts: [100] },
      { ...changed, minTopUpUsd: 1.001 },
      { ...changed, quickTopUpAmounts: [5, 6, 7, 8, 9, 10, 11] },
      { ...changed, extra: true },
    ]) {
      const res = await put(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    const { payments: _omitted, ...older } = DEFAULT_SETTINGS;
    const res = await box.api('PUT', '/api/settings', { token, body: older });
    expect(res.status).toBe(200);
    expect(res.body.payments).toEqual(DEFAULT_SETTINGS.payments);
    expect(box.storedSettings()?.payments).toEqual(DEFAULT_SETTINGS.payments);
  });
});
