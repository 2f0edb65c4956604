import { env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../../platform/db/client';
import { ledger, licenseKeys, products, users } from '../../../platform/db/schema';
import { generateLicenseKey, KEY_ALPHABET, KEY_RANDOM_BITS } from '../license-keys';
import { purchaseKey } from '../purchase';
import { failedConstraint } from '../../../platform/db/errors';
import { newId } from '../../../platform/ids';
import { api, db, interceptedD1, signedInUser, unreconciledUsers } from '../../../test/helpers';
import { keysBoughtBy, makeProduct, productRow, uniqueTag, userRow } from '../../../test/shop-helpers';
import { DAY_MS } from '../../../platform/vocabulary';

const buy = (token: string, body: unknown, headers?: Record<string, string>) => api('POST', '/api/keys/purchase', { token, body, headers });
const ledgerOf = (userId: string) => db().select().from(ledger).where(eq(ledger.userId, userId)).all();

describe('POST /api/keys/purchase', () => {
  it('sells a key: debit, key, ledger row and product stats together', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10, maxActivations: 2, productType: 'service' });
    const { user, token } = await signedInUser('user', { credits: 1000 });
    const before = Date.now();
    const res = await buy(token, { productId: product.id, duration: 30 });
    expect(res.status).toBe(201);
    const { licenseKey, remainingCredits } = res.body;
    expect(remainingCredits).toBe(600);
    expect(licenseKey).toMatchObject({ product: product.name, productId: product.id, duration: 30, cost: 400 });
    expect(licenseKey.key).toMatch(new RegExp(`^${product.keyTag}(-[${KEY_ALPHABET}]{5}){4}$`));
    const expiry = new Date(licenseKey.expiryDate!).getTime();
    expect(expiry).toBeGreaterThanOrEqual(before + 30 * DAY_MS);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);

    expect((await userRow(user.id))!.credits).toBe(600);
    const [key] = await keysBoughtBy(user.id);
    expect(key).toMatchObject({
      id: licenseKey._id,
      key: licenseKey.key,
      status: 'used',
      productId: product.id,
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: 'service',
      duration: 30,
      maxActivations: 2,
      purchasedBy: user.id,
      createdBy: user.id,
      purchasePrice: 400,
      generationMethod: 'purchase',
      firstUsedAt: null,
      revokeReason: null,
    });
    expect(key.expiresAt!.toISOString()).toBe(licenseKey.expiryDate);
    expect(key.purchasedAt!.getTime() + 30 * DAY_MS).toBe(expiry);
    const rows = (await ledgerOf(user.id)).filter((l) => l.kind === 'purchase');
    expect(rows).toEqual([
      expect.objectContaining({ userId: user.id, actorId: user.id, creditsDelta: -400, usdCentsDelta: 0, reference: key.id }),
    ]);
    expect(await productRow(product.id)).toMatchObject({ totalGenerated: 1, totalSold: 1, revenue: 400 });
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('lets every role buy with its own credits', async () => {
    const product = await makeProduct({ baseCreditCost: 5, creditsPerDay: 1 });
    for (const role of ['reseller', 'owner'] as const) {
      const { token } = await signedInUser(role, { credits: 6 });
      const res = await buy(token, { productId: product.id, duration: 1 });
      expect(res.status).toBe(201);
      expect(res.body.remainingCredits).toBe(0);
    }
  });

  it('computes the price itself, whatever the body says', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10 });
    const { user, token } = await signedInUser('user', { credits: 500 });
    const res = await buy(token, { productId: product.id, duration: 10, cost: 1, price: 1, totalCost: 1 });
    expect(res.status).toBe(201);
    expect(res.body.licenseKey.cost).toBe(200);
    expect((await userRow(user.id))!.credits).toBe(300);
  });

  it('sells the bounds of the day range', async () => {
    const product = await makeProduct({ baseCreditCost: 0, creditsPerDay: 1, minDays: 3, maxDays: 9 });
    const { token } = await signedInUser('user', { credits: 100 });
    expect((await buy(token, { productId: product.id, duration: 3 })).body.licenseKey.cost).toBe(3);
    expect((await buy(token, { productId: product.id, duration: 9 })).body.licenseKey.cost).toBe(9);
  });

  it.each([
    ['a duration below minDays', { duration: 2 }, 'Duration must be a whole number of days between 3 and 9 for'],
    ['a duration above maxDays', { duration: 10 }, 'Duration must be a whole number of days between 3 and 9 for'],
    ['a fractional duration', { duration: 4.5 }, 'Duration must be a whole number of days'],
    ['a duration as text', { duration: '5' }, 'Duration must be a number of days'],
    ['no duration', { duration: undefined }, 'Duration must be a number of days'],
    ['a zero duration', { duration: 0 }, 'Duration must be at least 1 day'],
    ['no product', { productId: undefined }, 'Product is required'],
    ['a blank product', { productId: '  ' }, 'Product is required'],
    ['a product id that is not text', { productId: 42 }, 'Product is required'],
  ])('refuses %s with a 400 and changes nothing', async (_, overrides, message) => {
    const product = await makeProduct({ baseCreditCost: 0, creditsPerDay: 1, minDays: 3, maxDays: 9 });
    const { user, token } = await signedInUser('user', { credits: 100 });
    const res = await buy(token, { productId: product.id, duration: 5, ...overrides });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.message?.startsWith(message)).toBe(true);
    expect((await userRow(user.id))!.credits).toBe(100);
    expect(await keysBoughtBy(user.id)).toEqual([]);
  });

  it('does not sell inactive or unknown products', async () => {
    const inactive = await makeProduct({ isActive: false });
    const { user, token } = await signedInUser('user', { credits: 10_000 });
    for (const productId of [inactive.id, '000000000000000000000000']) {
      const res = await buy(token, { productId, duration: 1 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Product not found' });
    }
    expect((await userRow(user.id))!.credits).toBe(10_000);
    expect(await keysBoughtBy(user.id)).toEqual([]);
    expect(await productRow(inactive.id)).toMatchObject({ totalGenerated: 0, totalSold: 0, revenue: 0 });
  });

  it('refuses a purchase beyond the credits with a 402 and the breakdown, changing nothing', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10 });
    const { user, token } = await signedInUser('user', { credits: 399 });
    const res = await buy(token, { productId: product.id, duration: 30 });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({
      code: 'INSUFFICIENT_CREDITS',
      message: 'Insufficient credits: this key costs 400 credits and 399 are available',
      details: { requiredCredits: 400, availableCredits: 399, baseCost: 100, durationCost: 300, days: 30 },
    });
    expect((await userRow(user.id))!.credits).toBe(399);
    expect(await keysBoughtBy(user.id)).toEqual([]);
    expect(await productRow(product.id)).toMatchObject({ totalSold: 0, revenue: 0 });
  });

  it('needs a session', async () => {
    const product = await makeProduct();
    expect((await api('POST', '/api/keys/purchase', { body: { productId: product.id, duration: 1 } })).status).toBe(401);
  });
});

