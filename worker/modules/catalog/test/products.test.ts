import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { quote } from '../schemas';
import { api, signedInUser } from '../../../test/helpers';
import { keysOfProduct, makeProduct, productRow, uniqueTag } from '../../../test/shop-helpers';
import { PRODUCT_TYPES, PRODUCT_TYPES as DB_PRODUCT_TYPES } from '../../../platform/vocabulary';

let owner: string;
let customer: string;
let reseller: string;
beforeAll(async () => {
  [owner, customer, reseller] = (await Promise.all([signedInUser('owner'), signedInUser('user'), signedInUser('reseller')])).map(
    (u) => u.token,
  );
});

const validBody = (overrides: Record<string, unknown> = {}) => ({
  name: `Suite ${uniqueTag()}`,
  description: 'Office suite',
  keyTag: uniqueTag(),
  baseCreditCost: 50,
  ...overrides,
});

const countByName = async (name: string) =>
  (await env.DB.prepare('SELECT count(*) AS n FROM products WHERE name = ?').bind(name).first<{ n: number }>())!.n;

describe('GET /api/products', () => {
  it('gives customers and resellers the active products, the owner all of them', async () => {
    const active = await makeProduct();
    const inactive = await makeProduct({ isActive: false });
    for (const token of [customer, reseller]) {
      const res = await api('GET', '/api/products', { token });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      const ids = res.body.map((p: { _id: string }) => p._id);
      expect(ids).toContain(active.id);
      expect(ids).not.toContain(inactive.id);
      expect(res.body.every((p: { isActive: boolean }) => p.isActive)).toBe(true);
    }
    const all = await api('GET', '/api/products', { token: owner });
    expect(all.body.map((p: { _id: string }) => p._id)).toEqual(expect.arrayContaining([active.id, inactive.id]));
  });

  it('answers each product with every field of the spec', async () => {
    const product = await makeProduct({ features: ['One', 'Two'], productType: 'game', maxActivations: 3 });
    const res = await api('GET', '/api/products', { token: customer });
    expect(res.body.find((p: { _id: string }) => p._id === product.id)).toEqual({
      _id: product.id,
      name: product.name,
      description: 'A product for tests',
      productType: 'game',
      keyTag: product.keyTag,
      baseCreditCost: 100,
      creditsPerDay: 10,
      minDays: 1,
      maxDays: 365,
      maxActivations: 3,
      offlineTokenHours: 24,
      licenseModel: 'node-locked',
      leaseMinutes: 60,
      borrowMaxHours: 0,
      swapLimit: null,
      swapWindowDays: 30,
      trialDays: 0,
      entitlements: [],
      usageAllowance: null,
      usageRefillAmount: null,
      usageRefillDays: null,
      trialUsageAllowance: 0,
      expiryModel: 'time-limited',
      isActive: true,
      features: ['One', 'Two'],
      // Keys sold and revenue are the owner's: a customer's answer leaves them out.
      stats: { totalGenerated: 0, totalActivations: 0 },
      createdAt: product.createdAt.toISOString(),
      updatedAt: null,
    });
  });

  it('shows revenue and keys sold to the owner only', async () => {
    const product = await makeProduct();
    await env.DB.prepare('UPDATE products SET total_sold = 3, revenue = 450, total_generated = 4 WHERE id = ?').bind(product.id).run();
    for (const token of [customer, reseller]) {
      const res = await api('GET', '/api/products', { token });
      for (const p of res.body) {
        expect(p.stats).not.toHaveProperty('revenue');
        expect(p.stats).not.toHaveProperty('totalSold');
      }
      expect(res.body.find((p) => p._id === product.id)!.stats).toEqual({ totalGenerated: 4, totalActivations: 0 });
    }
    const all = await api('GET', '/api/products', { token: owner });
    expect(all.body.find((p) => p._id === product.id)!.stats).toEqual({
      totalGenerated: 4,
      totalSold: 3,
      revenue: 450,
      totalActivations: 0,
    });
  });

  it('needs a session', async () => {
    expect((await api('GET', '/api/products')).status).toBe(401);
  });
});

