import { env } from 'cloudflare:test';
import { eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { activations, heldSlots, licenseKeys, users } from '../../../platform/db/schema';
import { DELETED_USER, effectiveStatus, keysJsonStatement, licenseKeysJson } from '../license-keys';
import { purchaseKey } from '../purchase';
import { newId } from '../../../platform/ids';
import { api, db, signedInUser } from '../../../test/helpers';
import { makeProduct } from '../../../test/shop-helpers';
import { DAY_MS } from '../../../platform/vocabulary';

const myKeys = (token: string, query: `?${string}` | '' = '') => api('GET', `/api/users/my-keys${query}`, { token });

async function buyDirect(userId: string, productId: string, days = 1) {
  const { licenseKey } = await purchaseKey(db(), {
    productId,
    days,
    buyerId: userId,
    payerId: userId,
    actorId: userId,
    generationMethod: 'purchase',
  });
  return licenseKey;
}

describe('GET /api/users/my-keys', () => {
  let customer: Awaited<ReturnType<typeof signedInUser>>;
  let product: Awaited<ReturnType<typeof makeProduct>>;
  let other: Awaited<ReturnType<typeof makeProduct>>;
  const bought: string[] = [];

  beforeAll(async () => {
    customer = await signedInUser('user', { credits: 100_000 });
    product = await makeProduct({
      name: `Photo Studio ${Date.now()}`,
      baseCreditCost: 10,
      creditsPerDay: 1,
      maxActivations: 3,
      productType: 'software',
    });
    other = await makeProduct({ name: `Racing Game ${Date.now()}`, baseCreditCost: 5, creditsPerDay: 1, productType: 'game' });
    // 12 keys, oldest first: 8 of the studio, 4 of the game.
    for (let i = 0; i < 12; i++) {
      const key = await buyDirect(customer.user.id, i < 8 ? product.id : other.id, 30);
      bought.push(key._id);
      await db()
        .update(licenseKeys)
        .set({ createdAt: new Date(Date.now() - (12 - i) * 60_000) })
        .where(eq(licenseKeys.id, key._id));
    }
  });

  it('pages by 10, newest first, with totalPages and total', async () => {
    const first = await myKeys(customer.token);
    expect(first.status).toBe(200);
    expect(first.body.totalPages).toBe(2);
    expect(first.body.total).toBe(12);
    expect(first.body.keys.map((k: { _id: string }) => k._id)).toEqual([...bought].reverse().slice(0, 10));
    const second = await myKeys(customer.token, '?page=2');
    expect(second.body.keys.map((k: { _id: string }) => k._id)).toEqual([...bought].reverse().slice(10));
    const small = await myKeys(customer.token, '?page=3&limit=5');
    expect(small.body).toMatchObject({ totalPages: 3, total: 12 });
    expect(small.body.keys).toHaveLength(2);
    const past = await myKeys(customer.token, '?page=9');
    expect(past.body).toMatchObject({ keys: [], totalPages: 2, total: 12 });
  });

  it('treats empty parameters as absent, as the original client sends them', async () => {
    const res = await myKeys(customer.token, '?page=1&limit=10&search=&status=');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(12);
    expect((await myKeys(customer.token, '?status=all')).body.total).toBe(12);
  });

  it('searches the key, the product name and the keyTag, in any case', async () => {
    const byName = await myKeys(customer.token, `?search=${encodeURIComponent('racing game')}`);
    expect(byName.body.total).toBe(4);
    const byTag = await myKeys(customer.token, `?search=${product.keyTag.slice(0, 6).toLowerCase()}`);
    expect(byTag.body.total).toBe(8);
    const one = byTag.body.keys[0];
    const byKey = await myKeys(customer.token, `?search=${encodeURIComponent(one.key.slice(-9))}`);
    expect(byKey.body.keys.map((k: { _id: string }) => k._id)).toEqual([one._id]);
    // Wildcards typed by a person are plain characters.
    expect((await myKeys(customer.token, '?search=%25')).body.total).toBe(0);
    expect((await myKeys(customer.token, '?search=_')).body.total).toBe(0);
  });

  it('filters by status, an expired key counting as expired before the cron marks it', async () => {
    const [lapsed, revoked] = bought.slice(0, 2);
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(licenseKeys.id, lapsed));
    await db().update(licenseKeys).set({ status: 'revoked', revokeReason: 'Chargeback' }).where(eq(licenseKeys.id, revoked));
    const used = await myKeys(customer.token, '?status=used&limit=100');
    expect(used.body.total).toBe(10);
    expect(used.body.keys.every((k: { status: string }) => k.status === 'used')).toBe(true);
    const expired = await myKeys(customer.token, '?status=expired');
    expect(expired.body.keys.map((k: { _id: string; status: string }) => [k._id, k.status])).toEqual([[lapsed, 'expired']]);
    const revokedList = await myKeys(customer.token, '?status=revoked');
    expect(revokedList.body.keys).toEqual([expect.objectContaining({ _id: revoked, status: 'revoked', revokeReason: 'Chargeback' })]);
    expect((await myKeys(customer.token, '?status=available')).body.total).toBe(0);
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(Date.now() + 30 * DAY_MS) })
      .where(eq(licenseKeys.id, lapsed));
    await db().update(licenseKeys).set({ status: 'used', revokeReason: null }).where(eq(licenseKeys.id, revoked));
  });

  it('answers each key with every field the card shows, activations included', async () => {
    const keyId = bought[11];
    const activatedAt = new Date(Date.now() - 3 * DAY_MS);
    const lastUsed = new Date(Date.now() - DAY_MS);
    await db()
      .insert(activations)
      .values([
        {
          id: newId(),
          keyId,
          deviceFingerprint: 'fp-aaaaaaaaaaaaaaaaaaaaaaaa',
          deviceInfo: { manufacturer: 'Acme', model: 'One' },
          activatedAt,
          lastUsed,
        },
        {
          id: newId(),
          keyId,
          deviceFingerprint: 'fp-bbbb',
          deviceInfo: null,
          activatedAt: new Date(activatedAt.getTime() + 1000),
          lastUsed: null,
        },
      ]);
    const res = await myKeys(customer.token, '?limit=1');
    const row = (await db().select().from(licenseKeys).where(eq(licenseKeys.id, keyId)).get())!;
    expect(res.body.keys[0]).toEqual({
      _id: keyId,
      key: row.key,
      status: 'used',
      product: { _id: other.id, name: other.name, keyTag: other.keyTag, productType: 'game', duration: 30, maxActivations: 1 },
      purchasedAt: row.purchasedAt!.toISOString(),
      purchasedBy: { _id: customer.user.id, username: customer.username },
      createdBy: { _id: customer.user.id, username: customer.username },
      duration: 30,
      purchasePrice: 35,
      revokeReason: null,
      // Its first device's activation (migration 0008).
      firstUsedAt: activatedAt.toISOString(),
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt!.toISOString(),
      metadata: { generationMethod: 'purchase' },
      maxActivations: 1,
      trial: false,
      entitlements: [],
      usage: null,
      expiryModel: 'time-limited',
      autoRenewDays: null,
      autoRenewFailedAt: null,
      activations: [
        {
          _id: expect.any(String) as unknown,
          activatedAt: activatedAt.toISOString(),
          lastUsed: lastUsed.toISOString(),
          deviceFingerprint: 'fp-aaaaaaaaaaaaaaaaaaaaaaaa',
          deviceInfo: { manufacturer: 'Acme', model: 'One' },
          leaseExpiresAt: null,
          borrowedUntil: null,
          replacePendingAt: null,
        },
        {
          _id: expect.any(String) as unknown,
          activatedAt: new Date(activatedAt.getTime() + 1000).toISOString(),
          lastUsed: null,
          deviceFingerprint: 'fp-bbbb',
          deviceInfo: null,
          leaseExpiresAt: null,
          borrowedUntil: null,
          replacePendingAt: null,
        },
      ],
      heldSlots: [],
    });
  });

  it('shows only the caller’s own keys', async () => {
    const stranger = await signedInUser('user');
    const res = await myKeys(stranger.token);
    expect(res.body).toEqual({ keys: [], totalPages: 0, total: 0 });
    // A reseller's key bought for a customer is the customer's, not the reseller's.
    const reseller = await signedInUser('reseller', { credits: 100 });
    await purchaseKey(db(), {
      productId: product.id,
      days: 1,
      buyerId: stranger.user.id,
      payerId: reseller.user.id,
      actorId: reseller.user.id,
      generationMethod: 'reseller',
    });
    expect((await myKeys(reseller.token)).body.total).toBe(0);
    const theirs = await myKeys(stranger.token);
    expect(theirs.body.keys[0]).toMatchObject({
      purchasedBy: { _id: stranger.user.id },
      createdBy: { _id: reseller.user.id, username: reseller.username },
    });
  });

  it.each([
    ['?page=0', 'page must be at least 1'],
    ['?page=abc', 'page must be a number'],
    ['?limit=101', 'limit must be at most 100'],
    ['?limit=0', 'limit must be at least 1'],
    ['?limit=2.5', 'limit must be a whole number'],
    ['?status=active', 'status must be one of available, used, revoked, expired'],
    [`?search=${'x'.repeat(101)}`, 'search must be at most 100 characters'],
  ] as const)('refuses %s with a 400', async (query, message) => {
    const res = await myKeys(customer.token, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
  });

  it('needs a session', async () => {
    expect((await api('GET', '/api/users/my-keys')).status).toBe(401);
  });
});

