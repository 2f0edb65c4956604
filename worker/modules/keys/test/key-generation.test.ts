import { createDb } from '../../../platform/db/client';
import { env } from 'cloudflare:test';
import { and, count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLog, licenseKeys, products } from '../../../platform/db/schema';
import { generateKeys } from '../key-generation';
import { KEY_ALPHABET } from '../license-keys';
import { activateLicense } from '../../licensing/licensing';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { api, signedInUser, db, interceptedD1 } from '../../../test/helpers';
import { keyRow } from '../../../test/key-admin-helpers';
import { OWNER_ONLY, roleMatrix } from '../../../test/role-matrix';
import { sandbox } from '../../../test/sandbox';
import { keysOfProduct, makeProduct, productRow } from '../../../test/shop-helpers';

let ownerToken: string;
let ownerId: string;
beforeAll(async () => {
  const owner = await signedInUser('owner');
  ownerToken = owner.token;
  ownerId = owner.user.id;
});

const generate = (body: unknown, token = ownerToken) => api('POST', '/api/keys/generate', { token, body });
const auditsOf = (productId: string) =>
  db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, 'keys.generate'), eq(auditLog.targetId, productId)))
    .all();

roleMatrix(
  'POST /api/keys/generate',
  {
    request: async () => ({ method: 'POST', path: '/api/keys/generate', body: { productId: (await makeProduct()).id, quantity: 2 } }),
    state: async (r) => {
      const productId = (r.body as { productId: string }).productId;
      return { keys: await keysOfProduct(productId), product: await productRow(productId), audit: await auditsOf(productId) };
    },
    allowed: (res) => expect(res.body.generated).toBe(2),
  },
  OWNER_ONLY,
);