describe('POST /api/products', () => {
  it('creates a product with the spec defaults, the key tag in capitals, stats ignored', async () => {
    const body = validBody({
      keyTag: ` ab${uniqueTag().slice(0, 6).toLowerCase()} `,
      stats: { totalGenerated: 5, totalSold: 9, revenue: 1000 },
      features: [' Fast ', '', 'Cloud sync ', '  '],
    });
    const res = await api('POST', '/api/products', { token: owner, body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: body.name,
      keyTag: body.keyTag.trim().toUpperCase(),
      productType: 'software',
      baseCreditCost: 50,
      creditsPerDay: 10,
      minDays: 1,
      maxDays: 365,
      maxActivations: 1,
      offlineTokenHours: 24,
      isActive: true,
      features: ['Fast', 'Cloud sync'],
      stats: { totalGenerated: 0, totalSold: 0, revenue: 0, totalActivations: 0 },
    });
    const row = await productRow(res.body._id);
    expect(row).toMatchObject({ totalGenerated: 0, totalSold: 0, revenue: 0, keyTag: res.body.keyTag });
  });

  it('accepts the form’s comma-separated features', async () => {
    const res = await api('POST', '/api/products', { token: owner, body: validBody({ features: 'A, B ,, C' }) });
    expect(res.status).toBe(201);
    expect(res.body.features).toEqual(['A', 'B', 'C']);
  });

  it('takes an offline token lifetime from 1 hour to 30 days', async () => {
    for (const hours of [1, 720]) {
      const res = await api('POST', '/api/products', { token: owner, body: validBody({ offlineTokenHours: hours }) });
      expect(res.status).toBe(201);
      expect(res.body.offlineTokenHours).toBe(hours);
      expect((await productRow(res.body._id))!.offlineTokenHours).toBe(hours);
    }
  });

  it('accepts free products and single-day ranges', async () => {
    const res = await api('POST', '/api/products', {
      token: owner,
      body: validBody({ baseCreditCost: 0, creditsPerDay: 0, minDays: 7, maxDays: 7 }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ baseCreditCost: 0, creditsPerDay: 0, minDays: 7, maxDays: 7 });
  });

  it.each([
    ['no name', { name: undefined }, 'Name is required'],
    ['a blank name', { name: '   ' }, 'Name is required'],
    ['no description', { description: undefined }, 'Description is required'],
    ['no key tag', { keyTag: undefined }, 'Key tag is required'],
    ['a one-character key tag', { keyTag: 'A' }, 'Key tag must be 2 to 10 letters or digits'],
    ['an 11-character key tag', { keyTag: 'ABCDEFGHIJK' }, 'Key tag must be 2 to 10 letters or digits'],
    ['a key tag with a dash', { keyTag: 'AB-C' }, 'Key tag must be 2 to 10 letters or digits'],
    ['no base cost', { baseCreditCost: undefined }, 'Base credit cost must be a number'],
    ['a negative base cost', { baseCreditCost: -1 }, 'Base credit cost must be at least 0'],
    ['a fractional base cost', { baseCreditCost: 1.5 }, 'Base credit cost must be a whole number'],
    ['a base cost as text', { baseCreditCost: '50' }, 'Base credit cost must be a number'],
    ['a negative per-day cost', { creditsPerDay: -5 }, 'Credits per day must be at least 0'],
    ['minDays 0', { minDays: 0 }, 'Minimum days must be at least 1'],
    ['maxDays 0', { maxDays: 0 }, 'Maximum days must be at least 1'],
    ['maxDays beyond ten years', { maxDays: 3651 }, 'Maximum days must be at most 3650'],
    ['minDays above maxDays', { minDays: 30, maxDays: 7 }, 'Minimum days cannot be more than maximum days'],
    ['maxActivations 0', { maxActivations: 0 }, 'Maximum activations must be at least 1'],
    ['an offline token lifetime under an hour', { offlineTokenHours: 0 }, 'Offline token lifetime (hours) must be at least 1'],
    ['an offline token lifetime over 30 days', { offlineTokenHours: 721 }, 'Offline token lifetime (hours) must be at most 720'],
    ['a fractional offline token lifetime', { offlineTokenHours: 1.5 }, 'Offline token lifetime (hours) must be a whole number'],
    ['an unknown product type', { productType: 'hardware' }, 'Product type must be one of software, game, service, other'],
    ['isActive as text', { isActive: 'yes' }, 'isActive must be true or false'],
    ['features as a number', { features: 5 }, 'Features must be a list of text'],
    ['a feature that is not text', { features: ['ok', 3] }, 'Features must be a list of text'],
  ])('refuses %s with a 400 and creates nothing', async (_, overrides, message) => {
    const body = validBody(overrides);
    const res = await api('POST', '/api/products', { token: owner, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    if (typeof body.name === 'string') expect(await countByName(body.name)).toBe(0);
  });

  it('refuses a key tag already in use, whatever its case, with a 409', async () => {
    const existing = await makeProduct();
    const name = `Clash ${uniqueTag()}`;
    const res = await api('POST', '/api/products', { token: owner, body: validBody({ name, keyTag: existing.keyTag.toLowerCase() }) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      code: 'CONFLICT',
      message: `Another product already uses the key tag ${existing.keyTag}`,
      details: { field: 'keyTag' },
    });
    expect(await countByName(name)).toBe(0);
  });

  it('lets exactly one of many racing creations take a key tag', async () => {
    const keyTag = uniqueTag();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => api('POST', '/api/products', { token: owner, body: validBody({ keyTag }) })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    const n = await env.DB.prepare('SELECT count(*) AS n FROM products WHERE key_tag = ?').bind(keyTag).first<{ n: number }>();
    expect(n!.n).toBe(1);
  });

  it('is for the owner only', async () => {
    const body = validBody();
    expect((await api('POST', '/api/products', { token: customer, body })).status).toBe(403);
    expect((await api('POST', '/api/products', { token: reseller, body })).status).toBe(403);
    expect((await api('POST', '/api/products', { body })).status).toBe(401);
    expect(await countByName(body.name)).toBe(0);
  });
});

describe('PUT /api/products/{id}', () => {
  it('replaces the fields, keeps stats, and can deactivate', async () => {
    const product = await makeProduct();
    await env.DB.prepare('UPDATE products SET total_generated = 4, total_sold = 3, revenue = 900 WHERE id = ?').bind(product.id).run();
    const body = validBody({ keyTag: product.keyTag, creditsPerDay: 3, minDays: 2, maxDays: 30, isActive: false, stats: { totalSold: 0 } });
    const res = await api('PUT', `/api/products/${product.id}`, { token: owner, body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: product.id, name: body.name, creditsPerDay: 3, minDays: 2, maxDays: 30, isActive: false });
    expect(res.body.stats).toEqual({ totalGenerated: 4, totalSold: 3, revenue: 900, totalActivations: 0 });
    expect(res.body.updatedAt).not.toBeNull();
    expect(res.body.createdAt).toBe(product.createdAt.toISOString());
  });

  it('refuses another product’s key tag, bad input and unknown ids', async () => {
    const [a, b] = await Promise.all([makeProduct(), makeProduct()]);
    const clash = await api('PUT', `/api/products/${a.id}`, { token: owner, body: validBody({ keyTag: b.keyTag }) });
    expect(clash.status).toBe(409);
    const bad = await api('PUT', `/api/products/${a.id}`, { token: owner, body: validBody({ minDays: 10, maxDays: 5 }) });
    expect(bad.status).toBe(400);
    expect((await productRow(a.id))!.name).toBe(a.name);
    const missing = await api('PUT', '/api/products/000000000000000000000000', { token: owner, body: validBody() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'Product not found' });
  });

  it('is for the owner only', async () => {
    const product = await makeProduct();
    const res = await api('PUT', `/api/products/${product.id}`, { token: reseller, body: validBody() });
    expect(res.status).toBe(403);
    expect((await productRow(product.id))!.name).toBe(product.name);
  });
});

describe('DELETE /api/products/{id}', () => {
  it('deletes a product that never had a key', async () => {
    const product = await makeProduct();
    const res = await api('DELETE', `/api/products/${product.id}`, { token: owner });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, deleted: true, message: 'Product deleted' });
    expect(await productRow(product.id)).toBeUndefined();
    expect((await api('DELETE', `/api/products/${product.id}`, { token: owner })).status).toBe(404);
  });

  it('deactivates a product with sold keys, keeping the keys and the history', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const buyer = await signedInUser('user', { credits: 100 });
    const bought = await api('POST', '/api/keys/purchase', { token: buyer.token, body: { productId: product.id, duration: 5 } });
    expect(bought.status).toBe(201);
    const res = await api('DELETE', `/api/products/${product.id}`, { token: owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      deleted: false,
      deactivated: true,
      product: { _id: product.id, isActive: false, stats: { totalSold: 1, revenue: 15 } },
    });
    expect(res.body.message).toMatch(/deactivated instead of deleted/);
    expect(await keysOfProduct(product.id)).toHaveLength(1);
    const listed = await api('GET', '/api/products', { token: customer });
    expect(listed.body.map((p: { _id: string }) => p._id)).not.toContain(product.id);
    const mine = await api('GET', '/api/users/my-keys', { token: buyer.token });
    expect(mine.body.keys[0].product.name).toBe(product.name);
  });

  it('is for the owner only', async () => {
    const product = await makeProduct();
    expect((await api('DELETE', `/api/products/${product.id}`, { token: customer })).status).toBe(403);
    expect(await productRow(product.id)).toBeDefined();
  });
});

describe('the price', () => {
  it('is baseCreditCost + days x creditsPerDay', () => {
    expect(quote({ baseCreditCost: 100, creditsPerDay: 10 }, 30)).toEqual({ days: 30, baseCost: 100, durationCost: 300, total: 400 });
    expect(quote({ baseCreditCost: 0, creditsPerDay: 7 }, 1)).toEqual({ days: 1, baseCost: 0, durationCost: 7, total: 7 });
  });

  it('shares its product types with the data model', () => {
    expect([...PRODUCT_TYPES]).toEqual([...DB_PRODUCT_TYPES]);
  });
});
