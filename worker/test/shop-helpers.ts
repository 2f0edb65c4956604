// Helpers for the shop's tests: products with unique key tags, straight through the domain.
import { eq } from 'drizzle-orm';
import { licenseKeys, products, users } from '../platform/db/schema';
import { createProduct } from '../modules/catalog/products';
import { productInputSchema, type ProductInput } from '../modules/catalog/schemas';
import { newId } from '../platform/ids';
import { DAY_MS } from '../platform/vocabulary';
import { db } from './helpers';

/** A key tag no other test uses: 10 characters of [A-Z0-9]. */
export function uniqueTag(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => alphabet[b % alphabet.length]).join('');
}

export async function makeProduct(overrides: Partial<Record<keyof ProductInput, unknown>> = {}) {
  const input = productInputSchema.parse({
    name: `Product ${uniqueTag()}`,
    description: 'A product for tests',
    keyTag: uniqueTag(),
    baseCreditCost: 100,
    creditsPerDay: 10,
    ...overrides,
  });
  return createProduct(db(), input);
}

type Product = Awaited<ReturnType<typeof makeProduct>>;

/**
 * A key of `product` in use, as a purchase `days` long leaves it: written straight into the table
 * (its clock started, ending at `expiresAt`), for tests of what comes after the purchase.
 */
export async function usedKey(product: Product, options: { days?: number; maxActivations?: number; expiresAt?: number } = {}) {
  const { days = 365, maxActivations = product.maxActivations } = options;
  const expiresAt = options.expiresAt ?? Date.now() + days * DAY_MS;
  const id = newId();
  const key = `${product.keyTag}-${newId().toUpperCase()}`;
  const purchasedAt = new Date(expiresAt - days * DAY_MS);
  await db()
    .insert(licenseKeys)
    .values({
      id,
      key,
      status: 'used',
      productId: product.id,
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: product.productType,
      duration: days,
      maxActivations,
      purchasedAt,
      expiresAt: new Date(expiresAt),
      createdAt: purchasedAt,
    });
  return { id, key };
}

export const productRow = (id: string) => db().select().from(products).where(eq(products.id, id)).get();
export const userRow = (id: string) => db().select().from(users).where(eq(users.id, id)).get();
export const keysOfProduct = (id: string) => db().select().from(licenseKeys).where(eq(licenseKeys.productId, id)).all();
export const keysBoughtBy = (userId: string) => db().select().from(licenseKeys).where(eq(licenseKeys.purchasedBy, userId)).all();
