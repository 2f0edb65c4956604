// Resellers who earn (issue 32): tiers with a wholesale discount, a product scope and a daily cap;
// referral links and referred customers; a commission in the very statement of a customer's
// purchase; the ledger reconciling under a burst; a reseller's own statistics and customers, which no
// other reseller reads. Tiers given to one reseller each live in the shared database; a default tier
// (which would price every other file's resellers) only in this file's own (RESELLERS_DB).
import { env } from 'cloudflare:test';
import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, ledger, licenseKeys, resellerTiers } from '../../../platform/db/schema';
import { api, db, signedInUser, TEST_PASSWORD, uniqueName, unreconciledUsers } from '../../../test/helpers';
import { tokenFor } from '../../../test/role-matrix';
import { sandbox } from '../../../test/sandbox';
import { keysBoughtBy, makeProduct, productRow, userRow } from '../../../test/shop-helpers';
import { DAY_MS } from '../../../platform/vocabulary';
import { purchaseKey } from '../../keys';
import { tierQuote, type ResellerTierInput } from '../schemas';

type Signed = Awaited<ReturnType<typeof signedInUser>>;

const owner = () => tokenFor('owner');
const ledgerOf = (userId: string) => db().select().from(ledger).where(eq(ledger.userId, userId)).orderBy(asc(ledger.id)).all();
const commissionsOf = async (resellerId: string) => (await ledgerOf(resellerId)).filter((l) => l.kind === 'commission');
const buyFor = (token: string, userId: string, productId: string, duration: number) =>
  api('POST', `/api/admin/users/${userId}/purchase/${productId}`, { token, body: { duration, useResellerCredits: true } });
const buy = (token: string, productId: string, duration: number) =>
  api('POST', '/api/keys/purchase', { token, body: { productId, duration } });