describe('concurrent purchases', () => {
  it('sell exactly as many keys as the credits pay for, never more', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10 });
    const n = 5;
    const { user, token } = await signedInUser('user', { credits: n * 110 });
    const results = await Promise.all(Array.from({ length: 4 * n }, () => buy(token, { productId: product.id, duration: 1 })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(n);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(3 * n);
    expect(refused.every((r) => r.status === 402 && r.body.code === 'INSUFFICIENT_CREDITS')).toBe(true);
    expect((await userRow(user.id))!.credits).toBe(0);
    expect(await keysBoughtBy(user.id)).toHaveLength(n);
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.body.remainingCredits))).toEqual(new Set([0, 110, 220, 330, 440]));
    expect(await productRow(product.id)).toMatchObject({ totalGenerated: n, totalSold: n, revenue: n * 110 });
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('keep the credits exact when one account buys several products at once', async () => {
    const [a, b] = await Promise.all([
      makeProduct({ baseCreditCost: 30, creditsPerDay: 0 }),
      makeProduct({ baseCreditCost: 70, creditsPerDay: 0 }),
    ]);
    const { user, token } = await signedInUser('user', { credits: 300 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => buy(token, { productId: i % 2 ? a.id : b.id, duration: 1 })));
    const sold = results.filter((r) => r.status === 201);
    const spent = sold.reduce((sum, r) => sum + r.body.licenseKey.cost, 0);
    const row = await userRow(user.id);
    expect(row!.credits).toBe(300 - spent);
    // Nothing was refused that the credits left could still pay for.
    results.forEach((r, i) => {
      if (r.status !== 201) expect(row!.credits).toBeLessThan(i % 2 ? 30 : 70);
    });
    expect(await keysBoughtBy(user.id)).toHaveLength(sold.length);
    expect(await unreconciledUsers()).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  it('answers a retry with the first answer and charges once', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 100 });
    const headers = { 'Idempotency-Key': `buy-${uniqueTag()}` };
    const first = await buy(token, { productId: product.id, duration: 5 }, headers);
    const retry = await buy(token, { productId: product.id, duration: 5 }, headers);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(first.body.remainingCredits).toBe(85);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await userRow(user.id))!.credits).toBe(85);
    expect(await keysBoughtBy(user.id)).toHaveLength(1);
    expect(await productRow(product.id)).toMatchObject({ totalSold: 1, revenue: 15 });
    // A new key is a new purchase.
    const second = await buy(token, { productId: product.id, duration: 5 }, { 'Idempotency-Key': `buy-${uniqueTag()}` });
    expect(second.body.remainingCredits).toBe(70);
  });

  it('reads nothing before the batch: a retry loses its batch on the stored claim and answers the first purchase', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 0 });
    const { user } = await signedInUser('user', { credits: 100 });
    const idempotency = { userId: user.id, key: `purchase:${uniqueTag()}`, fingerprint: `${product.id}:1` };
    const order = {
      productId: product.id,
      days: 1,
      buyerId: user.id,
      payerId: user.id,
      actorId: user.id,
      generationMethod: 'purchase' as const,
      idempotency,
    };
    const first = await purchaseKey(db(), order);
    const calls: string[] = [];
    const watched = interceptedD1(env.DB, {
      batch: () => calls.push('batch'),
      prepare: (text) => calls.push(text.trim().split(/\s+/)[0].toLowerCase()),
    });
    const retry = await purchaseKey(createDb(watched), order);
    expect(retry).toEqual({ ...first, replayed: true });
    // The purchase's batch first (no read of the claim before it), then the stored answer.
    expect(calls.indexOf('batch')).toBeGreaterThan(-1);
    expect(calls.slice(0, calls.indexOf('batch')).filter((c) => c === 'select')).toEqual([]);
    expect((await userRow(user.id))!.credits).toBe(90);
    expect(await keysBoughtBy(user.id)).toHaveLength(1);
  });

  it('charges once when copies of one request race', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 1000 });
    const headers = { 'Idempotency-Key': uniqueTag() };
    const results = await Promise.all(Array.from({ length: 10 }, () => buy(token, { productId: product.id, duration: 2 }, headers)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => r.body.licenseKey.key)).size).toBe(1);
    expect(results.every((r) => r.body.remainingCredits === 988)).toBe(true);
    expect((await userRow(user.id))!.credits).toBe(988);
    expect(await keysBoughtBy(user.id)).toHaveLength(1);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('lets one of many racing copies commit and replays it to the others (domain level)', async () => {
    // Called directly, the copies all look for a stored answer before any of them writes, so every
    // copy but one reaches its batch and loses on the idempotency key's primary key.
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 0 });
    const { user } = await signedInUser('user', { credits: 100 });
    const idempotency = { userId: user.id, key: `purchase:${uniqueTag()}`, fingerprint: `${product.id}:1` };
    const order = {
      productId: product.id,
      days: 1,
      buyerId: user.id,
      payerId: user.id,
      actorId: user.id,
      generationMethod: 'purchase' as const,
      idempotency,
    };
    const results = await Promise.all(Array.from({ length: 6 }, () => purchaseKey(db(), order)));
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.licenseKey.key)).size).toBe(1);
    expect(results.every((r) => r.payerCredits === 90)).toBe(true);
    expect((await userRow(user.id))!.credits).toBe(90);
    expect(await keysBoughtBy(user.id)).toHaveLength(1);
  });

  it('replays even after the product is withdrawn', async () => {
    const product = await makeProduct({ baseCreditCost: 1, creditsPerDay: 0 });
    const { token } = await signedInUser('user', { credits: 10 });
    const headers = { 'Idempotency-Key': uniqueTag() };
    const first = await buy(token, { productId: product.id, duration: 1 }, headers);
    await db().update(products).set({ isActive: false }).where(eq(products.id, product.id));
    const retry = await buy(token, { productId: product.id, duration: 1 }, headers);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
  });

  it('refuses the same key for another request, and keeps keys apart per account', async () => {
    const product = await makeProduct({ baseCreditCost: 1, creditsPerDay: 1 });
    const alice = await signedInUser('user', { credits: 50 });
    const bob = await signedInUser('user', { credits: 50 });
    const headers = { 'Idempotency-Key': uniqueTag() };
    expect((await buy(alice.token, { productId: product.id, duration: 1 }, headers)).status).toBe(201);
    const other = await buy(alice.token, { productId: product.id, duration: 2 }, headers);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      code: 'CONFLICT',
      message: 'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
    });
    expect((await userRow(alice.user.id))!.credits).toBe(48);
    const bobs = await buy(bob.token, { productId: product.id, duration: 1 }, headers);
    expect(bobs.status).toBe(201);
    expect(bobs.headers.get('idempotent-replayed')).toBeNull();
    expect((await userRow(bob.user.id))!.credits).toBe(48);
  });

  it('refuses a malformed key', async () => {
    const product = await makeProduct();
    const { user, token } = await signedInUser('user', { credits: 1000 });
    for (const key of ['has space', 'x'.repeat(256)]) {
      const res = await buy(token, { productId: product.id, duration: 1 }, { 'Idempotency-Key': key });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await userRow(user.id))!.credits).toBe(1000);
  });

  it('does not store a refusal: a retry after a top-up buys', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 0 });
    const { user, token } = await signedInUser('user', { credits: 5 });
    const headers = { 'Idempotency-Key': uniqueTag() };
    expect((await buy(token, { productId: product.id, duration: 1 }, headers)).status).toBe(402);
    await env.DB.batch([
      env.DB.prepare('UPDATE users SET credits = credits + 5 WHERE id = ?').bind(user.id),
      env.DB.prepare(
        "INSERT INTO ledger (id, user_id, kind, credits_delta, usd_cents_delta, created_at) VALUES (?, ?, 'test_top_up', 5, 0, ?)",
      ).bind(newId(), user.id, Date.now()),
    ]);
    expect((await buy(token, { productId: product.id, duration: 1 }, headers)).status).toBe(201);
  });
});