describe('the key serializer', () => {
  it('names a deleted buyer as a deleted user and keeps the reference', async () => {
    const product = await makeProduct({ baseCreditCost: 1, creditsPerDay: 0 });
    const gone = await signedInUser('user', { credits: 5 });
    const key = await buyDirect(gone.user.id, product.id);
    await db().delete(users).where(eq(users.id, gone.user.id));
    const row = (await db().select().from(licenseKeys).where(eq(licenseKeys.id, key._id)).get())!;
    const [json] = await licenseKeysJson(db(), [row]);
    expect(json.purchasedBy).toEqual({ _id: gone.user.id, username: DELETED_USER });
  });

  it('derives expired from the expiry date, leaving revoked keys revoked', () => {
    const now = Date.now();
    expect(effectiveStatus({ status: 'used', expiresAt: new Date(now - 1) }, now)).toBe('expired');
    expect(effectiveStatus({ status: 'used', expiresAt: new Date(now + 1) }, now)).toBe('used');
    expect(effectiveStatus({ status: 'available', expiresAt: null }, now)).toBe('available');
    expect(effectiveStatus({ status: 'revoked', expiresAt: new Date(now - 1) }, now)).toBe('revoked');
  });

  it('writes the same JSON in SQL as in TypeScript, for keys of every kind', async () => {
    // Lists answer with the JSON SQLite writes (keysJsonStatement); single keys, generation and the
    // CLI's shapes come from toLicenseKeyJson. Every field of every kind of key must agree.
    const product = await makeProduct({ name: `Odd "Name" \\ ü ${Date.now()}`, productType: 'game', maxActivations: 5 });
    // A metered product with entitlements and a daily refill: its keys' entitlements and uses now.
    const metered = await makeProduct({ entitlements: ['zeta', 'pro'], usageAllowance: 10, usageRefillAmount: 5, usageRefillDays: 1 });
    const buyer = await signedInUser('user');
    const gone = await signedInUser('user');
    const now = Date.now();
    const at = (ms: number) => new Date(ms);
    const kinds: Partial<typeof licenseKeys.$inferInsert>[] = [
      { status: 'available' },
      { status: 'available', expiresAt: at(now - 1) },
      { status: 'available', expiresAt: at(now) },
      { status: 'available', expiresAt: at(now + 1) },
      {
        status: 'used',
        expiresAt: at(now - DAY_MS),
        firstUsedAt: at(now - 9 * DAY_MS),
        purchasedBy: buyer.user.id,
        purchasedAt: at(now - 10 * DAY_MS + 7),
      },
      {
        status: 'used',
        expiresAt: at(now + 1),
        firstUsedAt: at(1),
        purchasedBy: gone.user.id,
        createdBy: gone.user.id,
        purchasePrice: 1234,
        generationMethod: 'purchase',
      },
      {
        status: 'revoked',
        expiresAt: at(now - DAY_MS),
        revokeReason: 'Chargeback: "fraud"\nline two\t✓',
        revokedAt: at(now),
        createdBy: buyer.user.id,
        generationMethod: 'direct',
      },
      { status: 'expired', expiresAt: at(now + DAY_MS), generationMethod: 'reseller', createdBy: 'never-existed' },
      { status: 'used', expiresAt: at(253402300799999), purchasedAt: at(999), createdAt: at(86_400_123) },
      { status: 'available', productId: metered.id },
      { status: 'used', productId: metered.id, usageRemaining: 3, usagePeriodStart: now - 3 * DAY_MS + 7, entitlements: ['alpha', 'pro'] },
      { status: 'used', productId: metered.id, usageRemaining: 8, usagePeriodStart: now - 1000 },
      { status: 'used', entitlements: ['beta'], usageRemaining: 4 },
    ];
    const rows = kinds.map((fields, i) => ({
      id: newId(),
      key: `${product.keyTag}-SQLJS-${i}-${newId()}`,
      status: 'available' as const,
      productId: product.id,
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: product.productType,
      duration: 30 + i,
      maxActivations: 1 + i,
      createdAt: at(now - i * 1000 + (i % 3)),
      ...fields,
    }));
    await db().insert(licenseKeys).values(rows.slice(0, 5));
    await db().insert(licenseKeys).values(rows.slice(5, 9));
    await db().insert(licenseKeys).values(rows.slice(9));
    await db()
      .insert(activations)
      .values([
        {
          id: newId(),
          keyId: rows[4].id,
          deviceFingerprint: 'fp-a',
          deviceInfo: { manufacturer: 'Acme', model: 'X "1"' },
          activatedAt: at(now - 5 * DAY_MS),
          lastUsed: at(now - 1),
        },
        { id: newId(), keyId: rows[4].id, deviceFingerprint: 'fp-b', deviceInfo: null, activatedAt: at(now - 6 * DAY_MS), lastUsed: null },
        { id: newId(), keyId: rows[4].id, deviceFingerprint: 'fp-c', activatedAt: at(now - 6 * DAY_MS) },
        { id: newId(), keyId: rows[5].id, deviceFingerprint: 'fp-d', deviceInfo: {}, activatedAt: at(now - 123_456) },
      ]);
    // Slots released devices hold: two live (listed soonest first), one freed (listed nowhere).
    await db()
      .insert(heldSlots)
      .values([
        { id: newId(), keyId: rows[4].id, deviceFingerprint: 'fp-late', releasedAt: at(now - 1000), freesAt: at(now + 2 * DAY_MS + 7) },
        { id: newId(), keyId: rows[4].id, deviceFingerprint: 'fp-soon', releasedAt: at(now - 2000), freesAt: at(now + 1) },
        { id: newId(), keyId: rows[4].id, deviceFingerprint: 'fp-freed', releasedAt: at(now - 3000), freesAt: at(now) },
      ]);
    await db().delete(users).where(eq(users.id, gone.user.id));

    const ids = rows.map((r) => r.id);
    const stored = await db().select().from(licenseKeys).where(inArray(licenseKeys.id, ids)).all();
    const fromTs = await licenseKeysJson(db(), stored, now);
    const [{ json }] = await keysJsonStatement(
      db(),
      db().select({ id: licenseKeys.id }).from(licenseKeys).where(inArray(licenseKeys.id, ids)),
      now,
    ).all();
    const fromSql = JSON.parse(json) as typeof fromTs;
    const byCreation = [...fromTs].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (b._id < a._id ? -1 : 1));
    expect(fromSql.map((k) => k._id)).toEqual(byCreation.map((k) => k._id));
    expect(fromSql).toEqual(byCreation);
    // The kinds really differ where they should: each status, a deleted buyer, devices in order.
    expect(new Set(fromSql.map((k) => k.status))).toEqual(new Set(['available', 'used', 'revoked', 'expired']));
    expect(fromSql.find((k) => k._id === rows[5].id)?.purchasedBy).toEqual({ _id: gone.user.id, username: DELETED_USER });
    const devices = fromSql.find((k) => k._id === rows[4].id)!.activations;
    expect(devices.map((a) => a.deviceFingerprint).sort()).toEqual(['fp-a', 'fp-b', 'fp-c']);
    // Oldest first, and two activated at the same moment in the order of their ids.
    expect(devices.map((a) => a.activatedAt)).toEqual(devices.map((a) => a.activatedAt).sort());
    expect(devices[2].deviceFingerprint).toBe('fp-a');
    expect(devices[0]._id < devices[1]._id).toBe(true);
    expect(fromSql.find((k) => k._id === rows[4].id)!.heldSlots.map((h) => h.deviceFingerprint)).toEqual(['fp-soon', 'fp-late']);
    // Entitlements merged and sorted; uses as stored, refilled when due, from the allowance before any use.
    const of = (i: number) => fromSql.find((k) => k._id === rows[i].id)!;
    expect(of(9)).toMatchObject({ entitlements: ['pro', 'zeta'], usage: { allowance: 10, remaining: 10, nextRefillAt: null } });
    expect(of(10)).toMatchObject({
      entitlements: ['alpha', 'pro', 'zeta'],
      usage: { remaining: 5, refillAmount: 5, refillDays: 1, nextRefillAt: new Date(now + 7).toISOString() },
    });
    expect(of(11).usage).toMatchObject({ remaining: 8, nextRefillAt: new Date(now - 1000 + DAY_MS).toISOString() });
    expect(of(12)).toMatchObject({ entitlements: ['beta'], usage: null });
  });

  it('loads relations for pages larger than D1’s parameter limit', async () => {
    // 120 keys with 120 buyers and 120 activations: beyond 100 bound parameters in one IN list.
    const product = await makeProduct();
    const now = new Date();
    const rows = Array.from({ length: 120 }, (_, i) => ({
      id: newId(),
      key: `${product.keyTag}-BULK-${i}-${newId()}`,
      status: 'available' as const,
      productId: product.id,
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: product.productType,
      duration: 1,
      maxActivations: 1,
      purchasedBy: `buyer-${i}`,
      createdAt: now,
    }));
    for (let i = 0; i < rows.length; i += 5)
      await db()
        .insert(licenseKeys)
        .values(rows.slice(i, i + 5));
    for (let i = 0; i < rows.length; i += 20) {
      await db()
        .insert(activations)
        .values(rows.slice(i, i + 20).map((r) => ({ id: newId(), keyId: r.id, deviceFingerprint: `fp-${r.id}`, activatedAt: now })));
    }
    const stored = await db().select().from(licenseKeys).where(eq(licenseKeys.productId, product.id)).all();
    const json = await licenseKeysJson(db(), stored);
    expect(json).toHaveLength(120);
    expect(json.every((k) => k.activations.length === 1 && k.activations[0].deviceFingerprint === `fp-${k._id}`)).toBe(true);
    expect(json.every((k) => k.purchasedBy?.username === DELETED_USER)).toBe(true);
  });
});

describe('GET /api/users/stats for a customer', () => {
  it('counts the customer’s keys, spend and keys about to expire', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 1000 });
    await buyDirect(user.id, product.id, 3);
    await buyDirect(user.id, product.id, 30);
    const lapsed = await buyDirect(user.id, product.id, 1);
    await db().update(licenseKeys).set({ status: 'expired' }).where(eq(licenseKeys.id, lapsed._id));
    const res = await api('GET', '/api/users/stats', { token });
    const activeProducts = await env.DB.prepare('SELECT count(*) AS n FROM products WHERE is_active = 1').first<{ n: number }>();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      totalKeys: 3,
      availableKeys: 0,
      usedKeys: 2,
      expiredKeys: 1,
      revokedKeys: 0,
      totalProducts: activeProducts!.n,
      expiringSoonKeys: 1,
      creditsSpent: 13 + 40 + 11,
    });
  });
});
