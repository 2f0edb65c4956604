// Buying a license key with credits: the customer's own purchase, and (through the admin routes) a
// reseller's purchase for a customer and the owner's direct purchase. One D1 batch does it all:
// the key, whose insert also writes its payer's ledger row, which is the debit, and counts the key on
// its product (triggers, migrations 0005 and 0007), and the idempotency claim. The debit cannot go
// below zero (CHECK on users.credits), so racing purchases can never overspend: the batch that would
// fails whole and changes nothing.
import { eq, sql } from 'drizzle-orm';
import { runBatch, SqlStatement, type DB, type Statement } from '../../platform/db/client';
import { products, users } from '../../platform/db/schema';
import { failedConstraint } from '../../platform/db/errors';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { claimStatement, findReplay, lostIdempotencyRace, type IdempotencyClaim } from '../../platform/idempotency';
import { generateLicenseKey } from './license-keys';
import { DAY_MS } from '../../platform/vocabulary';
import { spendingRefusal } from '../billing';
import {
  assertOfferedDuration,
  forgetProduct,
  purchasable,
  quote,
  recentProduct,
  rememberProduct,
  type ProductRow,
  type Quote,
} from '../catalog';
import { commissionEvent, dispatchCommitted, keyEvents } from '../webhooks';
import { dispatchMails } from '../mail';
import { type PurchaseReceipt, type PurchaseShortfall } from './schemas/answers';

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
  alsoRun?: (receipt: PurchaseReceipt) => Statement[];
  idempotency?: IdempotencyClaim;
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
  const details: PurchaseShortfall = {
    requiredCredits: required,
    availableCredits: available,
    baseCost: q.baseCost,
    durationCost: q.durationCost,
    days: q.days,
  };
  return new AppError('INSUFFICIENT_CREDITS', `Insufficient credits: this key costs ${required} credits and ${available} are available`, {
    details,
  });
}

async function creditsOf(db: DB, userId: string): Promise<number> {
  const row = await db.select({ credits: users.credits }).from(users).where(eq(users.id, userId)).get();
  if (!row) throw notFound('User');
  return row.credits;
}

/** The product (it must be purchasable) and the payer's credits, in one D1 round trip. */
async function readOrder(db: DB, productId: string, payerId: string | null): Promise<{ product: ProductRow; available: number | null }> {
  const productQuery = db.select().from(products).where(eq(products.id, productId));
  if (payerId === null) return { product: purchasable((await productQuery)[0]), available: null };
  const [productRows, payerRows] = await db.batch([
    productQuery,
    db.select({ credits: users.credits }).from(users).where(eq(users.id, payerId)),
  ]);
  return { product: purchasable(productRows[0]), available: payerRows[0]?.credits ?? null };
}

/** The batch found the remembered product changed (or its price beyond the payer): read it afresh. */
class StaleProduct extends Error {}

/**
 * With an Idempotency-Key, the claim rides at the end of the purchase's batch and nothing is read
 * first: a retry of a purchase already made loses its batch on the claim's primary key (nothing it
 * wrote stays) and answers what the first time stored. A retry refused before its batch (the credits
 * spent by the first time, the product withdrawn since) answers the stored purchase too; a refusal
 * is never stored, so a retry after a top-up buys. One D1 round trip fewer for every purchase the
 * web app makes, which always sends a key.
 */
const PURCHASE_REFUSALS = new Set<string>(['INSUFFICIENT_CREDITS', 'NOT_FOUND', 'VALIDATION_ERROR']);

export async function purchaseKey(db: DB, order: PurchaseOrder): Promise<PurchaseResult & { replayed: boolean }> {
  try {
    return await purchaseOnce(db, order);
  } catch (err) {
    // Only the purchase's own refusals: a refused session (401, 429) is never answered with a replay.
    if (!order.idempotency || !(err instanceof AppError) || !PURCHASE_REFUSALS.has(err.code)) throw err;
    // A retry answers as the first time did, even if the product has been withdrawn since.
    const replay = await findReplay<PurchaseResult>(db, order.idempotency);
    if (replay) return { ...replay.body, replayed: true };
    throw err;
  }
}

