// The owner's free key generation: up to `maxKeysPerGeneration` available
// keys of an active product in one request. The keys go in as many-row inserts, each within D1's
// 100 bound parameters, all in one batch with the audit row (each key counts itself on its product), so a
// thousand keys take one round trip and either all exist or none does.
import { eq } from 'drizzle-orm';
import { rawSql, runBatch, type DB, type SqlStatement } from '../../platform/db/client';
import { failedConstraint } from '../../platform/db/errors';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { users, type Actor } from '../../platform/db/schema';
import { generationLimitMessage } from './schemas/admin-keys';
import { generateLicenseKey, toLicenseKeyJson, type LicenseKeyRow } from './license-keys';
import { auditStatement } from '../audit';
import { assertOfferedDuration, findProduct, forgetProduct, recentProduct, rememberProduct, type ProductRow } from '../catalog';
import type { Settings } from '../settings';
import { dispatchCommitted, generatedKeysEvent } from '../webhooks';
import { type LicenseKey } from './schemas/answers';

export type Generator = { db: DB; actor: Actor; ip: string | null };

const MAX_PARAMS = 100;
/** ?1..?11 are the same for every key of a generation; each key adds its id and its string. */
const SHARED_PARAMS = 11;
export const KEYS_PER_INSERT = Math.floor((MAX_PARAMS - SHARED_PARAMS) / 2);
/** A clash among 97-bit keys is all but impossible; if one happens, the batch fails whole and is redone. */
const ATTEMPTS = 3;

export const inactiveProduct = () => new AppError('CONFLICT', 'Keys can only be generated for active products');

/**
 * Many keys in one statement. Their product_id is NULL, and so the batch fails (NOT NULL), when the
 * product was deactivated or deleted since it was read; for a remembered product, also when anything
 * the keys copy from it or the duration was checked against has changed (?2 to ?6, ?9, ?10).
 */
function insertStatement(
  product: ProductRow,
  days: number,
  actorId: string,
  now: number,
  keys: Array<{ id: string; key: string }>,
  remembered: boolean,
) {
  const values = keys.map((_, i) => `(?${SHARED_PARAMS + 2 * i + 1}, ?${SHARED_PARAMS + 2 * i + 2})`).join(', ');
  const unchanged = remembered
    ? ' AND name = ?2 AND key_tag = ?3 AND product_type = ?4 AND max_activations = ?6 AND min_days = ?9 AND max_days = ?10 AND expiry_model = ?11'
    : '';
  return rawSql(
    `INSERT INTO license_keys (id, key, status, product_id, product_name, product_key_tag, product_type, duration, max_activations,
                               created_by, purchase_price, generation_method, expiry_model, created_at)
     SELECT v.column1, v.column2, 'available', (SELECT id FROM products WHERE id = ?1 AND is_active = 1${unchanged}),
            ?2, ?3, ?4, ?5, ?6, ?7, 0, 'automatic', ?11, ?8
       FROM (VALUES ${values}) AS v`,
    product.id,
    product.name,
    product.keyTag,
    product.productType,
    days,
    product.maxActivations,
    actorId,
    now,
    product.minDays,
    product.maxDays,
    product.expiryModel,
    ...keys.flatMap((k) => [k.id, k.key]),
  );
}

/** The batch found the remembered product changed: read it afresh. */
class StaleProduct extends Error {}

export async function generateKeys(
  gen: Generator,
  settings: Pick<Settings, 'maxKeysPerGeneration'>,
  input: { productId: string; quantity: number; duration?: number },
  now = Date.now(),
): Promise<{ keys: LicenseKey[]; generated: number }> {
  if (input.quantity > settings.maxKeysPerGeneration) {
    throw new AppError('VALIDATION_ERROR', generationLimitMessage(settings.maxKeysPerGeneration), { details: { field: 'quantity' } });
  }
  // A product this isolate used in the last minute is not read again (products.ts): one round trip.
  const remembered = recentProduct(input.productId, now);
  if (remembered) {
    try {
      return await generateFrom(gen, remembered, input, now, true);
    } catch (err) {
      if (!(err instanceof StaleProduct)) throw err;
      forgetProduct(input.productId);
    }
  }
  const product = await findProduct(gen.db, input.productId);
  if (!product) throw notFound('Product');
  if (!product.isActive) throw inactiveProduct();
  rememberProduct(product, now);
  return generateFrom(gen, product, input, now, false);
}

