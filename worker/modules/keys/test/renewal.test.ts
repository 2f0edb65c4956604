// Renewing the same key (issue 43): by its customer, a reseller and the owner; exact under
// concurrency, with and without an Idempotency-Key; and the cron's auto-renewal, once per period.
import { and, eq } from 'drizzle-orm';
import { env } from 'cloudflare:test';
import { describe, expect, inject, it } from 'vitest';
import { auditLog, keyRenewals, ledger, licenseKeys, mails, resellerTiers, users, webhookEndpoints } from '../../../platform/db/schema';
import { DAY_MS } from '../../../platform/vocabulary';
import { api, db, signedInUser, TEST_PASSWORD, uniqueName, unreconciledUsers } from '../../../test/helpers';
import { makeProduct, productRow, uniqueTag, userRow } from '../../../test/shop-helpers';
import { sandbox } from '../../../test/sandbox';
import { DEFAULT_RENEWAL_SETTINGS } from '../../settings/schemas';
import { autoRenewKeys } from '../auto-renew';
import { expireKeys } from '../key-lifecycle';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { newId } from '../../../platform/ids';

const mailsOf = (userId: string) => db().select().from(mails).where(eq(mails.userId, userId)).all();

const renew = (token: string, id: string, body: unknown, headers?: Record<string, string>) =>
  api('POST', `/api/users/my-keys/${id}/renew`, { token, body, headers });
const keyRow = (id: string) => db().select().from(licenseKeys).where(eq(licenseKeys.id, id)).get();
const renewalsOf = (keyId: string) => db().select().from(keyRenewals).where(eq(keyRenewals.keyId, keyId)).all();
const renewalLedger = (keyId: string) =>
  db()
    .select()
    .from(ledger)
    .where(and(eq(ledger.reference, keyId), eq(ledger.kind, 'renewal')))
    .all();

/** A customer with a key of a product (100 + 10/day) bought through the API, and what is left of their credits. */
async function customerWithKey(credits = 10_000, productOverrides: Record<string, unknown> = {}, days = 30) {
  const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10, minDays: 1, maxDays: 365, ...productOverrides });
  const customer = await signedInUser('user', { credits });
  const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: days } });
  expect(bought.status).toBe(201);
  return { product, ...customer, keyId: bought.body.licenseKey._id, key: bought.body.licenseKey.key };
}

