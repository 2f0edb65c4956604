// The triggers of migration 0005: a purchase's ledger row is its debit, and every key made counts on
// its product. The purchase and the bulk generation rely on them instead of statements of their own.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ledger, licenseKeys, products, users } from '../db/schema';
import { failedConstraint } from '../lib/db-errors';
import { newId } from '../lib/ids';
import { db } from './helpers';
import { uniqueTag } from './shop-helpers';

async function account(credits: number) {
  const id = newId();
  await db().insert(users).values({ id, username: `tr${uniqueTag()}`, email: `${uniqueTag()}@triggers.example`, credits, createdAt: new Date() });
  return id;
}

const creditsOf = async (id: string) => (await db().select({ credits: users.credits }).from(users).where(eq(users.id, id)).get())!.credits;
const ledgerRowsOf = async (id: string) => (await db().select().from(ledger).where(eq(ledger.userId, id)).all()).length;
const row = (userId: string, kind: 'purchase' | 'exchange' | 'admin_top_up', creditsDelta: number) => ({ id: newId(), userId, actorId: userId, kind, creditsDelta, createdAt: new Date() });

describe('a purchase ledger row', () => {
  it('takes its credits from its user as it goes in; rows of other kinds leave the balance to their own statements', async () => {
    const id = await account(100);
    await db().insert(ledger).values(row(id, 'purchase', -30));
    expect(await creditsOf(id)).toBe(70);
    await db().insert(ledger).values([row(id, 'exchange', 500), row(id, 'admin_top_up', 5)]);
    expect(await creditsOf(id)).toBe(70);
  });

  it('fails whole, debit and row, when the credits are not there', async () => {
    const id = await account(20);
    const refused = await db().insert(ledger).values(row(id, 'purchase', -21)).then(() => null, (err: unknown) => err);
    expect(failedConstraint(refused, 'CHECK', 'users_credits_check')).toBe(true);
    expect(await creditsOf(id)).toBe(20);
    expect(await ledgerRowsOf(id)).toBe(0);
  });

  it('debits exactly under many concurrent inserts, never below zero', async () => {
    const id = await account(50);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => db().insert(ledger).values(row(id, 'purchase', -7))));
    const made = results.filter((r) => r.status === 'fulfilled').length;
    expect(made).toBe(7);
    expect(await creditsOf(id)).toBe(50 - 7 * 7);
    expect(await ledgerRowsOf(id)).toBe(7);
  });
});

describe('a license key', () => {
  it('counts on its product as it goes in: every key as generated, a bought one also as sold for its price', async () => {
    const productId = newId();
    const keyTag = uniqueTag();
    await db().insert(products).values({ id: productId, name: 'Triggered', keyTag, baseCreditCost: 1, createdAt: new Date() });
    const buyer = await account(0);
    const key = (purchasedBy: string | null, purchasePrice: number) => {
      const id = newId();
      return { id, key: `${keyTag}-${id.toUpperCase()}`, status: purchasedBy ? ('used' as const) : ('available' as const), productId, productName: 'Triggered', productKeyTag: keyTag, productType: 'software' as const, duration: 30, maxActivations: 1, purchasedBy, purchasePrice, createdAt: new Date() };
    };
    await db().insert(licenseKeys).values([key(null, 0), key(null, 0), key(buyer, 40), key(buyer, 0)]);
    const figures = await db().select({ generated: products.totalGenerated, sold: products.totalSold, revenue: products.revenue }).from(products).where(eq(products.id, productId)).get();
    expect(figures).toEqual({ generated: 4, sold: 2, revenue: 40 });
  });
});
