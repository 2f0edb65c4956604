// Buying a license key with credits: the customer's own purchase, and (through the admin routes) a
// reseller's purchase for a customer and the owner's direct purchase. One D1 batch does it all:
// the debit, the key, the ledger row, the product's stats and the idempotency claim. The debit
// cannot go below zero (CHECK on users.credits), so racing purchases can never overspend: the
// batch that would fails whole and changes nothing.
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { plainBatch, type DB, type RunBatch } from '../db/client';
import { ledger, licenseKeys, products, users } from '../db/schema';
import { failedConstraint } from '../lib/db-errors';
import { AppError, notFound } from '../lib/errors';
import { newId } from '../lib/ids';
import type { PurchaseReceipt, PurchaseShortfall } from '../schemas/entities';
import { quote, type Quote } from '../schemas/products';
import { claimStatement, findReplay, lostIdempotencyRace, type IdempotencyClaim } from './idempotency';
import { generateLicenseKey } from './license-keys';
import { assertOfferedDuration, purchasable, type ProductRow } from './products';

const DAY_MS = 24 * 60 * 60 * 1000;

export type PurchaseOrder = {
  /** Must name an active product; an inactive or unknown one is a 404. */
  productId: string;
  days: number;
  /** The account the key belongs to (`purchasedBy`). */
  buyerId: string;
  /** The account whose credits pay; null when nobody pays (the owner's free direct purchase). */
  payerId: string | null;
  /** Who asked for it: the key's `createdBy` and the ledger row's actor. */
  actorId: string;
  generationMethod: 'purchase' | 'reseller' | 'direct';
  /** How the price is worked out: the list price (`quote`) unless given; 0 is charged when nobody pays. */
  pricing?: (product: ProductRow, days: number) => Quote;
  /** Statements that must commit with the purchase (an admin's audit row). */
  alsoRun?: (receipt: PurchaseReceipt) => BatchItem<'sqlite'>[];
  idempotency?: IdempotencyClaim;
  /** Runs the purchase's batch: the request's runner (requireAuthInBatch puts the session's checks in front). */
  runBatch?: RunBatch;
  now?: number;
};

/** What a purchase answers, and what a replay of it answers again. */
export type PurchaseResult = {
  licenseKey: PurchaseReceipt;
  /** The payer's credits right after the purchase (null when nobody paid). */
  payerCredits: number | null;
};

export const PURCHASE_STATUS = 201;

export function insufficientCredits(q: Quote, required: number, available: number): AppError {
  const details: PurchaseShortfall = { requiredCredits: required, availableCredits: available, baseCost: q.baseCost, durationCost: q.durationCost, days: q.days };
  return new AppError('INSUFFICIENT_CREDITS', `Insufficient credits: this key costs ${required} credits and ${available} are available`, { details });
}

async function creditsOf(db: DB, userId: string): Promise<number> {
  const row = await db.select({ credits: users.credits }).from(users).where(eq(users.id, userId)).get();
  if (!row) throw notFound('User');
  return row.credits;
}

/**
 * Products this isolate has sold recently. A purchase priced from a remembered product skips the
 * read before its batch; the batch's key insert then requires the product to still be active with
 * every field the purchase used unchanged, so an edit, a deactivation or a deletion since (from any
 * isolate) fails the batch whole and the purchase is carried out again from a fresh read.
 */
const recentProducts = new Map<string, { product: ProductRow; until: number }>();
const RECENT_PRODUCT_MS = 60_000;
const RECENT_PRODUCTS_MAX = 1_000;

function recentProduct(id: string, now: number): ProductRow | null {
  const hit = recentProducts.get(id);
  if (hit && hit.until > now) return hit.product;
  recentProducts.delete(id);
  return null;
}

function rememberProduct(product: ProductRow, now: number) {
  if (recentProducts.size >= RECENT_PRODUCTS_MAX) recentProducts.clear();
  recentProducts.set(product.id, { product, until: now + RECENT_PRODUCT_MS });
}

/** The product (it must be purchasable) and the payer's credits, in one D1 round trip. */
async function readOrder(db: DB, productId: string, payerId: string | null): Promise<{ product: ProductRow; available: number | null }> {
  const productQuery = db.select().from(products).where(eq(products.id, productId));
  if (payerId === null) return { product: purchasable((await productQuery)[0]), available: null };
  const [productRows, payerRows] = await db.batch([productQuery, db.select({ credits: users.credits }).from(users).where(eq(users.id, payerId))]);
  return { product: purchasable(productRows[0]), available: payerRows[0]?.credits ?? null };
}

/** The batch found the remembered product changed (or its price beyond the payer): read it afresh. */
class StaleProduct extends Error {}

export async function purchaseKey(db: DB, order: PurchaseOrder): Promise<PurchaseResult & { replayed: boolean }> {
  const { payerId, idempotency } = order;
  // A retry answers as the first time did, even if the product has been withdrawn since.
  if (idempotency) {
    const replay = await findReplay<PurchaseResult>(db, idempotency);
    if (replay) return { ...replay.body, replayed: true };
  }
  const now = order.now ?? Date.now();
  const remembered = recentProduct(order.productId, now);
  if (remembered) {
    try {
      return await commitPurchase(db, order, remembered, { remembered: true, available: null }, now);
    } catch (err) {
      if (!(err instanceof StaleProduct)) throw err;
      recentProducts.delete(order.productId);
    }
  }
  const { product, available } = await readOrder(db, order.productId, payerId);
  rememberProduct(product, now);
  return commitPurchase(db, order, product, { remembered: false, available }, now);
}

/**
 * Prices the key from `product` and runs the purchase batch. `available`: the payer's credits when
 * just read (a clear answer before any write); the batch's CHECK is what makes it exact.
 */