async function makeTier(input: Partial<ResellerTierInput> = {}) {
  const res = await api('POST', '/api/admin/reseller-tiers', {
    token: await owner(),
    body: { name: uniqueName('Tier '), discountPercent: 20, commissionPercent: 10, ...input },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A reseller in a tier of their own, with a customer who registered through their referral link. */
async function resellerInTier(input: Partial<ResellerTierInput> = {}, credits = 10_000) {
  const tier = await makeTier(input);
  const reseller = await signedInUser('reseller', { credits });
  const put = await api('PUT', `/api/admin/resellers/${reseller.user.id}/tier`, { token: await owner(), body: { tierId: tier._id } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return { tier, reseller };
}

/** Registers through the referral link's code; the new customer signed in, with credits given by the owner. */
async function referredCustomer(reseller: Signed, credits = 0) {
  const code = (await userRow(reseller.user.id))!.referralCode!;
  const username = uniqueName('cust');
  const email = `${username}@example.com`;
  const res = await api('POST', '/api/auth/register', { body: { username, email, password: TEST_PASSWORD, ref: code } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.user._id;
  if (credits) {
    const funds = await api('POST', `/api/admin/users/${id}/balance`, { token: await owner(), body: { amount: credits, type: 'credits' } });
    expect(funds.status).toBe(200);
  }
  return { user: { id }, token: res.body.token, username };
}

describe('reseller tiers (owner)', () => {
  it('are created, listed, changed and deleted, each change audited; bad input is a 400 that changes nothing', async () => {
    const product = await makeProduct();
    const token = await owner();
    const tier = await makeTier({ discountPercent: 30, commissionPercent: 5, productIds: [product.id], dailyKeyCap: 7 });
    expect(tier).toMatchObject({ discountPercent: 30, commissionPercent: 5, productIds: [product.id], dailyKeyCap: 7, isDefault: false });

    for (const [body, message] of [
      [{ name: '', discountPercent: 1, commissionPercent: 1 }, 'Name is required'],
      [{ name: 'x', discountPercent: 91, commissionPercent: 1 }, 'discountPercent must be at most 90'],
      [{ name: 'x', discountPercent: 1, commissionPercent: 2.5 }, 'commissionPercent must be a whole number'],
      [{ name: 'x', discountPercent: 1, commissionPercent: 1, dailyKeyCap: 0 }, 'dailyKeyCap must be at least 1'],
      [{ name: 'x', discountPercent: 1, commissionPercent: 1, productIds: [] }, 'Choose at least one product, or every product'],
      [
        { name: 'x', discountPercent: 1, commissionPercent: 1, productIds: ['0123456789abcdef01234567'] },
        'Unknown product: 0123456789abcdef01234567',
      ],
    ] as const) {
      const res = await api('POST', '/api/admin/reseller-tiers', { token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toBe(message);
    }
    const clash = await api('POST', '/api/admin/reseller-tiers', {
      token,
      body: { name: tier.name.toUpperCase(), discountPercent: 1, commissionPercent: 1 },
    });
    expect(clash.status).toBe(409);
    expect(await db().select().from(resellerTiers).where(eq(resellerTiers.name, 'x')).all()).toEqual([]);

    const changed = await api('PUT', `/api/admin/reseller-tiers/${tier._id}`, {
      token,
      body: { name: tier.name, discountPercent: 35, commissionPercent: 6, productIds: null },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ discountPercent: 35, commissionPercent: 6, productIds: null, dailyKeyCap: null });
    const listed = await api('GET', '/api/admin/reseller-tiers', { token });
    expect(listed.body.tiers.find((t: { _id: string }) => t._id === tier._id)).toMatchObject({ discountPercent: 35 });

    const reseller = await signedInUser('reseller');
    await api('PUT', `/api/admin/resellers/${reseller.user.id}/tier`, { token, body: { tierId: tier._id } });
    expect((await userRow(reseller.user.id))!.resellerTierId).toBe(tier._id);
    const gone = await api('DELETE', `/api/admin/reseller-tiers/${tier._id}`, { token });
    expect(gone.status).toBe(200);
    // Its reseller is back on the default terms.
    expect((await userRow(reseller.user.id))!.resellerTierId).toBeNull();
    expect((await api('DELETE', `/api/admin/reseller-tiers/${tier._id}`, { token })).status).toBe(404);
    const actions = await db().select().from(auditLog).where(eq(auditLog.targetId, tier._id)).orderBy(asc(auditLog.createdAt)).all();
    expect(actions.map((a) => a.action).sort()).toEqual(['reseller_tier.create', 'reseller_tier.delete', 'reseller_tier.update']);
  });

  it('puts only resellers in a tier, and only a tier that exists', async () => {
    const token = await owner();
    const tier = await makeTier();
    const customer = await signedInUser('user');
    const notReseller = await api('PUT', `/api/admin/resellers/${customer.user.id}/tier`, { token, body: { tierId: tier._id } });
    expect(notReseller.status).toBe(409);
    const reseller = await signedInUser('reseller');
    const unknown = await api('PUT', `/api/admin/resellers/${reseller.user.id}/tier`, {
      token,
      body: { tierId: '0123456789abcdef01234567' },
    });
    expect(unknown.status).toBe(400);
    expect((await userRow(reseller.user.id))!.resellerTierId).toBeNull();
  });

  it('has one default at most, which prices every reseller without a tier of their own', async () => {
    const box = await sandbox({ isolatedDb: env.RESELLERS_DB });
    const boss = await box.signedInUser('owner');
    const product = await box.api('POST', '/api/products', {
      token: boss.token,
      body: { name: 'Default tier', description: 'd', keyTag: 'DEFTIER', baseCreditCost: 100, creditsPerDay: 10 },
    });
    const make = (name: string, discountPercent: number) =>
      box.api('POST', '/api/admin/reseller-tiers', {
        token: boss.token,
        body: { name, discountPercent, commissionPercent: 0, isDefault: true },
      });
    const first = await make('Bronze', 10);
    const second = await make('Silver', 40);
    const tiers = (await box.api('GET', '/api/admin/reseller-tiers', { token: boss.token })).body.tiers;
    expect(tiers.map((t: { name: string; isDefault: boolean }) => [t.name, t.isDefault])).toEqual([
      ['Silver', true],
      ['Bronze', false],
    ]);
    const reseller = await box.signedInUser('reseller', { credits: 1000 });
    const customer = await box.signedInUser('user');
    const terms = await box.api('GET', '/api/admin/purchase-terms', { token: reseller.token });
    expect(terms.body.tier).toMatchObject({ _id: second.body._id, name: 'Silver', discountPercent: 40, keysBoughtToday: 0 });
    const bought = await box.api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.body._id}`, {
      token: reseller.token,
      body: { duration: 10 },
    });
    // 200 list, less 40%: 120.
    expect(bought.body.licenseKey.cost).toBe(120);
    expect(first.status).toBe(201);
  });
});

describe('the wholesale price', () => {
  it('is the list price less the tier discount (rounded in the reseller’s disfavour), shown in the terms before buying', async () => {
    expect(tierQuote({ baseCreditCost: 100, creditsPerDay: 10 }, 30, 25)).toMatchObject({ listPrice: 400, discount: 100, total: 300 });
    // 7 + 3 x 3 = 16; 16 x 15% = 2.4, so 2 off.
    expect(tierQuote({ baseCreditCost: 7, creditsPerDay: 3 }, 3, 15)).toMatchObject({ listPrice: 16, discount: 2, total: 14 });
    expect(tierQuote({ baseCreditCost: 7, creditsPerDay: 3 }, 3, 0).total).toBe(16);

    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10 });
    const { tier, reseller } = await resellerInTier({ discountPercent: 25, commissionPercent: 0 }, 1000);
    const terms = await api('GET', '/api/admin/purchase-terms', { token: reseller.token });
    expect(terms.body.tier).toEqual({
      _id: tier._id,
      name: tier.name,
      discountPercent: 25,
      commissionPercent: 0,
      productIds: null,
      dailyKeyCap: null,
      isDefault: false,
      keysBoughtToday: 0,
    });
    const customer = await signedInUser('user');
    const res = await buyFor(reseller.token, customer.user.id, product.id, 30);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ resellerCredits: 700, licenseKey: { cost: 300 } });
    expect((await ledgerOf(reseller.user.id)).filter((l) => l.kind === 'purchase')).toEqual([
      expect.objectContaining({ creditsDelta: -300, reference: res.body.licenseKey._id }),
    ]);
  });

  it('refuses a product the tier does not sell (403), changing nothing', async () => {
    const [sold, other] = await Promise.all([makeProduct(), makeProduct()]);
    const { reseller } = await resellerInTier({ productIds: [sold.id] });
    const customer = await signedInUser('user');
    const res = await buyFor(reseller.token, customer.user.id, other.id, 1);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/does not sell this product/);
    expect(await keysBoughtBy(customer.user.id)).toEqual([]);
    expect((await userRow(reseller.user.id))!.credits).toBe(10_000);
    expect((await buyFor(reseller.token, customer.user.id, sold.id, 1)).status).toBe(201);
  });

  it('holds the daily cap exactly when many purchases race', async () => {
    const product = await makeProduct({ baseCreditCost: 1, creditsPerDay: 1 });
    const { reseller } = await resellerInTier({ dailyKeyCap: 3 });
    const customers = await Promise.all([signedInUser('user'), signedInUser('user')]);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => buyFor(reseller.token, customers[i % 2].user.id, product.id, 1)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body.message).toMatch(/allows 3 keys for customers a day/);
    const keys = await db().select().from(licenseKeys).where(eq(licenseKeys.createdBy, reseller.user.id)).all();
    expect(keys).toHaveLength(3);
    expect((await userRow(reseller.user.id))!.credits).toBe(10_000 - 3 * 2);
    expect((await api('GET', '/api/admin/purchase-terms', { token: reseller.token })).body.tier!.keysBoughtToday).toBe(3);
    expect(await unreconciledUsers()).toEqual([]);
  });
});

describe('referred customers', () => {
  it('belong to the reseller whose link they registered through; a code naming no reseller is refused and makes no account', async () => {
    const reseller = await signedInUser('reseller');
    const code = (await userRow(reseller.user.id))!.referralCode!;
    expect(code).toMatch(/^[0-9A-F]{10}$/);
    const customer = await referredCustomer(reseller);
    expect((await userRow(customer.user.id))!.resellerId).toBe(reseller.user.id);

    const username = uniqueName('cust');
    const bad = await api('POST', '/api/auth/register', {
      body: { username, email: `${username}@example.com`, password: TEST_PASSWORD, ref: 'NOSUCHCODE' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'ref' } });
    const login = await api('POST', '/api/auth/login', { body: { email: `${username}@example.com`, password: TEST_PASSWORD } });
    expect(login.status).toBe(401);
  });

  it('a user made a reseller gets a referral code', async () => {
    const user = await signedInUser('user');
    expect((await userRow(user.user.id))!.referralCode).toBeNull();
    const res = await api('PUT', `/api/admin/users/${user.user.id}`, {
      token: await owner(),
      body: { role: 'reseller', currentPassword: TEST_PASSWORD },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await userRow(user.user.id))!.referralCode).toMatch(/^[0-9A-F]{10}$/);
  });

  it('are given to a reseller, or taken away, by the owner only, audited', async () => {
    const [first, second] = await Promise.all([signedInUser('reseller'), signedInUser('reseller')]);
    const customer = await signedInUser('user');
    const token = await owner();
    const give = await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, { token, body: { resellerId: first.user.id } });
    expect(give.status).toBe(200);
    expect((await userRow(customer.user.id))!.resellerId).toBe(first.user.id);
    // The reseller cannot move them.
    const taken = await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, {
      token: second.token,
      body: { resellerId: second.user.id },
    });
    expect(taken.status).toBe(403);
    // Only customers, and only to a reseller.
    const toUser = await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, { token, body: { resellerId: customer.user.id } });
    expect(toUser.status).toBe(400);
    const ofReseller = await api('PUT', `/api/admin/users/${second.user.id}/reseller`, { token, body: { resellerId: first.user.id } });
    expect(ofReseller.status).toBe(409);
    const none = await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, { token, body: { resellerId: null } });
    expect(none.status).toBe(200);
    expect((await userRow(customer.user.id))!.resellerId).toBeNull();
    const audit = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'customer.reseller_changed'), eq(auditLog.targetId, customer.user.id)))
      .orderBy(asc(auditLog.createdAt))
      .all();
    expect(audit.map((a) => [a.details!.from, a.details!.to])).toHaveLength(2);
    expect(audit.map((a) => [a.details!.from, a.details!.to])).toEqual(
      expect.arrayContaining([
        [null, first.user.id],
        [first.user.id, null],
      ]),
    );
  });

  it('are the only ones a reseller may buy for when the owner says so', async () => {
    const box = await sandbox({ settings: { resellersSellToOwnCustomersOnly: true } });
    const product = await makeProduct({ baseCreditCost: 1, creditsPerDay: 1 });
    const reseller = await box.signedInUser('reseller', { credits: 100 });
    const stranger = await box.signedInUser('user');
    const mine = await referredCustomer(reseller);
    const refused = await box.api('POST', `/api/admin/users/${stranger.user.id}/purchase/${product.id}`, {
      token: reseller.token,
      body: { duration: 1 },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/is not one of your customers/);
    const allowed = await box.api('POST', `/api/admin/users/${mine.user.id}/purchase/${product.id}`, {
      token: reseller.token,
      body: { duration: 1 },
    });
    expect(allowed.status).toBe(201);
    expect((await box.api('GET', '/api/admin/purchase-terms', { token: reseller.token })).body.resellersSellToOwnCustomersOnly).toBe(true);
  });
});

describe('the commission', () => {
  it('is earned in the same write as the referred customer’s purchase, named by its key, and a revoke or delete does not undo it', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 3 });
    const { reseller } = await resellerInTier({ commissionPercent: 15 }, 0);
    const customer = await referredCustomer(reseller, 500);
    const res = await buy(customer.token, product.id, 7);
    expect(res.status).toBe(201);
    // 10 + 21 = 31 credits; 15% is 4.65, so 4.
    expect(res.body.remainingCredits).toBe(469);
    const [commission] = await commissionsOf(reseller.user.id);
    expect(commission).toMatchObject({ creditsDelta: 4, reference: res.body.licenseKey._id, actorId: customer.user.id });
    expect((await userRow(reseller.user.id))!.credits).toBe(4);

    const token = await owner();
    await api('PUT', `/api/keys/${res.body.licenseKey._id}/revoke`, { token, body: { reason: 'test' } });
    await api('DELETE', `/api/admin/keys/${res.body.licenseKey._id}`, { token });
    expect(await commissionsOf(reseller.user.id)).toEqual([commission]);
    expect((await userRow(reseller.user.id))!.credits).toBe(4);
    // The owner's correction is its own audited ledger row.
    const corrected = await api('PUT', `/api/admin/users/${reseller.user.id}`, { token, body: { credits: 0 } });
    expect(corrected.status).toBe(200);
    const rows = (await ledgerOf(reseller.user.id)).map((l) => [l.kind, l.creditsDelta]);
    expect(rows.sort()).toEqual([
      ['admin_adjustment', -4],
      ['commission', 4],
    ]);
    const audited = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'user.update'), eq(auditLog.targetId, reseller.user.id)))
      .all();
    expect(audited.map((a) => a.details!.changes)).toEqual([{ credits: { from: 4, to: 0 } }]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('is not earned on a reseller’s purchase for the customer, by a customer of nobody, or under a tier that does not sell the product', async () => {
    const [sold, other] = await Promise.all([makeProduct({ baseCreditCost: 100 }), makeProduct({ baseCreditCost: 100 })]);
    const { reseller } = await resellerInTier({ commissionPercent: 50, productIds: [sold.id] });
    const customer = await referredCustomer(reseller, 10_000);
    const loner = await signedInUser('user', { credits: 10_000 });
    expect((await buyFor(reseller.token, customer.user.id, sold.id, 1)).status).toBe(201);
    expect((await buy(loner.token, sold.id, 1)).status).toBe(201);
    expect((await buy(customer.token, other.id, 1)).status).toBe(201);
    expect(await commissionsOf(reseller.user.id)).toEqual([]);
    expect((await buy(customer.token, sold.id, 1)).status).toBe(201);
    expect((await commissionsOf(reseller.user.id)).map((c) => c.creditsDelta)).toEqual([55]);
  });

  it('commits with the purchase or not at all: both or neither', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 0 });
    const { reseller } = await resellerInTier({ commissionPercent: 10 }, 0);
    const customer = await referredCustomer(reseller, 99);
    // The purchase fails (short of credits): no commission.
    expect((await buy(customer.token, product.id, 1)).status).toBe(402);
    expect(await commissionsOf(reseller.user.id)).toEqual([]);

    // The commission fails (a guard put on its ledger row for this test): no purchase either.
    await env.DB.prepare(
      `CREATE TRIGGER IF NOT EXISTS test_refuse_commission BEFORE INSERT ON ledger WHEN NEW.kind = 'commission' AND NEW.user_id = '${reseller.user.id}' BEGIN SELECT RAISE(ABORT, 'TEST_COMMISSION_REFUSED'); END`,
    ).run();
    try {
      await api('PUT', `/api/admin/users/${customer.user.id}`, { token: await owner(), body: { credits: 500 } });
      const order = { productId: product.id, days: 1, buyerId: customer.user.id, payerId: customer.user.id, actorId: customer.user.id };
      await expect(purchaseKey(db(), { ...order, generationMethod: 'purchase' })).rejects.toThrow(/TEST_COMMISSION_REFUSED/);
    } finally {
      await env.DB.prepare('DROP TRIGGER IF EXISTS test_refuse_commission').run();
    }
    expect(await keysBoughtBy(customer.user.id)).toEqual([]);
    expect((await userRow(customer.user.id))!.credits).toBe(500);
    expect(await commissionsOf(reseller.user.id)).toEqual([]);
    expect((await buy(customer.token, product.id, 1)).status).toBe(201);
    expect((await commissionsOf(reseller.user.id)).map((c) => c.creditsDelta)).toEqual([10]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('reconciles with every balance after a burst of 40 purchases at once across a reseller, their customers and others', async () => {
    const product = await makeProduct({ baseCreditCost: 20, creditsPerDay: 5 });
    // 2 days: list 30; the reseller pays 30 less 10% = 27; a customer's purchase earns 30 x 20% = 6.
    const { reseller } = await resellerInTier({ discountPercent: 10, commissionPercent: 20 }, 27 * 6);
    const customers = await Promise.all(Array.from({ length: 4 }, (_, i) => referredCustomer(reseller, 30 * (i + 2))));
    const others = await Promise.all(Array.from({ length: 3 }, () => signedInUser('user', { credits: 60 })));
    const calls = [
      // 16 customer purchases: each customer can afford i + 2 of 4 tries, so 2 + 3 + 4 + 4 = 13 succeed.
      ...customers.flatMap((c) =>
        Array.from({ length: 4 }, () => ({ who: 'customer', id: c.user.id, run: () => buy(c.token, product.id, 2) })),
      ),
      // 12 reseller purchases, for customers and others: credits for 6.
      ...Array.from({ length: 12 }, (_, i) => {
        const target = i % 2 ? customers[i % 4].user.id : others[i % 3].user.id;
        return { who: 'reseller', id: target, run: () => buyFor(reseller.token, target, product.id, 2) };
      }),
      // 12 purchases of others, who belong to nobody: 2 each succeed.
      ...others.flatMap((o) => Array.from({ length: 4 }, () => ({ who: 'other', id: o.user.id, run: () => buy(o.token, product.id, 2) }))),
    ];
    expect(calls).toHaveLength(40);
    const answers = await Promise.all(calls.map((c) => c.run()));
    const ok = (who: string) => answers.filter((a, i) => calls[i].who === who && a.status === 201);
    expect(answers.every((a) => a.status === 201 || a.status === 402)).toBe(true);
    expect(ok('customer')).toHaveLength(13);
    expect(ok('other')).toHaveLength(6);
    // The reseller's own credits buy 6 keys; commissions landing first may pay for more.
    const forCustomers = ok('reseller').length;
    expect(forCustomers).toBeGreaterThanOrEqual(6);

    const commissions = await commissionsOf(reseller.user.id);
    expect(commissions.map((c) => c.reference).sort()).toEqual(
      ok('customer')
        .map((a) => a.body.licenseKey._id)
        .sort(),
    );
    expect(commissions.every((c) => c.creditsDelta === 6 && c.actorId !== reseller.user.id)).toBe(true);
    const spent = (await ledgerOf(reseller.user.id)).filter((l) => l.kind === 'purchase');
    expect(spent.map((l) => l.reference).sort()).toEqual(
      ok('reseller')
        .map((a) => a.body.licenseKey._id)
        .sort(),
    );
    expect(spent.every((l) => l.creditsDelta === -27)).toBe(true);
    expect((await userRow(reseller.user.id))!.credits).toBe(27 * 6 - forCustomers * 27 + 13 * 6);
    for (const [i, c] of customers.entries()) expect((await userRow(c.user.id))!.credits).toBe(30 * (i + 2) - 30 * Math.min(i + 2, 4));
    for (const o of others) expect((await userRow(o.user.id))!.credits).toBe(0);
    expect(await productRow(product.id)).toMatchObject({ totalSold: 19 + forCustomers, revenue: 19 * 30 + forCustomers * 27 });
    expect(await unreconciledUsers()).toEqual([]);
  });
});

describe('a reseller’s statistics and customers', () => {
  it('count what they earned and spent per day and per product, their customers and their keys for customers by status', async () => {
    const [alpha, beta] = await Promise.all([
      makeProduct({ baseCreditCost: 50, creditsPerDay: 0 }),
      makeProduct({ baseCreditCost: 20, creditsPerDay: 0 }),
    ]);
    const { reseller } = await resellerInTier({ discountPercent: 50, commissionPercent: 10 }, 1000);
    const [first, second] = await Promise.all([referredCustomer(reseller, 200), referredCustomer(reseller, 0)]);
    expect((await buy(first.token, alpha.id, 1)).status).toBe(201);
    expect((await buy(first.token, alpha.id, 1)).status).toBe(201);
    const forSecond = await buyFor(reseller.token, second.user.id, beta.id, 1);
    expect(forSecond.status).toBe(201);
    await api('PUT', `/api/keys/${forSecond.body.licenseKey._id}/revoke`, { token: await owner(), body: { reason: 'test' } });

    const res = await api('GET', '/api/reseller/stats?days=7', { token: reseller.token });
    expect(res.status).toBe(200);
    const code = (await userRow(reseller.user.id))!.referralCode!;
    expect(res.body.reseller).toMatchObject({ _id: reseller.user.id, referralCode: code, referralPath: `/register?ref=${code}` });
    expect(res.body.daily).toHaveLength(7);
    expect(res.body.daily[6]).toEqual({ date: new Date().toISOString().slice(0, 10), earned: 10, spent: 10 });
    expect(res.body.totals).toEqual({ earned: 10, spent: 10, keysForCustomers: 1, customerPurchases: 2 });
    expect(res.body.byProduct).toEqual([
      expect.objectContaining({ productId: alpha.id, earned: 10, spent: 0, customerPurchases: 2, keysForCustomers: 0 }),
      expect.objectContaining({ productId: beta.id, earned: 0, spent: 10, customerPurchases: 0, keysForCustomers: 1 }),
    ]);
    expect(res.body.allTime).toEqual({ earned: 10, spent: 10, customers: 2, customerPurchases: 2, keysForCustomers: 1 });
    expect(res.body.keysForCustomersByStatus).toEqual({ available: 0, used: 0, revoked: 1, expired: 0 });

    const list = await api('GET', '/api/reseller/customers', { token: reseller.token });
    expect(list.body.total).toBe(2);
    expect(list.body.customers.find((c: { _id: string }) => c._id === first.user.id)).toMatchObject({
      purchases: 2,
      creditsSpent: 100,
      commissionEarned: 10,
      keysFromReseller: 0,
    });
    expect(list.body.customers.find((c: { _id: string }) => c._id === second.user.id)).toMatchObject({ purchases: 0, keysFromReseller: 1 });
    const searched = await api('GET', `/api/reseller/customers?search=${second.username.slice(0, -1)}`, { token: reseller.token });
    expect(searched.body.customers.map((c: { _id: string }) => c._id)).toContain(second.user.id);

    // The owner sees the same, and every reseller beside the others.
    const token = await owner();
    const seen = await api('GET', `/api/admin/resellers/${reseller.user.id}/stats?days=7`, { token });
    expect(seen.body.allTime).toEqual(res.body.allTime);
    const all = await api('GET', '/api/admin/resellers?limit=100', { token });
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThanOrEqual(1);
    // Only this file's resellers earn, so ours is on the first page, ordered by what they earned.
    const ours = all.body.resellers.find((r: { _id: string }) => r._id === reseller.user.id);
    expect(ours).toMatchObject({ customers: 2, earned: 10, spent: 10, keysForCustomers: 1, customerPurchases: 2 });
    expect((await api('GET', '/api/reseller/stats?days=5', { token: reseller.token })).status).toBe(400);
  });

  it('show each reseller the purchases a moved customer made while they were theirs, and only those (issue 42)', async () => {
    const product = await makeProduct({ baseCreditCost: 30, creditsPerDay: 0 });
    const [{ reseller: first }, { reseller: second }] = await Promise.all([
      resellerInTier({ commissionPercent: 10 }),
      resellerInTier({ commissionPercent: 20 }),
    ]);
    const customer = await referredCustomer(first, 300);
    const pause = () => new Promise((resolve) => setTimeout(resolve, 15));
    const move = async (to: string | null) => {
      await pause();
      const res = await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, { token: await owner(), body: { resellerId: to } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await pause();
    };
    const customerOf = async (reseller: Signed) => {
      const res = await api('GET', `/api/reseller/customers?search=${customer.username}`, { token: reseller.token });
      expect(res.status).toBe(200);
      return (
        res.body.customers as Array<{
          _id: string;
          purchases: number;
          creditsSpent: number;
          commissionEarned: number;
          customerUntil: string | null;
        }>
      ).find((c) => c._id === customer.user.id);
    };
    // Two purchases while the first reseller's, one while the second's, one while nobody's.
    expect((await buy(customer.token, product.id, 1)).status).toBe(201);
    expect((await buy(customer.token, product.id, 1)).status).toBe(201);
    await move(second.user.id);
    expect((await buy(customer.token, product.id, 1)).status).toBe(201);
    await move(null);
    expect((await buy(customer.token, product.id, 1)).status).toBe(201);

    const atFirst = await customerOf(first);
    expect(atFirst).toMatchObject({ purchases: 2, creditsSpent: 60, commissionEarned: 6 });
    expect(atFirst!.customerUntil).not.toBeNull();
    const atSecond = await customerOf(second);
    expect(atSecond).toMatchObject({ purchases: 1, creditsSpent: 30, commissionEarned: 6 });
    expect(atSecond!.customerUntil).not.toBeNull();
    expect(Date.parse(atSecond!.customerUntil!)).toBeGreaterThan(Date.parse(atFirst!.customerUntil!));

    // Back with the first: their stretches add up, and they are theirs again.
    await move(first.user.id);
    expect((await buy(customer.token, product.id, 1)).status).toBe(201);
    expect(await customerOf(first)).toMatchObject({ purchases: 3, creditsSpent: 90, commissionEarned: 9, customerUntil: null });
    expect(await customerOf(second)).toMatchObject({ purchases: 1, creditsSpent: 30 });
    // The owner's view of each reseller says the same.
    const asOwner = await api('GET', `/api/admin/resellers/${second.user.id}/customers?search=${customer.username}`, {
      token: await owner(),
    });
    expect(asOwner.body.customers).toEqual([expect.objectContaining({ _id: customer.user.id, purchases: 1 })]);
  });

  it('are read by the reseller’s API token', async () => {
    const { reseller } = await resellerInTier();
    const made = await api('POST', '/api/users/api-tokens', {
      token: reseller.token,
      body: { name: 'stats', role: 'reseller', readOnly: true, currentPassword: TEST_PASSWORD },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await api('GET', '/api/reseller/stats', { token: made.body.token });
    expect(res.status).toBe(200);
    expect(res.body.reseller._id).toBe(reseller.user.id);
    expect((await api('GET', '/api/reseller/customers', { token: made.body.token })).status).toBe(200);
  });

  it('are never another reseller’s: each reads only their own, and the owner’s views of any are refused to them', async () => {
    const a = await resellerInTier({ commissionPercent: 10 });
    const b = await resellerInTier({ commissionPercent: 10 });
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 0 });
    const bCustomer = await referredCustomer(b.reseller, 100);
    expect((await buy(bCustomer.token, product.id, 1)).status).toBe(201);

    const mine = await api('GET', '/api/reseller/stats', { token: a.reseller.token });
    expect(mine.body.reseller._id).toBe(a.reseller.user.id);
    expect(mine.body.allTime).toEqual({ earned: 0, spent: 0, customers: 0, customerPurchases: 0, keysForCustomers: 0 });
    expect((await api('GET', '/api/reseller/customers', { token: a.reseller.token })).body.customers).toEqual([]);
    // Asking for B's by any door is refused, with nothing of B in the answer.
    for (const path of [
      `/api/admin/resellers/${b.reseller.user.id}/stats`,
      `/api/admin/resellers/${b.reseller.user.id}/customers`,
      '/api/admin/resellers',
    ]) {
      const res = await api('GET', path, { token: a.reseller.token });
      expect(res.status, path).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain(b.reseller.user.id);
    }
    // A query naming B changes nothing: the reseller is always the caller.
    const named = await api('GET', `/api/reseller/customers?resellerId=${b.reseller.user.id}`, { token: a.reseller.token });
    expect(named.body.customers).toEqual([]);
    const ownerView = await api('GET', `/api/admin/resellers/${b.reseller.user.id}/customers`, { token: await owner() });
    expect(ownerView.body.customers.map((c: { _id: string }) => c._id)).toEqual([bCustomer.user.id]);
  });

  it('count whole UTC days', async () => {
    const { reseller } = await resellerInTier({ commissionPercent: 10 });
    const res = await api('GET', '/api/reseller/stats?days=30', { token: reseller.token });
    expect(res.body.daily).toHaveLength(30);
    expect(Date.parse(`${res.body.to}T00:00:00Z`) - Date.parse(`${res.body.from}T00:00:00Z`)).toBe(29 * DAY_MS);
  });
});