describe('purchaseKey for resellers and direct purchases', () => {
  it('charges the payer and gives the key to the buyer', async () => {
    const product = await makeProduct({ baseCreditCost: 20, creditsPerDay: 2 });
    const reseller = await signedInUser('reseller', { credits: 100 });
    const customer = await signedInUser('user', { credits: 0 });
    const result = await purchaseKey(db(), {
      productId: product.id,
      days: 5,
      buyerId: customer.user.id,
      payerId: reseller.user.id,
      actorId: reseller.user.id,
      generationMethod: 'reseller',
    });
    expect(result).toMatchObject({ payerCredits: 70, replayed: false, licenseKey: { cost: 30, duration: 5 } });
    const [key] = await keysBoughtBy(customer.user.id);
    expect(key).toMatchObject({
      purchasedBy: customer.user.id,
      createdBy: reseller.user.id,
      generationMethod: 'reseller',
      purchasePrice: 30,
    });
    expect((await userRow(customer.user.id))!.credits).toBe(0);
    expect((await userRow(reseller.user.id))!.credits).toBe(70);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('gives a key for free when nobody pays, counting it sold with no revenue', async () => {
    const product = await makeProduct({ baseCreditCost: 20, creditsPerDay: 2 });
    const owner = await signedInUser('owner');
    const customer = await signedInUser('user');
    const result = await purchaseKey(db(), {
      productId: product.id,
      days: 3,
      buyerId: customer.user.id,
      payerId: null,
      actorId: owner.user.id,
      generationMethod: 'direct',
    });
    expect(result).toMatchObject({ payerCredits: null, licenseKey: { cost: 0 } });
    const [key] = await keysBoughtBy(customer.user.id);
    expect(key).toMatchObject({ generationMethod: 'direct', purchasePrice: 0, createdBy: owner.user.id, status: 'used' });
    expect(await productRow(product.id)).toMatchObject({ totalGenerated: 1, totalSold: 1, revenue: 0 });
    expect(
      await db()
        .select()
        .from(ledger)
        .where(and(eq(ledger.kind, 'purchase'), eq(ledger.reference, key.id)))
        .all(),
    ).toEqual([]);
  });

  it('refuses a payer who is gone', async () => {
    const product = await makeProduct();
    const customer = await signedInUser('user');
    await expect(
      purchaseKey(db(), {
        productId: product.id,
        days: 1,
        buyerId: customer.user.id,
        payerId: 'nobody',
        actorId: customer.user.id,
        generationMethod: 'reseller',
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('the batch guards', () => {
  // The purchase relies on these constraints failing the whole batch; prove each is recognised.
  it('recognises the credits CHECK, the NOT NULL guards and the idempotency key', async () => {
    const { user } = await signedInUser('user', { credits: 1 });
    const catching = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );
    const overdraw = await catching(db().update(users).set({ credits: -1 }).where(eq(users.id, user.id)).run());
    expect(failedConstraint(overdraw, 'CHECK', 'users_credits_check')).toBe(true);
    const orphanLedger = await catching(
      env.DB.prepare(
        "INSERT INTO ledger (id, user_id, kind, created_at) VALUES ('x', (SELECT id FROM users WHERE id = 'none'), 'k', 0)",
      ).run(),
    );
    expect(failedConstraint(orphanLedger, 'NOT NULL', 'ledger.user_id')).toBe(true);
    const orphanKey = await catching(
      db()
        .insert(licenseKeys)
        .values({
          id: newId(),
          key: uniqueTag(),
          status: 'used',
          productId: null as unknown as string,
          productName: 'x',
          productKeyTag: 'XX',
          productType: 'other',
          duration: 1,
          maxActivations: 1,
          createdAt: new Date(),
        })
        .run(),
    );
    expect(failedConstraint(orphanKey, 'NOT NULL', 'license_keys.product_id')).toBe(true);
    const insert = () =>
      env.DB.prepare("INSERT INTO idempotency_keys (user_id, key, response, status, created_at) VALUES (?, 'k', '{}', 201, 0)")
        .bind(user.id)
        .run();
    await insert();
    expect(failedConstraint(await catching(insert()), 'UNIQUE', 'idempotency_keys')).toBe(true);
    expect((await userRow(user.id))!.credits).toBe(1);
  });
});

describe('license key strings', () => {
  it('carry the key tag and at least 80 bits from an unambiguous alphabet', () => {
    expect(KEY_RANDOM_BITS).toBeGreaterThanOrEqual(80);
    expect(KEY_ALPHABET).not.toMatch(/[01OIL]/);
    const keys = Array.from({ length: 2000 }, () => generateLicenseKey('ABC'));
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(new RegExp(`^ABC(-[${KEY_ALPHABET}]{5}){4}$`));
    // Every character of the alphabet turns up: no character is starved by the sampling.
    const seen = new Set(keys.flatMap((key) => [...key.slice('ABC-'.length).replace(/-/g, '')]));
    expect(seen.size).toBe(KEY_ALPHABET.length);
    for (const c of KEY_ALPHABET) expect(seen.has(c)).toBe(true);
  });
});

// A Worker remembers the products it has sold for a minute and skips reading them again; these
// change a product behind its back (straight in D1, as another isolate's edit would) between sales.
describe('purchases of a product changed since this Worker last sold it', () => {
  const change = (id: string, set: Partial<typeof products.$inferInsert>) =>
    db().update(products).set(set).where(eq(products.id, id)).run();

  async function soldOnce(credits: number) {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10, minDays: 1, maxDays: 60 });
    const { user, token } = await signedInUser('user', { credits });
    const first = await buy(token, { productId: product.id, duration: 10 });
    expect(first.status).toBe(201);
    expect(first.body.licenseKey.cost).toBe(200);
    return { product, user, token };
  }

  it('charges the new price and snapshots the new name', async () => {
    const { product, user, token } = await soldOnce(10_000);
    await change(product.id, { baseCreditCost: 300, creditsPerDay: 20, name: `${product.name} 2`, maxActivations: 3 });
    const res = await buy(token, { productId: product.id, duration: 10 });
    expect(res.status).toBe(201);
    expect(res.body.licenseKey).toMatchObject({ cost: 500, product: `${product.name} 2` });
    expect(res.body.remainingCredits).toBe(10_000 - 200 - 500);
    const keys = await keysBoughtBy(user.id);
    expect(keys.find((k) => k.id === res.body.licenseKey._id)).toMatchObject({
      purchasePrice: 500,
      productName: `${product.name} 2`,
      maxActivations: 3,
    });
    expect(await productRow(product.id)).toMatchObject({ totalSold: 2, revenue: 700 });
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('refuses a product withdrawn since (404) and charges nothing', async () => {
    const { product, user, token } = await soldOnce(10_000);
    await change(product.id, { isActive: false });
    const res = await buy(token, { productId: product.id, duration: 10 });
    expect(res.status).toBe(404);
    expect((await userRow(user.id))!.credits).toBe(9_800);
    expect(await keysBoughtBy(user.id)).toHaveLength(1);
  });

  it('refuses a duration the product no longer offers (400)', async () => {
    const { product, token } = await soldOnce(10_000);
    await change(product.id, { maxDays: 5 });
    const res = await buy(token, { productId: product.id, duration: 10 });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('between 1 and 5');
  });

  it('answers 402 with the new price when the payer cannot afford it, and 201 when a cut makes it affordable', async () => {
    const { product, user, token } = await soldOnce(500);
    await change(product.id, { baseCreditCost: 400 });
    const refused = await buy(token, { productId: product.id, duration: 10 });
    expect(refused.status).toBe(402);
    expect(refused.body.details).toEqual({ requiredCredits: 500, availableCredits: 300, baseCost: 400, durationCost: 100, days: 10 });
    await change(product.id, { baseCreditCost: 0, creditsPerDay: 30 });
    const bought = await buy(token, { productId: product.id, duration: 10 });
    expect(bought.status).toBe(201);
    expect(bought.body).toMatchObject({ licenseKey: { cost: 300 }, remainingCredits: 0 });
    expect((await userRow(user.id))!.credits).toBe(0);
    expect(await unreconciledUsers()).toEqual([]);
  });
});