async function commitPurchase(
  db: DB,
  order: PurchaseOrder,
  product: ProductRow,
  read: { remembered: boolean; available: number | null },
  at: number,
): Promise<PurchaseResult & { replayed: boolean }> {
  const { days, payerId, idempotency } = order;
  assertOfferedDuration(product, days);
  const q = order.pricing ? order.pricing(product, days) : quote(product, days);
  const price = payerId === null ? 0 : q.total;
  if (!Number.isInteger(price) || price < 0) throw new Error(`purchaseKey: price must be a whole number of credits, got ${price}`);
  if (payerId !== null && !read.remembered) {
    if (read.available === null) throw notFound('User');
    if (read.available < price) throw insufficientCredits(q, price, read.available);
  }

  const now = new Date(at);
  const keyId = newId(now.getTime());
  const receipt: PurchaseReceipt = {
    _id: keyId,
    key: generateLicenseKey(product.keyTag),
    product: product.name,
    productId: product.id,
    duration: days,
    expiryDate: new Date(now.getTime() + days * DAY_MS).toISOString(),
    cost: price,
  };

  const statements: BatchItem<'sqlite'>[] = [];
  if (payerId !== null) {
    // RETURNING: the payer's credits after the debit, for the answer (nothing later in the batch changes them).
    statements.push(db.update(users).set({ credits: sql`${users.credits} - ${price}` }).where(eq(users.id, payerId)).returning({ credits: users.credits }));
  }
  statements.push(
    db.insert(licenseKeys).values({
      id: keyId,
      key: receipt.key,
      status: 'used',
      // NULL (and so a failed batch) when the product was deactivated or deleted since it was read,
      // or, for a remembered product, changed in anything this purchase used.
      productId: stillPurchasableId(product, { unchanged: read.remembered }),
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: product.productType,
      duration: days,
      maxActivations: product.maxActivations,
      purchasedAt: now,
      purchasedBy: order.buyerId,
      createdBy: order.actorId,
      purchasePrice: price,
      expiresAt: new Date(receipt.expiryDate),
      generationMethod: order.generationMethod,
      createdAt: now,
    }),
  );
  if (payerId !== null) {
    statements.push(
      db.insert(ledger).values({
        id: newId(now.getTime()),
        // NULL (and so a failed batch) when the payer's account was deleted since it was read.
        userId: sql`(SELECT ${users.id} FROM ${users} WHERE ${users.id} = ${payerId})`,
        actorId: order.actorId,
        kind: 'purchase',
        creditsDelta: -price,
        reference: keyId,
        note: `${product.name}, ${days} days${order.buyerId !== payerId ? ` (for ${order.buyerId})` : ''}`,
        createdAt: now,
      }),
    );
  }
  // Every key made counts as generated; a bought one is also sold.
  statements.push(
    db
      .update(products)
      .set({
        totalGenerated: sql`${products.totalGenerated} + 1`,
        totalSold: sql`${products.totalSold} + 1`,
        revenue: sql`${products.revenue} + ${price}`,
      })
      .where(eq(products.id, product.id)),
  );
  if (order.alsoRun) statements.push(...order.alsoRun(receipt));
  const answer: PurchaseResult = { licenseKey: receipt, payerCredits: null };
  if (idempotency) {
    const payerCredits = payerId === null ? sql`NULL` : sql`(SELECT ${users.credits} FROM ${users} WHERE ${users.id} = ${payerId})`;
    statements.push(claimStatement(db, idempotency, sql`json_set(${JSON.stringify(answer)}, '$.payerCredits', ${payerCredits})`, PURCHASE_STATUS, now));
  }
  const run = order.runBatch ?? plainBatch(db);
  try {
    const results = await run(statements);
    if (payerId !== null) answer.payerCredits = (results[0] as Array<{ credits: number }>)[0].credits;
    return { ...answer, replayed: false };
  } catch (err) {
    const productGone = failedConstraint(err, 'NOT NULL', 'license_keys.product_id');
    const shortOfCredits = failedConstraint(err, 'CHECK', 'users_credits_check') && payerId !== null;
    // The remembered product may be what is wrong (a new price, a withdrawal): decide on a fresh read.
    if (read.remembered && (productGone || shortOfCredits)) throw new StaleProduct();
    if (shortOfCredits) throw insufficientCredits(q, price, await creditsOf(db, payerId));
    if (productGone) throw notFound('Product');
    if (failedConstraint(err, 'NOT NULL', 'ledger.user_id')) throw notFound('User');
    if (idempotency && lostIdempotencyRace(err)) {
      const replay = await findReplay<PurchaseResult>(db, idempotency);
      if (replay) return { ...replay.body, replayed: true };
    }
    throw err;
  }
}

/**
 * The product's id while it is still active; with `unchanged`, only while it is also exactly as
 * `product` in everything the price and the key's snapshot came from.
 */
function stillPurchasableId(product: ProductRow, { unchanged }: { unchanged: boolean }) {
  const same = unchanged
    ? sql` AND ${products.name} = ${product.name} AND ${products.keyTag} = ${product.keyTag} AND ${products.productType} = ${product.productType}
    AND ${products.baseCreditCost} = ${product.baseCreditCost} AND ${products.creditsPerDay} = ${product.creditsPerDay}
    AND ${products.minDays} = ${product.minDays} AND ${products.maxDays} = ${product.maxDays} AND ${products.maxActivations} = ${product.maxActivations}`
    : sql``;
  return sql`(SELECT ${products.id} FROM ${products} WHERE ${products.id} = ${product.id} AND ${products.isActive} = 1${same})`;
}
