// Products: the owner's catalogue. Stats are counted by the writes that change them (purchases,
// generation, activations), never taken from a client.
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { licenseKeys, products } from '../../platform/db/schema';
import { failedConstraint } from '../../platform/db/errors';
import { isolateCache } from '../../platform/isolate-cache';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { isOfferedDuration, type Product, type ProductInput } from './schemas';
import { HOUR_MS, type Role } from '../../platform/vocabulary';

export type ProductRow = typeof products.$inferSelect;

/** A product as `viewer` may see it: sales figures for the owner only. */
export function toProductJson(p: ProductRow, viewer: { role: Role } = { role: 'owner' }): Product {
  const sales = viewer.role === 'owner' ? { totalSold: p.totalSold, revenue: p.revenue } : {};
  return {
    _id: p.id,
    name: p.name,
    description: p.description,
    productType: p.productType,
    keyTag: p.keyTag,
    baseCreditCost: p.baseCreditCost,
    creditsPerDay: p.creditsPerDay,
    minDays: p.minDays,
    maxDays: p.maxDays,
    maxActivations: p.maxActivations,
    offlineTokenHours: p.offlineTokenHours,
    licenseModel: p.licenseModel,
    leaseMinutes: p.leaseMinutes,
    borrowMaxHours: p.borrowMaxHours,
    swapLimit: p.swapLimit,
    swapWindowDays: p.swapWindowDays,
    trialDays: p.trialDays,
    entitlements: p.entitlements,
    usageAllowance: p.usageAllowance,
    usageRefillAmount: p.usageRefillAmount,
    usageRefillDays: p.usageRefillDays,
    trialUsageAllowance: p.trialUsageAllowance,
    expiryModel: p.expiryModel,
    isActive: p.isActive,
    features: p.features,
    stats: { totalGenerated: p.totalGenerated, ...sales, totalActivations: p.totalActivations },
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt ? p.updatedAt.toISOString() : null,
  };
}

/** Active products by name; with `includeInactive` (the owner) every product. */
export function listProducts(db: DB, { includeInactive }: { includeInactive: boolean }) {
  return db
    .select()
    .from(products)
    .where(includeInactive ? undefined : eq(products.isActive, true))
    .orderBy(asc(products.name), asc(products.id))
    .all();
}

export const findProduct = (db: DB, id: string) => db.select().from(products).where(eq(products.id, id)).get();

/**
 * Products this isolate has sold or generated keys for in the last minute. A purchase or a generation
 * from a remembered product reads nothing before its batch; the batch's key insert then requires the
 * product to still be active with every field it used unchanged, so an edit, a deactivation or a
 * deletion since (from any isolate) fails the batch whole and the work is done again from a fresh read.
 */
const recentProducts = isolateCache<string, ProductRow>('recent-products');

export const recentProduct = (id: string, now: number): ProductRow | null => recentProducts.get(id, now) ?? null;

export function rememberProduct(product: ProductRow, now: number) {
  recentProducts.set(product.id, product, now);
}

export const forgetProduct = (id: string) => recentProducts.delete(id);

/** A product a customer may buy now: it exists and is active (an inactive one reads as unknown, 404). */
export function purchasable(product: ProductRow | undefined): ProductRow {
  if (!product || !product.isActive) throw notFound('Product');
  return product;
}

/** A duration the product is sold for (a purchase) or runs for (generated keys), or a 400 saying which. */
export function assertOfferedDuration(product: Pick<ProductRow, 'minDays' | 'maxDays' | 'name'>, days: number): void {
  if (!isOfferedDuration(product, days)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Duration must be a whole number of days between ${product.minDays} and ${product.maxDays} for ${product.name}`,
      {
        details: { field: 'duration' },
      },
    );
  }
}

const keyTagTaken = (keyTag: string) =>
  new AppError('CONFLICT', `Another product already uses the key tag ${keyTag}`, { details: { field: 'keyTag' } });

async function assertKeyTagFree(db: DB, keyTag: string, exceptId?: string) {
  const clash = await db
    .select({ id: products.id })
    .from(products)
    .where(exceptId ? and(eq(products.keyTag, keyTag), ne(products.id, exceptId)) : eq(products.keyTag, keyTag))
    .get();
  if (clash) throw keyTagTaken(keyTag);
}

/** Runs a write, turning the unique key tag index's refusal (two owners racing) into a 409. */
async function withKeyTagGuard<T>(keyTag: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (failedConstraint(err, 'UNIQUE', 'products.key_tag')) throw keyTagTaken(keyTag);
    throw err;
  }
}

export async function createProduct(db: DB, input: ProductInput): Promise<ProductRow> {
  await assertKeyTagFree(db, input.keyTag);
  const now = new Date();
  const row = { id: newId(now.getTime()), ...input, createdAt: now };
  await withKeyTagGuard(input.keyTag, () => db.insert(products).values(row).run());
  return (await findProduct(db, row.id))!;
}

/**
 * Replaces the product's fields (PUT); stats and creation time stay as counted. Shortening the
 * offline token lifetime leaves the tokens already issued alive: until when is kept, so slots
 * released meanwhile stay held that long (held-slots.ts).
 */
export async function updateProduct(db: DB, id: string, input: ProductInput, now = Date.now()): Promise<ProductRow> {
  if (!(await findProduct(db, id))) throw notFound('Product');
  await assertKeyTagFree(db, input.keyTag, id);
  // Read from the row as it was, inside the UPDATE itself: concurrent edits cannot lose a longer lifetime.
  const earlierTokensLiveUntil = sql`max(coalesce(${products.earlierTokensLiveUntil}, 0), ${now} + ${products.offlineTokenHours} * ${HOUR_MS})`;
  const updated = await withKeyTagGuard(input.keyTag, () =>
    db
      .update(products)
      .set({ ...input, earlierTokensLiveUntil, updatedAt: new Date(now) })
      .where(eq(products.id, id))
      .returning()
      .get(),
  );
  if (!updated) throw notFound('Product');
  return updated;
}

export type ProductRemoval = { deleted: true } | { deleted: false; deactivated: true; product: ProductRow };

/**
 * Deletes a product that never had a key. A product with keys (sold or generated) is deactivated
 * instead: its keys keep working and pointing at it, and its sales history stays whole.
 */
export async function removeProduct(db: DB, id: string): Promise<ProductRemoval> {
  if (!(await findProduct(db, id))) throw notFound('Product');
  // One statement decides, so a key bought while this runs cannot be left pointing at nothing.
  const deleted = await db
    .delete(products)
    .where(and(eq(products.id, id), sql`NOT EXISTS (SELECT 1 FROM ${licenseKeys} WHERE ${licenseKeys.productId} = ${id})`))
    .returning({ id: products.id })
    .all();
  if (deleted.length) return { deleted: true };
  const product = await db.update(products).set({ isActive: false, updatedAt: new Date() }).where(eq(products.id, id)).returning().get();
  if (!product) throw notFound('Product');
  return { deleted: false, deactivated: true, product };
}