async function generateFrom(
  gen: Generator,
  product: ProductRow,
  input: { quantity: number; duration?: number },
  now: number,
  remembered: boolean,
): Promise<{ keys: LicenseKey[]; generated: number }> {
  const { db, actor, ip } = gen;
  const days = input.duration ?? product.minDays;
  assertOfferedDuration(product, days);

  for (let attempt = 1; ; attempt++) {
    const keys = Array.from({ length: input.quantity }, () => ({ id: newId(now), key: generateLicenseKey(product.keyTag) }));
    const inserts: SqlStatement[] = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_INSERT)
      inserts.push(insertStatement(product, days, actor.id, now, keys.slice(i, i + KEYS_PER_INSERT), remembered));
    const audit = auditStatement(
      db,
      actor,
      'keys.generate',
      { type: 'product', id: product.id },
      { product: product.name, keyTag: product.keyTag, quantity: keys.length, duration: days },
      ip,
    );
    let username: string;
    try {
      // Each key's insert counts it on its product (a trigger, migration 0005); the actor's name for
      // the keys' createdBy is read in the same round trip.
      const event = generatedKeysEvent(
        actor.id,
        { product: { _id: product.id, name: product.name, keyTag: product.keyTag }, duration: days, keys },
        now,
      );
      const results = await runBatch(db, [
        ...inserts,
        audit,
        event,
        db.select({ username: users.username }).from(users).where(eq(users.id, actor.id)),
      ]);
      await dispatchCommitted(results, db);
      username = (results[results.length - 1] as Array<{ username: string }>)[0]?.username ?? '';
    } catch (err) {
      if (failedConstraint(err, 'NOT NULL', 'license_keys.product_id')) {
        if (remembered) throw new StaleProduct();
        throw inactiveProduct();
      }
      if (failedConstraint(err, 'UNIQUE', 'license_keys.key') && attempt < ATTEMPTS) continue;
      throw err;
    }
    const rows: LicenseKeyRow[] = keys.map((k) => generatedRow(product, days, actor.id, now, k));
    const relations = {
      usernames: new Map([[actor.id, username]]),
      activationsByKey: new Map(),
      productsById: new Map([[product.id, product]]),
    };
    return { keys: rows.map((row) => toLicenseKeyJson(row, relations, now)), generated: rows.length };
  }
}

/** The row as the insert above writes it, so the answer needs no read back. */
function generatedRow(product: ProductRow, days: number, actorId: string, now: number, k: { id: string; key: string }): LicenseKeyRow {
  return {
    id: k.id,
    key: k.key,
    status: 'available',
    productId: product.id,
    productName: product.name,
    productKeyTag: product.keyTag,
    productType: product.productType,
    duration: days,
    maxActivations: product.maxActivations,
    purchasedAt: null,
    purchasedBy: null,
    createdBy: actorId,
    purchasePrice: 0,
    paidBy: null,
    revokeReason: null,
    revokedAt: null,
    firstUsedAt: null,
    expiresAt: null,
    generationMethod: 'automatic',
    lastDeviceRemovalAt: null,
    transferCount: 0,
    isTrial: false,
    entitlements: [],
    usageRemaining: null,
    usagePeriodStart: null,
    createdAt: new Date(now),
    importedAt: null,
    expiryModel: product.expiryModel,
    autoRenewDays: null,
    autoRenewFailedAt: null,
  };
}