describe('POST /api/keys/generate', () => {
  it('makes available keys of the product, for its minimum days by default, counted and audited', async () => {
    const product = await makeProduct({ minDays: 7, maxDays: 30, maxActivations: 2, productType: 'game' });
    const res = await generate({ productId: product.id, quantity: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ generated: 3, message: 'Generated 3 license keys' });
    expect(res.body.keys).toHaveLength(3);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({
        status: 'available',
        duration: 7,
        expiresAt: null,
        purchasedAt: null,
        purchasedBy: null,
        createdBy: { _id: ownerId },
        purchasePrice: 0,
        metadata: { generationMethod: 'automatic' },
        maxActivations: 2,
        activations: [],
        product: { _id: product.id, name: product.name, keyTag: product.keyTag, productType: 'game', duration: 7, maxActivations: 2 },
      });
      expect(key.key).toMatch(new RegExp(`^${product.keyTag}(-[${KEY_ALPHABET}]{5}){4}$`));
    }
    const rows = await keysOfProduct(product.id);
    expect(rows.map((r) => r.id).sort()).toEqual(res.body.keys.map((k: { _id: string }) => k._id).sort());
    expect(rows.map((r) => r.key).sort()).toEqual(res.body.keys.map((k: { key: string }) => k.key).sort());
    for (const row of rows)
      expect(row).toMatchObject({
        status: 'available',
        generationMethod: 'automatic',
        createdBy: ownerId,
        duration: 7,
        purchasedBy: null,
        expiresAt: null,
      });
    expect(await productRow(product.id)).toMatchObject({ totalGenerated: 3, totalSold: 0, revenue: 0 });
    const [audit] = await auditsOf(product.id);
    expect(audit).toMatchObject({
      actorId: ownerId,
      targetType: 'product',
      details: { product: product.name, keyTag: product.keyTag, quantity: 3, duration: 7 },
    });
  });

  it('takes a duration within the product’s bounds, and the key’s clock starts at its first activation', async () => {
    const product = await makeProduct({ minDays: 5, maxDays: 10 });
    const res = await generate({ productId: product.id, quantity: 1, duration: 10 });
    expect(res.status).toBe(201);
    const [key] = res.body.keys;
    expect(key.duration).toBe(10);
    const before = Date.now();
    const activated = await activateLicense(env.DB, DEFAULT_SETTINGS, { key: key.key, deviceFingerprint: `gen-${before}` });
    expect(activated.valid).toBe(true);
    const row = (await keyRow(key._id))!;
    expect(row.status).toBe('used');
    expect(row.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 10 * 86_400_000);

    const bounds = `Duration must be a whole number of days between 5 and 10 for ${product.name}`;
    expect((await generate({ productId: product.id, quantity: 1, duration: 4 })).body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: bounds,
    });
    expect((await generate({ productId: product.id, quantity: 1, duration: 11 })).body.message).toBe(bounds);
    expect((await generate({ productId: product.id, quantity: 1, duration: 0 })).body.message).toBe('Duration must be at least 1 day');
    expect((await generate({ productId: product.id, quantity: 1, duration: 5.5 })).body.message).toBe(
      'Duration must be a whole number of days',
    );
    expect(await keysOfProduct(product.id)).toHaveLength(1);
  });

  it('checks the quantity: at least 1, whole, and at most the settings’ maxKeysPerGeneration', async () => {
    const product = await makeProduct();
    const message = async (quantity: unknown) => (await generate({ productId: product.id, quantity })).body.message;
    expect(await message(0)).toBe('Quantity must be at least 1');
    expect(await message(-3)).toBe('Quantity must be at least 1');
    expect(await message(2.5)).toBe('Quantity must be a whole number');
    expect(await message('10')).toBe('Quantity must be a number');
    expect(await message(undefined)).toBe('Quantity must be a number');
    // The default limit is 100.
    expect(await message(101)).toBe('Maximum 100 keys per generation allowed. Please adjust the quantity.');
    expect((await generate({ productId: product.id, quantity: 101 })).status).toBe(400);
    expect((await generate({ quantity: 1 })).body.message).toBe('Product is required');
    expect(await keysOfProduct(product.id)).toEqual([]);
    expect((await productRow(product.id))!.totalGenerated).toBe(0);
  });

  it('generates only for an existing, active product', async () => {
    const inactive = await makeProduct({ isActive: false });
    const res = await generate({ productId: inactive.id, quantity: 1 });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('Keys can only be generated for active products');
    expect((await generate({ productId: 'no-such-product', quantity: 1 })).status).toBe(404);
    expect(await keysOfProduct(inactive.id)).toEqual([]);
  });

  it('follows maxKeysPerGeneration as the owner sets it', async () => {
    const box = await sandbox({ settings: { maxKeysPerGeneration: 5 } });
    const owner = await box.signedInUser('owner');
    const product = await makeProduct();
    const over = await box.api('POST', '/api/keys/generate', { token: owner.token, body: { productId: product.id, quantity: 6 } });
    expect(over.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Maximum 5 keys per generation allowed. Please adjust the quantity.',
    });
    expect((await box.api('POST', '/api/keys/generate', { token: owner.token, body: { productId: product.id, quantity: 5 } })).status).toBe(
      201,
    );
    expect(await keysOfProduct(product.id)).toHaveLength(5);
  });

  it('generates 1,000 keys in one quick request: all distinct, all stored, counted once', async () => {
    const box = await sandbox({ settings: { maxKeysPerGeneration: 1000 } });
    const owner = await box.signedInUser('owner');
    const product = await makeProduct();
    const started = Date.now();
    const res = await box.api('POST', '/api/keys/generate', { token: owner.token, body: { productId: product.id, quantity: 1000 } });
    const took = Date.now() - started;
    expect(res.status).toBe(201);
    expect(res.body.generated).toBe(1000);
    // Many-row inserts in one batch: a statement per key would take many times longer.
    expect(took).toBeLessThan(3000);
    const keys = new Set(res.body.keys.map((k: { key: string }) => k.key));
    expect(keys.size).toBe(1000);
    const [{ n }] = await db().select({ n: count() }).from(licenseKeys).where(eq(licenseKeys.productId, product.id)).all();
    expect(n).toBe(1000);
    expect(await db().select({ totalGenerated: products.totalGenerated }).from(products).where(eq(products.id, product.id)).get()).toEqual({
      totalGenerated: 1000,
    });
    expect(await auditsOf(product.id)).toHaveLength(1);
    const over = await box.api('POST', '/api/keys/generate', { token: owner.token, body: { productId: product.id, quantity: 1001 } });
    expect(over.body.message).toBe('Maximum 1000 keys per generation allowed. Please adjust the quantity.');
  });

  it('adds nothing when the product is deactivated while the keys are being made', async () => {
    const product = await makeProduct();
    const owner = { id: ownerId, username: 'owner', email: 'o@example.com', role: 'owner' as const };
    // The owner deactivates the product after it was read as active, just before the batch runs.
    const racingD1 = interceptedD1(env.DB, {
      batch: () => env.DB.prepare('UPDATE products SET is_active = 0 WHERE id = ?1').bind(product.id).run(),
    });
    const pending = generateKeys(
      { db: createDb(racingD1), actor: owner, ip: null },
      { maxKeysPerGeneration: 100 },
      { productId: product.id, quantity: 60 },
    );
    await expect(pending).rejects.toMatchObject({ code: 'CONFLICT', message: 'Keys can only be generated for active products' });
    expect(await keysOfProduct(product.id)).toEqual([]);
    expect((await productRow(product.id))!.totalGenerated).toBe(0);
    expect(await auditsOf(product.id)).toEqual([]);
  });

  it('reads a product it generated for in the last minute afresh when it has changed since, and not at all otherwise', async () => {
    const product = await makeProduct({ minDays: 3, maxDays: 30 });
    expect((await generate({ productId: product.id, quantity: 2 })).status).toBe(201);
    // Renamed and given a longer minimum behind this isolate's back: the remembered copy is stale.
    await env.DB.prepare('UPDATE products SET name = ?2, min_days = 5 WHERE id = ?1').bind(product.id, `${product.name} v2`).run();
    const renamed = await generate({ productId: product.id, quantity: 2 });
    expect(renamed.status).toBe(201);
    expect(renamed.body.keys.map((k: { product: { name: string }; duration: number }) => [k.product.name, k.duration])).toEqual([
      [`${product.name} v2`, 5],
      [`${product.name} v2`, 5],
    ]);
    // Deactivated behind its back: refused, nothing added.
    await env.DB.prepare('UPDATE products SET is_active = 0 WHERE id = ?1').bind(product.id).run();
    const refused = await generate({ productId: product.id, quantity: 2 });
    expect(refused.status).toBe(409);
    expect(await keysOfProduct(product.id)).toHaveLength(4);
    expect((await productRow(product.id))!.totalGenerated).toBe(4);
  });
});
