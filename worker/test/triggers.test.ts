// The triggers of migrations 0005, 0007 and 0008: a key bought with credits writes its payer's ledger
// row, a purchase's ledger row is its debit, every key made counts on its product, and a device
// activated starts its key's clock and counts on the product. The purchase, the bulk generation and
// the activation rely on them instead of statements of their own.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, ledger, licenseKeys, products, users } from '../platform/db/schema';
import { failedConstraint } from '../platform/db/errors';
import { newId } from '../platform/ids';
import { db } from './helpers';
import { uniqueTag } from './shop-helpers';
import { DAY_MS } from '../platform/vocabulary';

async function account(credits: number) {
  const id = newId();
  await db()
    .insert(users)
    .values({ id, username: `tr${uniqueTag()}`, email: `${uniqueTag()}@triggers.example`, credits, createdAt: new Date() });
  return id;
}

const creditsOf = async (id: string) => (await db().select({ credits: users.credits }).from(users).where(eq(users.id, id)).get())!.credits;
const ledgerRowsOf = async (id: string) => (await db().select().from(ledger).where(eq(ledger.userId, id)).all()).length;
const row = (userId: string, kind: 'purchase' | 'exchange' | 'admin_top_up', creditsDelta: number) => ({
  id: newId(),
  userId,
  actorId: userId,
  kind,
  creditsDelta,
  createdAt: new Date(),
});

describe('a purchase ledger row', () => {
  it('takes its credits from its user as it goes in; rows of other kinds leave the balance to their own statements', async () => {
    const id = await account(100);
    await db()
      .insert(ledger)
      .values(row(id, 'purchase', -30));
    expect(await creditsOf(id)).toBe(70);
    await db()
      .insert(ledger)
      .values([row(id, 'exchange', 500), row(id, 'admin_top_up', 5)]);
    expect(await creditsOf(id)).toBe(70);
  });

  it('fails whole, debit and row, when the credits are not there', async () => {
    const id = await account(20);
    const refused = await db()
      .insert(ledger)
      .values(row(id, 'purchase', -21))
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failedConstraint(refused, 'CHECK', 'users_credits_check')).toBe(true);
    expect(await creditsOf(id)).toBe(20);
    expect(await ledgerRowsOf(id)).toBe(0);
  });

  it('debits exactly under many concurrent inserts, never below zero', async () => {
    const id = await account(50);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        db()
          .insert(ledger)
          .values(row(id, 'purchase', -7)),
      ),
    );
    const made = results.filter((r) => r.status === 'fulfilled').length;
    expect(made).toBe(7);
    expect(await creditsOf(id)).toBe(50 - 7 * 7);
    expect(await ledgerRowsOf(id)).toBe(7);
  });
});

describe('a license key', () => {
  async function product() {
    const productId = newId();
    const keyTag = uniqueTag();
    await db().insert(products).values({ id: productId, name: 'Triggered', keyTag, baseCreditCost: 1, createdAt: new Date() });
    const key = (purchasedBy: string | null, purchasePrice: number, paidBy: string | null = null, createdBy = paidBy) => {
      const id = newId();
      return {
        id,
        key: `${keyTag}-${id.toUpperCase()}`,
        status: purchasedBy ? ('used' as const) : ('available' as const),
        productId,
        productName: 'Triggered',
        productKeyTag: keyTag,
        productType: 'software' as const,
        duration: 30,
        maxActivations: 1,
        purchasedBy,
        createdBy,
        paidBy,
        purchasePrice,
        createdAt: new Date(1_800_000_000_000),
      };
    };
    const figures = () =>
      db()
        .select({ generated: products.totalGenerated, sold: products.totalSold, revenue: products.revenue })
        .from(products)
        .where(eq(products.id, productId))
        .get();
    return { key, figures };
  }

  it('counts on its product as it goes in: every key as generated, a bought one also as sold for its price', async () => {
    const { key, figures } = await product();
    const buyer = await account(0);
    await db()
      .insert(licenseKeys)
      .values([key(null, 0), key(null, 0), key(buyer, 40), key(buyer, 0)]);
    expect(await figures()).toEqual({ generated: 4, sold: 2, revenue: 40 });
  });

  it('with a payer, writes the payer ledger row, which takes the credits', async () => {
    const { key } = await product();
    const [customer, reseller] = [await account(100), await account(500)];
    const own = key(customer, 30, customer);
    const forCustomer = key(customer, 45, reseller);
    await db().insert(licenseKeys).values([own, forCustomer]);
    expect([await creditsOf(customer), await creditsOf(reseller)]).toEqual([70, 455]);
    const rows = await db().select().from(ledger).where(eq(ledger.reference, own.id)).all();
    expect(rows).toEqual([
      {
        id: expect.stringMatching(/^6b49d200[0-9a-f]{16}$/) as unknown,
        userId: customer,
        actorId: customer,
        kind: 'purchase',
        creditsDelta: -30,
        usdCentsDelta: 0,
        reference: own.id,
        note: 'Triggered, 30 days',
        createdAt: own.createdAt,
      },
    ]);
    const [resold] = await db().select().from(ledger).where(eq(ledger.reference, forCustomer.id)).all();
    expect(resold).toMatchObject({ userId: reseller, actorId: reseller, creditsDelta: -45, note: `Triggered, 30 days (for ${customer})` });
  });

  it('with a payer short of credits or gone, goes in not at all: no key, no ledger row, no figures', async () => {
    const { key, figures } = await product();
    const poor = await account(10);
    const short = key(poor, 11, poor);
    expect(
      failedConstraint(
        await db()
          .insert(licenseKeys)
          .values(short)
          .then(
            () => null,
            (err: unknown) => err,
          ),
        'CHECK',
        'users_credits_check',
      ),
    ).toBe(true);
    const gone = key(poor, 1, newId());
    expect(
      failedConstraint(
        await db()
          .insert(licenseKeys)
          .values(gone)
          .then(
            () => null,
            (err: unknown) => err,
          ),
        'NOT NULL',
        'ledger.user_id',
      ),
    ).toBe(true);
    expect(await db().select().from(licenseKeys).where(eq(licenseKeys.productId, short.productId)).all()).toEqual([]);
    expect(await ledgerRowsOf(poor)).toBe(0);
    expect(await creditsOf(poor)).toBe(10);
    expect(await figures()).toEqual({ generated: 0, sold: 0, revenue: 0 });
  });

  it('without a payer (generated, or a free direct purchase), writes no ledger row', async () => {
    const { key, figures } = await product();
    const customer = await account(5);
    const free = key(customer, 0, null);
    await db()
      .insert(licenseKeys)
      .values([key(null, 0), free]);
    expect(await db().select().from(ledger).where(eq(ledger.reference, free.id)).all()).toEqual([]);
    expect(await creditsOf(customer)).toBe(5);
    expect(await figures()).toEqual({ generated: 2, sold: 1, revenue: 0 });
  });
});