async function purchaseOnce(db: DB, order: PurchaseOrder): Promise<PurchaseResult & { replayed: boolean }> {
  const now = order.now ?? Date.now();
  const remembered = recentProduct(order.productId, now);
  if (remembered) {
    try {
      return await commitPurchase(db, order, remembered, { remembered: true, available: null }, now);
    } catch (err) {
      if (!(err instanceof StaleProduct)) throw err;
      forgetProduct(order.productId);
    }
  }
  const { product, available } = await readOrder(db, order.productId, order.payerId);
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

  const keyId = newId(at);
  // A perpetual key never expires: the days only price it.
  const expiresAt = product.expiryModel === 'perpetual' ? null : at + days * DAY_MS;
  const receipt: PurchaseReceipt = {
    _id: keyId,
    key: generateLicenseKey(product.keyTag),
    product: product.name,
    productId: product.id,
    duration: days,
    expiryDate: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    cost: price,
  };

  const key = keyValues(order, product, receipt, at, expiresAt);
  const statements: Statement[] = [
    read.remembered
      ? new SqlStatement(INSERT_KEY_IF_UNCHANGED, [...key, product.baseCreditCost, product.creditsPerDay, product.minDays, product.maxDays])
      : new SqlStatement(INSERT_KEY, key),
  ];
  if (order.alsoRun) statements.push(...order.alsoRun(receipt));
  statements.push(keyEvents('key.purchased', [keyId], at));
  // A customer's own purchase may earn their reseller a commission (trigger license_keys_pay_commission).
  if (order.generationMethod === 'purchase') statements.push(commissionEvent(keyId, at));
  const answer: PurchaseResult = { licenseKey: receipt, payerCredits: null };
  if (idempotency) {
    const payerCredits = payerId === null ? sql`NULL` : sql`(SELECT ${users.credits} FROM ${users} WHERE ${users.id} = ${payerId})`;
    statements.push(
      claimStatement(
        db,
        idempotency,
        sql`json_set(${JSON.stringify(answer)}, '$.payerCredits', ${payerCredits})`,
        PURCHASE_STATUS,
        new Date(at),
      ),
    );
  }
  try {
    const results = await runBatch(db, statements);
    await dispatchCommitted(results, db);
    await dispatchMails(results, db);
    if (payerId !== null) answer.payerCredits = (results[0] as Array<{ credits: number }>)[0].credits;
    return { ...answer, replayed: false };
  } catch (err) {
    const refusal = payerId === null ? null : await spendingRefusal(db, err, payerId);
    if (refusal) throw refusal;
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
 * The purchase's statement, written once (see SqlStatement): the key, its product snapshot, its
 * clock and its payer (?15; NULL when nobody pays), and how it ends (?16, the product's model). Its product_id is NULL, and so the batch fails
 * (NOT NULL), when the product was deactivated or deleted since it was read; for a remembered
 * product (…IF_UNCHANGED), also when anything this purchase used has changed: the snapshot's name,
 * keyTag, type, device limit and licence model (?4 to ?7, ?16) and the price and day range (?17 to ?20). The payer's
 * ledger row goes in with it (trigger), and fails it when the credits are not there (CHECK
 * users_credits_check) or the payer's account is gone (NOT NULL ledger.user_id). RETURNING: the
 * payer's credits after the debit, for the answer (nothing later in the batch changes them).
 */
const KEY_COLUMNS = `id, key, status, product_id, product_name, product_key_tag, product_type, max_activations, duration,
  purchased_at, purchased_by, created_by, purchase_price, expires_at, generation_method, paid_by, expiry_model, created_at`;
const KEY_VALUES = (productGuard: string) =>
  `VALUES (?1, ?2, 'used', (SELECT id FROM products WHERE id = ?3 AND is_active = 1${productGuard}), ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?9)
  RETURNING (SELECT credits FROM users WHERE id = paid_by) AS credits`;
const INSERT_KEY = `INSERT INTO license_keys (${KEY_COLUMNS}) ${KEY_VALUES('')}`;
const INSERT_KEY_IF_UNCHANGED = `INSERT INTO license_keys (${KEY_COLUMNS}) ${KEY_VALUES(
  ` AND name = ?4 AND key_tag = ?5 AND product_type = ?6 AND max_activations = ?7 AND expiry_model = ?16
    AND base_credit_cost = ?17 AND credits_per_day = ?18 AND min_days = ?19 AND max_days = ?20`,
)}`;

/** ?1 to ?16 of INSERT_KEY, in its columns' order. */
function keyValues(order: PurchaseOrder, product: ProductRow, receipt: PurchaseReceipt, at: number, expiresAt: number | null): unknown[] {
  return [
    receipt._id,
    receipt.key,
    product.id,
    product.name,
    product.keyTag,
    product.productType,
    product.maxActivations,
    receipt.duration,
    at,
    order.buyerId,
    order.actorId,
    receipt.cost,
    expiresAt,
    order.generationMethod,
    order.payerId,
    product.expiryModel,
  ];
}