describe('POST /api/users/my-keys/:id/renew', () => {
  it('renews the same key from its expiry: one debit, a ledger row naming the key, history, and the next validation says so', async () => {
    const { user, token, keyId, key, product } = await customerWithKey();
    const fp = `device-${uniqueTag()}`;
    expect((await api('POST', '/api/v1/licenses/activate', { body: { key, deviceFingerprint: fp } })).body.code).toBe('VALID');
    const before = (await keyRow(keyId))!;
    const res = await renew(token, keyId, { days: 90 });
    expect(res.status).toBe(200);
    const price = 100 + 90 * 10;
    const newExpiry = before.expiresAt!.getTime() + 90 * DAY_MS;
    expect(res.body).toMatchObject({
      renewal: {
        licenseKeyId: keyId,
        key,
        product: product.name,
        source: 'customer',
        days: 90,
        credits: price,
        previousExpiresAt: before.expiresAt!.toISOString(),
        expiresAt: new Date(newExpiry).toISOString(),
      },
      remainingCredits: 10_000 - 400 - price,
    });
    const after = (await keyRow(keyId))!;
    expect(after).toMatchObject({ key, status: 'used', autoRenewFailedAt: null });
    expect(after.expiresAt!.getTime()).toBe(newExpiry);
    expect((await userRow(user.id))!.credits).toBe(10_000 - 400 - price);
    expect(await renewalLedger(keyId)).toEqual([
      expect.objectContaining({ userId: user.id, actorId: user.id, creditsDelta: -price, reference: keyId }),
    ]);
    // The product's revenue counts the renewal (trigger ledger_renewal_counts_on_product); it sold one key.
    expect(await productRow(product.id)).toMatchObject({ totalSold: 1, revenue: 400 + price });
    // The same device validates the same value with the later expiry, and its offline token says the model.
    const valid = await api('POST', '/api/v1/licenses/validate', { body: { key, deviceFingerprint: fp } });
    expect(valid.body).toMatchObject({
      valid: true,
      code: 'VALID',
      license: { expiresAt: new Date(newExpiry).toISOString(), expiryModel: 'time-limited' },
    });
    const claims = JSON.parse(atob(valid.body.license!.token!.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ model: 'time-limited', lexp: Math.floor(newExpiry / 1000) });
    const history = await api('GET', `/api/users/my-keys/${keyId}/history`, { token });
    expect(history.body.events[0]).toMatchObject({
      kind: 'renewed',
      by: 'customer',
      days: 90,
      price,
      expiresAt: new Date(newExpiry).toISOString(),
    });
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('counts from now for a key that has expired (within its grace period and after it, marked by the cron or not)', async () => {
    const { token, keyId } = await customerWithKey();
    const past = Date.now() - 5 * DAY_MS;
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(past), status: 'expired' })
      .where(eq(licenseKeys.id, keyId));
    const before = Date.now();
    const res = await renew(token, keyId, { days: 10 });
    expect(res.status).toBe(200);
    const after = (await keyRow(keyId))!;
    expect(after.status).toBe('used');
    expect(after.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 10 * DAY_MS);
    expect(after.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 10 * DAY_MS);
    expect(res.body.renewal.previousExpiresAt).toBe(new Date(past).toISOString());
  });

  it('refuses a revoked key, another customer’s key, days the product does not sell and a short balance, changing nothing', async () => {
    const { user, token, keyId } = await customerWithKey(600);
    const other = await signedInUser('user', { credits: 10_000 });
    expect((await renew(other.token, keyId, { days: 10 })).status).toBe(404);
    const tooLong = await renew(token, keyId, { days: 366 });
    expect(tooLong).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
    const short = await renew(token, keyId, { days: 30 });
    expect(short.status).toBe(402);
    expect(short.body).toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      details: { requiredCredits: 400, availableCredits: 200, baseCost: 100, durationCost: 300, days: 30 },
    });
    expect((await renew(token, keyId, { days: 0 })).status).toBe(400);
    await db().update(licenseKeys).set({ status: 'revoked', revokedAt: new Date() }).where(eq(licenseKeys.id, keyId));
    const revoked = await renew(token, keyId, { days: 1 });
    expect(revoked).toMatchObject({ status: 409, body: { code: 'KEY_NOT_RENEWABLE' } });
    expect((await userRow(user.id))!.credits).toBe(200);
    expect(await renewalsOf(keyId)).toEqual([]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('debits once for 20 concurrent renewals with one Idempotency-Key, and answers each with the first answer', async () => {
    const { user, token, keyId } = await customerWithKey(5_000);
    const before = (await keyRow(keyId))!.expiresAt!.getTime();
    const headers = { 'Idempotency-Key': `renew-${uniqueTag()}` };
    const results = await Promise.all(Array.from({ length: 20 }, () => renew(token, keyId, { days: 7 }, headers)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect((await keyRow(keyId))!.expiresAt!.getTime()).toBe(before + 7 * DAY_MS);
    expect((await userRow(user.id))!.credits).toBe(5_000 - 400 - 170);
    expect(await renewalLedger(keyId)).toHaveLength(1);
    expect(await renewalsOf(keyId)).toHaveLength(1);
    // The same key with another request is refused.
    expect((await renew(token, keyId, { days: 8 }, headers)).status).toBe(409);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('extends 20 times for 20 concurrent renewals with different keys, and the ledger reconciles', async () => {
    const { user, token, keyId } = await customerWithKey(10_000);
    const before = (await keyRow(keyId))!.expiresAt!.getTime();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => renew(token, keyId, { days: 3 }, { 'Idempotency-Key': `renew-${i}-${uniqueTag()}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect((await keyRow(keyId))!.expiresAt!.getTime()).toBe(before + 20 * 3 * DAY_MS);
    // Each counted from the expiry the one before it left: 20 distinct steps, none lost.
    const expiries = results.map((r) => Date.parse(r.body.renewal.expiresAt)).sort((a, b) => a - b);
    expect(expiries).toEqual(Array.from({ length: 20 }, (_, i) => before + (i + 1) * 3 * DAY_MS));
    expect((await userRow(user.id))!.credits).toBe(10_000 - 400 - 20 * 130);
    expect(await renewalLedger(keyId)).toHaveLength(20);
    expect(new Set(results.map((r) => r.body.remainingCredits)).size).toBe(20);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('pays a referred customer’s reseller the commission on the renewal, as on the purchase', async () => {
    const tierId = newId();
    await db()
      .insert(resellerTiers)
      .values({ id: tierId, name: `Tier ${uniqueTag()}`, commissionPercent: 10, createdAt: new Date() });
    const reseller = await signedInUser('reseller');
    await db().update(users).set({ resellerTierId: tierId }).where(eq(users.id, reseller.user.id));
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10 });
    const customer = await signedInUser('user', { credits: 1_000 });
    await db().update(users).set({ resellerId: reseller.user.id }).where(eq(users.id, customer.user.id));
    const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 10 } });
    const res = await renew(customer.token, bought.body.licenseKey._id, { days: 20 });
    expect(res.status).toBe(200);
    // 10% of 200 (purchase) and of 300 (renewal).
    expect((await userRow(reseller.user.id))!.credits).toBe(20 + 30);
    expect(await unreconciledUsers()).toEqual([]);
  });
});

describe('POST /api/admin/keys/:id/renew', () => {
  it('lets a reseller renew a key they bought for a customer at their price, and nobody else’s', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10 });
    const reseller = await signedInUser('reseller', { credits: 5_000 });
    const customer = await signedInUser('user');
    const bought = await api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, {
      token: reseller.token,
      body: { duration: 10, bypassBalance: false, useResellerCredits: true },
    });
    expect(bought.status).toBe(201);
    const keyId = bought.body.licenseKey._id;
    const spent = 5_000 - bought.body.resellerCredits;
    const res = await api('POST', `/api/admin/keys/${keyId}/renew`, { token: reseller.token, body: { days: 10 } });
    expect(res.status).toBe(200);
    // The reseller price of the same days, again.
    expect(res.body).toMatchObject({ renewal: { source: 'reseller', credits: spent }, remainingCredits: 5_000 - 2 * spent });
    const other = await signedInUser('reseller', { credits: 5_000 });
    expect((await api('POST', `/api/admin/keys/${keyId}/renew`, { token: other.token, body: { days: 10 } })).status).toBe(404);
    const charge = await api('POST', `/api/admin/keys/${keyId}/renew`, {
      token: reseller.token,
      body: { days: 10, chargeTo: customer.user.id },
    });
    expect(charge.status).toBe(403);
    expect(
      await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.targetId, keyId), eq(auditLog.action, 'key.renew')))
        .all(),
    ).toHaveLength(1);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('lets the owner extend any key free, or charge an account the list price, audited', async () => {
    const owner = await signedInUser('owner');
    const { user, keyId } = await customerWithKey(1_000);
    const before = (await keyRow(keyId))!.expiresAt!.getTime();
    const free = await api('POST', `/api/admin/keys/${keyId}/renew`, { token: owner.token, body: { days: 500 } });
    expect(free.status).toBe(200);
    expect(free.body).toMatchObject({ renewal: { source: 'owner', credits: 0, days: 500 }, remainingCredits: null });
    const charged = await api('POST', `/api/admin/keys/${keyId}/renew`, { token: owner.token, body: { days: 10, chargeTo: user.id } });
    expect(charged.body).toMatchObject({ renewal: { source: 'owner', credits: 200 }, remainingCredits: 1_000 - 400 - 200 });
    expect((await keyRow(keyId))!.expiresAt!.getTime()).toBe(before + 510 * DAY_MS);
    const audits = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, keyId), eq(auditLog.action, 'key.renew')))
      .all();
    expect(audits.map((a) => a.details)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ paidBy: 'nobody', cost: 0 }),
        expect.objectContaining({ paidBy: 'account', cost: 200 }),
      ]),
    );
    // A customer may not use the admin route.
    expect(
      (await api('POST', `/api/admin/keys/${keyId}/renew`, { token: (await signedInUser('user')).token, body: { days: 1 } })).status,
    ).toBe(403);
    expect(await unreconciledUsers()).toEqual([]);
  });
});

describe('auto-renewal', () => {
  const settings = { renewals: DEFAULT_RENEWAL_SETTINGS, emailNotificationsEnabled: true };

  it('is switched on and off by the key’s customer, within the product’s days, and not when the owner turned it off', async () => {
    const { token, keyId } = await customerWithKey();
    const on = await api('PUT', `/api/users/my-keys/${keyId}/auto-renew`, { token, body: { days: 30 } });
    expect(on.body).toMatchObject({ success: true, autoRenewDays: 30, autoRenewFailedAt: null });
    expect((await keyRow(keyId))!.autoRenewDays).toBe(30);
    expect((await api('PUT', `/api/users/my-keys/${keyId}/auto-renew`, { token, body: { days: 400 } })).status).toBe(400);
    const other = await signedInUser('user');
    expect((await api('PUT', `/api/users/my-keys/${keyId}/auto-renew`, { token: other.token, body: { days: 30 } })).status).toBe(404);
    const mine = await api('GET', '/api/users/my-keys', { token });
    expect(mine.body.keys[0]).toMatchObject({ _id: keyId, autoRenewDays: 30, expiryModel: 'time-limited', autoRenewFailedAt: null });
    expect((await api('PUT', `/api/users/my-keys/${keyId}/auto-renew`, { token, body: { days: null } })).body.autoRenewDays).toBe(null);

    const box = await sandbox({ settings: { renewals: { autoRenewEnabled: false, autoRenewDaysBefore: 3 } } });
    const off = await box.api('PUT', `/api/users/my-keys/${keyId}/auto-renew`, { token, body: { days: 30 } });
    expect(off).toMatchObject({ status: 403, body: { code: 'AUTO_RENEW_DISABLED' } });
  });

  it('renews a key once when two cron runs overlap, a few days before its expiry', async () => {
    const { user, keyId } = await customerWithKey(10_000);
    await db().update(licenseKeys).set({ autoRenewDays: 30 }).where(eq(licenseKeys.id, keyId));
    const expiry = (await keyRow(keyId))!.expiresAt!.getTime();
    // Too early: more than autoRenewDaysBefore ahead.
    await autoRenewKeys(db(), settings, expiry - 4 * DAY_MS);
    expect(await renewalsOf(keyId)).toEqual([]);
    const now = expiry - 2 * DAY_MS;
    await Promise.all([autoRenewKeys(db(), settings, now), autoRenewKeys(db(), settings, now), autoRenewKeys(db(), settings, now + 1)]);
    const rows = await renewalsOf(keyId);
    expect(rows).toEqual([expect.objectContaining({ source: 'auto', outcome: 'renewed', days: 30, credits: 400, actorId: user.id })]);
    expect((await keyRow(keyId))!.expiresAt!.getTime()).toBe(expiry + 30 * DAY_MS);
    // One receipt for the one renewal (mail issue 44).
    const receipts = (await mailsOf(user.id)).filter((m) => m.kind === 'receipt');
    expect(receipts).toHaveLength(1);
    expect(receipts[0].data).toMatchObject({ action: 'renewal', keyId, days: 30, cost: 400 });
    expect((await userRow(user.id))!.credits).toBe(10_000 - 400 - 400);
    // The next period is another renewal.
    await autoRenewKeys(db(), settings, expiry + 28 * DAY_MS);
    expect(await renewalsOf(keyId)).toHaveLength(2);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('is held to one renewal per period in SQL: the same period renewed twice at once commits once', async () => {
    const { keyId } = await customerWithKey(10_000);
    await db().update(licenseKeys).set({ autoRenewDays: 5 }).where(eq(licenseKeys.id, keyId));
    const expiry = (await keyRow(keyId))!.expiresAt!.getTime();
    // Two runs that both read the key before either wrote: both try to renew from the same expiry.
    const { renewKey } = await import('../renewal');
    const q = { days: 5, baseCost: 100, durationCost: 50, total: 150 };
    const key = (await keyRow(keyId))!;
    const order = {
      keyId,
      days: 5,
      source: 'auto' as const,
      actorId: key.purchasedBy,
      payerId: key.purchasedBy,
      price: 150,
      quote: q,
      period: { expiresAt: expiry, autoRenewDays: 5 },
      now: expiry - DAY_MS,
    };
    const outcomes = await Promise.allSettled([renewKey(db(), order), renewKey(db(), order), renewKey(db(), order)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refusals = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refusals.map((o) => (o.reason as { code: string }).code)).toEqual(['CONFLICT', 'CONFLICT']);
    expect((await keyRow(keyId))!.expiresAt!.getTime()).toBe(expiry + 5 * DAY_MS);
    expect(await renewalLedger(keyId)).toHaveLength(1);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('lets the key run out when the balance does not cover it, and tells its customer once', async () => {
    const { user, token, keyId } = await customerWithKey(400);
    await db().update(licenseKeys).set({ autoRenewDays: 30 }).where(eq(licenseKeys.id, keyId));
    const expiry = (await keyRow(keyId))!.expiresAt!.getTime();
    const now = expiry - DAY_MS;
    await Promise.all([autoRenewKeys(db(), settings, now), autoRenewKeys(db(), settings, now)]);
    await autoRenewKeys(db(), settings, now + 60_000);
    expect(await renewalsOf(keyId)).toEqual([
      expect.objectContaining({ source: 'auto', outcome: 'failed', credits: 400, toExpiresAt: null }),
    ]);
    const key = (await keyRow(keyId))!;
    expect(key.expiresAt!.getTime()).toBe(expiry);
    expect(key.autoRenewFailedAt!.getTime()).toBe(now);
    const mine = await api('GET', '/api/users/my-keys', { token });
    expect(mine.body.keys[0]).toMatchObject({ _id: keyId, autoRenewFailedAt: new Date(now).toISOString() });
    const history = await api('GET', `/api/users/my-keys/${keyId}/history`, { token });
    expect(history.body.events[0]).toMatchObject({ kind: 'auto_renew_failed', by: 'auto', days: 30, price: 400 });
    // The customer is mailed once, however many runs saw it.
    const told = (await mailsOf(user.id)).filter((m) => m.kind === 'auto_renew_failed');
    expect(told).toHaveLength(1);
    expect(told[0].data).toMatchObject({ keyId, cost: 400, credits: 0 });
    // It runs out as it would have.
    await expireKeys(db(), DEFAULT_SETTINGS, expiry);
    expect((await keyRow(keyId))!.status).toBe('expired');
    expect((await userRow(user.id))!.credits).toBe(0);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('does nothing when the owner turned it off for the shop', async () => {
    const { keyId } = await customerWithKey(10_000);
    await db().update(licenseKeys).set({ autoRenewDays: 30 }).where(eq(licenseKeys.id, keyId));
    const expiry = (await keyRow(keyId))!.expiresAt!.getTime();
    const outcome = await autoRenewKeys(
      db(),
      { renewals: { autoRenewEnabled: false, autoRenewDaysBefore: 3 }, emailNotificationsEnabled: true },
      expiry - DAY_MS,
    );
    expect(outcome).toEqual({ renewed: 0, failed: 0 });
    expect(await renewalsOf(keyId)).toEqual([]);
  });
});

describe('the webhooks of renewals', () => {
  it('sends license.renewed with the renewal, and license.auto_renew_failed when the credits fall short', async () => {
    const owner = await signedInUser('owner');
    const name = uniqueName('renewals');
    const made = await api('POST', '/api/webhooks', {
      token: owner.token,
      body: {
        url: `${inject('webhookReceiver')}/hook/${name}?mode=ok`,
        events: ['license.renewed', 'license.auto_renew_failed'],
        currentPassword: TEST_PASSWORD,
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    try {
      const { token, keyId, key } = await customerWithKey(600);
      expect((await renew(token, keyId, { days: 5 })).status).toBe(200);
      await db().update(licenseKeys).set({ autoRenewDays: 30 }).where(eq(licenseKeys.id, keyId));
      const expiry = (await keyRow(keyId))!.expiresAt!.getTime();
      // 600 - 400 - 150 = 50 credits left: short of the 400 a 30-day renewal costs.
      await autoRenewKeys(db(), { renewals: DEFAULT_RENEWAL_SETTINGS, emailNotificationsEnabled: false }, expiry - DAY_MS, env);
      const events = await receivedEvents(name, 2);
      const renewed = events.find((e) => e.type === 'license.renewed')!;
      expect(renewed.data).toMatchObject({
        licenseKey: { _id: keyId, key },
        renewal: { source: 'customer', outcome: 'renewed', days: 5, credits: 150 },
      });
      const failed = events.find((e) => e.type === 'license.auto_renew_failed')!;
      expect(failed.data).toMatchObject({
        licenseKey: { _id: keyId },
        renewal: { source: 'auto', outcome: 'failed', days: 30, expiresAt: null },
      });
    } finally {
      await db().delete(webhookEndpoints).where(eq(webhookEndpoints.id, made.body.id));
    }
  });
});

type HookEvent = { type: string; data: Record<string, unknown> };

/** What the test receiver got at hook `name`, waiting (up to 8 s) for `count` events. */
async function receivedEvents(name: string, count: number): Promise<HookEvent[]> {
  const until = Date.now() + 8_000;
  for (;;) {
    const got = await (await fetch(`${inject('webhookReceiver')}/received/${name}`)).json<Array<{ body: string }>>();
    if (got.length >= count || Date.now() > until) return got.map((r) => JSON.parse(r.body) as HookEvent);
    await new Promise((r) => setTimeout(r, 100));
  }
}