describe('an activation', () => {
  const at = 1_800_000_500_000;

  async function keys() {
    const productId = newId();
    const keyTag = uniqueTag();
    await db().insert(products).values({ id: productId, name: 'Activated', keyTag, baseCreditCost: 1, createdAt: new Date() });
    const key = async (fields: Partial<typeof licenseKeys.$inferInsert>) => {
      const id = newId();
      await db()
        .insert(licenseKeys)
        .values({
          id,
          key: `${keyTag}-${id.toUpperCase()}`,
          status: 'available',
          productId,
          productName: 'Activated',
          productKeyTag: keyTag,
          productType: 'software',
          duration: 30,
          maxActivations: 3,
          createdAt: new Date(1_800_000_000_000),
          ...fields,
        });
      return id;
    };
    const activate = (keyId: string, device: string, when = at) =>
      db()
        .insert(activations)
        .values({ id: newId(), keyId, deviceFingerprint: device, activatedAt: new Date(when) })
        .onConflictDoNothing();
    const keyRow = async (id: string) =>
      (await db()
        .select({ status: licenseKeys.status, firstUsedAt: licenseKeys.firstUsedAt, expiresAt: licenseKeys.expiresAt })
        .from(licenseKeys)
        .where(eq(licenseKeys.id, id))
        .get())!;
    const activationsCounted = async () =>
      (await db().select({ n: products.totalActivations }).from(products).where(eq(products.id, productId)).get())!.n;
    return { key, activate, keyRow, activationsCounted };
  }

  it("starts a generated key's clock at its first device: used, first used then, expiring its duration later", async () => {
    const { key, activate, keyRow } = await keys();
    const generated = await key({});
    await activate(generated, 'first');
    expect(await keyRow(generated)).toEqual({ status: 'used', firstUsedAt: new Date(at), expiresAt: new Date(at + 30 * DAY_MS) });
    // A second device changes neither the first use nor the expiry.
    await activate(generated, 'second', at + DAY_MS);
    expect(await keyRow(generated)).toEqual({ status: 'used', firstUsedAt: new Date(at), expiresAt: new Date(at + 30 * DAY_MS) });
  });

  it("leaves a bought key's expiry and any other status as they are, noting its first use", async () => {
    const { key, activate, keyRow } = await keys();
    const bought = await key({ status: 'used', expiresAt: new Date(at + 5 * DAY_MS) });
    const revoked = await key({ status: 'revoked', expiresAt: null });
    await activate(bought, 'device');
    await activate(revoked, 'device');
    expect(await keyRow(bought)).toEqual({ status: 'used', firstUsedAt: new Date(at), expiresAt: new Date(at + 5 * DAY_MS) });
    expect(await keyRow(revoked)).toEqual({ status: 'revoked', firstUsedAt: new Date(at), expiresAt: null });
  });

  it('counts on its product once per device made; an insert that does nothing counts nothing', async () => {
    const { key, activate, activationsCounted } = await keys();
    const [a, b] = [await key({}), await key({})];
    await activate(a, 'one');
    await activate(a, 'two');
    await activate(b, 'one');
    await activate(a, 'one'); // the same device again: nothing inserted
    expect(await activationsCounted()).toBe(3);
  });
});
