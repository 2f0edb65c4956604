import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, ledger, licenseKeys } from '../../../platform/db/schema';
import { api, db, signedInUser, unreconciledUsers } from '../../../test/helpers';
import { RESELLER_AND_OWNER, roleMatrix, type Caller } from '../../../test/role-matrix';
import { sandbox } from '../../../test/sandbox';
import { keysBoughtBy, makeProduct, productRow, userRow } from '../../../test/shop-helpers';
import { DAY_MS, type Role } from '../../../platform/vocabulary';
import { resellerQuote } from '../schemas';

const buyFor = (token: string, userId: string, productId: string, body: unknown, headers?: Record<string, string>) =>
  api('POST', `/api/admin/users/${userId}/purchase/${productId}`, { token, body, headers });
const ledgerOf = (userId: string) => db().select().from(ledger).where(eq(ledger.userId, userId)).orderBy(asc(ledger.id)).all();
const auditOfKey = (keyId: string) =>
  db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, 'key.purchase_for_user'), eq(auditLog.targetId, keyId)))
    .all();

describe('the reseller price', () => {
  it('is baseCreditCost + ceil(days x creditsPerDay x (100 - discount) / 100)', () => {
    expect(resellerQuote({ baseCreditCost: 100, creditsPerDay: 10 }, 30, 25)).toEqual({
      days: 30,
      baseCost: 100,
      durationCost: 225,
      total: 325,
      discountPercent: 25,
      discountOn: 'days',
      listPrice: 400,
      discount: 75,
    });
    // 7 x 3 x 0.75 = 15.75, rounded up.
    expect(resellerQuote({ baseCreditCost: 5, creditsPerDay: 3 }, 7, 25).total).toBe(21);
    expect(resellerQuote({ baseCreditCost: 5, creditsPerDay: 3 }, 7, 0).total).toBe(26);
    expect(resellerQuote({ baseCreditCost: 5, creditsPerDay: 3 }, 7, 90).total).toBe(5 + 3);
    expect(resellerQuote({ baseCreditCost: 0, creditsPerDay: 0 }, 365, 25).total).toBe(0);
  });
});

// Each caller gets their own funded account and customer, so an allowed call has something to pay with.
const funded = new Map<Role, Promise<string>>();
const fundedToken = (role: Role) => {
  if (!funded.has(role))
    funded.set(
      role,
      signedInUser(role, { credits: 100_000 }).then((u) => u.token),
    );
  return funded.get(role)!;
};

roleMatrix(
  'POST /api/admin/users/{userId}/purchase/{productId}',
  {
    request: async (caller: Caller) => {
      const [product, customer] = await Promise.all([makeProduct(), signedInUser('user', { credits: 1000 })]);
      return {
        method: 'POST',
        path: `/api/admin/users/${customer.user.id}/purchase/${product.id}`,
        body: { duration: 3, bypassBalance: caller === 'owner', useResellerCredits: caller === 'reseller' },
      };
    },
    tokenFor: fundedToken,
    state: async (r) => {
      const [, , , , userId, , productId] = r.path.split('/');
      return {
        keys: await keysBoughtBy(userId),
        customer: await userRow(userId),
        ledger: await ledgerOf(userId),
        product: await productRow(productId),
      };
    },
    allowed: (res) => expect(res.body.licenseKey.key).toEqual(expect.any(String)),
  },
  RESELLER_AND_OWNER,
);

roleMatrix(
  'GET /api/admin/purchase-terms',
  {
    request: () => ({ method: 'GET', path: '/api/admin/purchase-terms' }),
    state: () => null,
    allowed: (res) =>
      expect(Object.keys(res.body).sort()).toEqual([
        'defaultDailyDiscount',
        'enableDirectPurchases',
        'enableResellerPurchases',
        'resellersSellToOwnCustomersOnly',
        'tier',
      ]),
  },
  RESELLER_AND_OWNER,
);

describe('GET /api/admin/purchase-terms', () => {
  it('gives the purchase screen the discount and the switches as the owner set them', async () => {
    const box = await sandbox({ settings: { defaultDailyDiscount: 40, enableDirectPurchases: false } });
    const reseller = await box.signedInUser('reseller');
    const res = await box.api('GET', '/api/admin/purchase-terms', { token: reseller.token });
    expect(res.body).toEqual({
      defaultDailyDiscount: 40,
      enableDirectPurchases: false,
      enableResellerPurchases: true,
      resellersSellToOwnCustomersOnly: false,
      tier: null,
    });
  });
});

describe('a reseller buying for a customer', () => {
  it('pays the reseller price with their own credits; the key is the customer’s and the reseller created it', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10, maxActivations: 2 });
    const reseller = await signedInUser('reseller', { credits: 1000 });
    const customer = await signedInUser('user', { credits: 50 });
    const before = Date.now();
    const res = await buyFor(reseller.token, customer.user.id, product.id, { duration: 30, bypassBalance: true, useResellerCredits: true });
    expect(res.status).toBe(201);
    // 100 + ceil(30 x 10 x 75 / 100) = 325, with the default 25% discount; bypassBalance means nothing here.
    expect(res.body).toMatchObject({
      resellerCredits: 675,
      remainingCredits: 675,
      licenseKey: {
        product: product.name,
        productId: product.id,
        duration: 30,
        cost: 325,
        purchasedBy: { _id: customer.user.id, username: customer.username },
      },
      message: `License key purchased for ${customer.username}`,
    });
    const [key] = await keysBoughtBy(customer.user.id);
    expect(key).toMatchObject({
      id: res.body.licenseKey._id,
      key: res.body.licenseKey.key,
      status: 'used',
      purchasedBy: customer.user.id,
      createdBy: reseller.user.id,
      generationMethod: 'reseller',
      purchasePrice: 325,
      duration: 30,
      maxActivations: 2,
    });
    expect(key.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 30 * DAY_MS);
    expect((await userRow(reseller.user.id))!.credits).toBe(675);
    expect((await userRow(customer.user.id))!.credits).toBe(50);
    expect((await ledgerOf(reseller.user.id)).filter((l) => l.kind === 'purchase')).toEqual([
      expect.objectContaining({ actorId: reseller.user.id, creditsDelta: -325, reference: key.id }),
    ]);
    expect((await ledgerOf(customer.user.id)).filter((l) => l.kind === 'purchase')).toEqual([]);
    expect(await productRow(product.id)).toMatchObject({ totalSold: 1, totalGenerated: 1, revenue: 325 });
    expect(await auditOfKey(key.id)).toEqual([
      expect.objectContaining({
        actorId: reseller.user.id,
        targetType: 'license_key',
        details: {
          key: key.key,
          product: product.name,
          days: 30,
          cost: 325,
          customer: { _id: customer.user.id, username: customer.username },
          paidBy: 'reseller',
        },
      }),
    ]);

    // The customer sees it in My Keys; the reseller in their admin key list.
    const mine = await api('GET', '/api/users/my-keys', { token: customer.token });
    expect(mine.body.keys.map((k: { key: string }) => k.key)).toContain(key.key);
    const sold = await api('GET', `/api/admin/keys?product=${product.id}`, { token: reseller.token });
    expect(sold.body.keys.map((k: { _id: string }) => k._id)).toEqual([key.id]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('is refused without enough credits, with the breakdown at the reseller price, changing nothing', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 10 });
    const reseller = await signedInUser('reseller', { credits: 324 });
    const customer = await signedInUser('user', { credits: 10_000 });
    const res = await buyFor(reseller.token, customer.user.id, product.id, { duration: 30, useResellerCredits: true });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      details: { requiredCredits: 325, availableCredits: 324, baseCost: 100, durationCost: 225, days: 30 },
    });
    expect((await userRow(reseller.user.id))!.credits).toBe(324);
    expect((await userRow(customer.user.id))!.credits).toBe(10_000);
    expect(await keysBoughtBy(customer.user.id)).toEqual([]);
  });

  it('cannot sell to themselves at the reseller price', async () => {
    const product = await makeProduct();
    const reseller = await signedInUser('reseller', { credits: 10_000 });
    const res = await buyFor(reseller.token, reseller.user.id, product.id, { duration: 1, useResellerCredits: true });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Resellers buy keys for themselves in the shop; choose a customer here');
    expect((await userRow(reseller.user.id))!.credits).toBe(10_000);
  });

  it.each(['reseller', 'owner'] as const)(
    'cannot buy at the reseller price for a %s: 403, nothing charged, nothing changed',
    async (role) => {
      const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
      const reseller = await signedInUser('reseller', { credits: 10_000 });
      const other = await signedInUser(role, { credits: 500 });
      const before = {
        product: await productRow(product.id),
        ledger: await ledgerOf(reseller.user.id),
        other: await userRow(other.user.id),
      };
      const res = await buyFor(reseller.token, other.user.id, product.id, { duration: 3, useResellerCredits: true });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        code: 'FORBIDDEN',
        message: 'Resellers buy keys for customers only; choose an account with the user role',
        details: { field: 'userId' },
      });
      expect((await userRow(reseller.user.id))!.credits).toBe(10_000);
      expect(await ledgerOf(reseller.user.id)).toEqual(before.ledger);
      expect(await userRow(other.user.id)).toEqual(before.other);
      expect(await productRow(product.id)).toEqual(before.product);
      expect(await keysBoughtBy(other.user.id)).toEqual([]);
      expect(await db().select().from(licenseKeys).where(eq(licenseKeys.createdBy, reseller.user.id)).all()).toEqual([]);
    },
  );

  it('spends exact credits when many purchases race: never below zero, never a credit twice', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 4 });
    // 10 + ceil(5 x 4 x 0.75) = 25 a key; credits for exactly three.
    const reseller = await signedInUser('reseller', { credits: 75 });
    const customers = await Promise.all(Array.from({ length: 3 }, () => signedInUser('user')));
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        buyFor(reseller.token, customers[i % 3].user.id, product.id, { duration: 5, useResellerCredits: true }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 201, 201, 402, 402, 402, 402, 402, 402, 402]);
    expect((await userRow(reseller.user.id))!.credits).toBe(0);
    const keys = await db().select().from(licenseKeys).where(eq(licenseKeys.createdBy, reseller.user.id)).all();
    expect(keys).toHaveLength(3);
    expect(keys.every((k) => k.purchasePrice === 25)).toBe(true);
    expect((await ledgerOf(reseller.user.id)).filter((l) => l.kind === 'purchase').map((l) => l.creditsDelta)).toEqual([-25, -25, -25]);
    expect(await productRow(product.id)).toMatchObject({ totalSold: 3, revenue: 75 });
    expect(
      answers
        .filter((a) => a.status === 201)
        .map((a) => a.body.resellerCredits)
        .sort(),
    ).toEqual([0, 25, 50]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('answers a retried request (same Idempotency-Key) as the first time, charging once', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 0 });
    const reseller = await signedInUser('reseller', { credits: 100 });
    const customer = await signedInUser('user');
    const headers = { 'Idempotency-Key': `retry-${Date.now()}` };
    const body = { duration: 1, useResellerCredits: true };
    const [first, second] = await Promise.all([
      buyFor(reseller.token, customer.user.id, product.id, body, headers),
      buyFor(reseller.token, customer.user.id, product.id, body, headers),
    ]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.licenseKey.key).toBe(first.body.licenseKey.key);
    expect((await userRow(reseller.user.id))!.credits).toBe(90);
    expect(await keysBoughtBy(customer.user.id)).toHaveLength(1);
  });
});

describe('the owner’s direct purchase', () => {
  it('charges the customer at the list price', async () => {
    const product = await makeProduct({ baseCreditCost: 20, creditsPerDay: 2 });
    const owner = await signedInUser('owner', { credits: 7 });
    const customer = await signedInUser('user', { credits: 100 });
    const res = await buyFor(owner.token, customer.user.id, product.id, { duration: 10, bypassBalance: false, useResellerCredits: false });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ licenseKey: { cost: 40 }, remainingCredits: 60, resellerCredits: 7 });
    const [key] = await keysBoughtBy(customer.user.id);
    expect(key).toMatchObject({ createdBy: owner.user.id, generationMethod: 'direct', purchasePrice: 40, status: 'used' });
    expect((await userRow(customer.user.id))!.credits).toBe(60);
    expect((await userRow(owner.user.id))!.credits).toBe(7);
    expect((await ledgerOf(customer.user.id)).filter((l) => l.kind === 'purchase')).toEqual([
      expect.objectContaining({ actorId: owner.user.id, creditsDelta: -40 }),
    ]);
    expect((await auditOfKey(key.id))[0].details).toMatchObject({ paidBy: 'customer', cost: 40 });
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('may still buy for a reseller or another owner (the owner’s purchase is not the reseller price)', async () => {
    const product = await makeProduct({ baseCreditCost: 5, creditsPerDay: 1 });
    const owner = await signedInUser('owner');
    for (const role of ['reseller', 'owner'] as const) {
      const account = await signedInUser(role, { credits: 100 });
      const res = await buyFor(owner.token, account.user.id, product.id, { duration: 5 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ licenseKey: { cost: 10 }, remainingCredits: 90 });
    }
  });

  it('needs the customer’s credits unless bypassing, which gives the key for free', async () => {
    const product = await makeProduct({ baseCreditCost: 20, creditsPerDay: 2 });
    const owner = await signedInUser('owner');
    const customer = await signedInUser('user', { credits: 5 });
    const short = await buyFor(owner.token, customer.user.id, product.id, { duration: 10 });
    expect(short.status).toBe(402);
    expect(short.body.details).toEqual({ requiredCredits: 40, availableCredits: 5, baseCost: 20, durationCost: 20, days: 10 });
    expect(await keysBoughtBy(customer.user.id)).toEqual([]);

    const free = await buyFor(owner.token, customer.user.id, product.id, { duration: 10, bypassBalance: true });
    expect(free.status).toBe(201);
    expect(free.body).toMatchObject({ licenseKey: { cost: 0 }, remainingCredits: null });
    const [key] = await keysBoughtBy(customer.user.id);
    expect(key).toMatchObject({ purchasePrice: 0, generationMethod: 'direct', createdBy: owner.user.id });
    expect((await userRow(customer.user.id))!.credits).toBe(5);
    expect((await ledgerOf(customer.user.id)).filter((l) => l.kind === 'purchase')).toEqual([]);
    expect((await auditOfKey(key.id))[0].details).toMatchObject({ paidBy: 'nobody', cost: 0 });
    expect(await productRow(product.id)).toMatchObject({ totalSold: 1, revenue: 0 });
  });
});

describe('what every purchase for a customer checks', () => {
  it('validates the body, the product, the duration and the customer', async () => {
    const product = await makeProduct({ minDays: 2, maxDays: 5 });
    const owner = await signedInUser('owner');
    const customer = await signedInUser('user', { credits: 1000 });
    const call = (body: unknown, userId = customer.user.id, productId = product.id) => buyFor(owner.token, userId, productId, body);
    expect((await call({})).body.message).toBe('Duration must be a number of days');
    expect((await call({ duration: 0 })).body.message).toBe('Duration must be at least 1 day');
    expect((await call({ duration: 2.5 })).body.message).toBe('Duration must be a whole number of days');
    expect((await call({ duration: 3, bypassBalance: 'yes' })).body.message).toBe('bypassBalance must be true or false');
    expect((await call({ duration: 3, useResellerCredits: 1 })).body.message).toBe('useResellerCredits must be true or false');
    expect((await call({ duration: 6 })).body.message).toBe(`Duration must be a whole number of days between 2 and 5 for ${product.name}`);
    expect((await call({ duration: 1 })).status).toBe(400);
    expect((await call({ duration: 3 }, 'no-such-user')).body).toMatchObject({ code: 'NOT_FOUND', message: 'User not found' });
    expect((await call({ duration: 3 }, customer.user.id, 'no-such-product')).body).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Product not found',
    });
    const inactive = await makeProduct({ isActive: false });
    expect((await call({ duration: 1 }, customer.user.id, inactive.id)).status).toBe(404);
    await api('PUT', `/api/admin/users/${customer.user.id}`, { token: owner.token, body: { isActive: false } });
    const deactivated = await call({ duration: 3 });
    expect(deactivated.status).toBe(409);
    expect(deactivated.body.message).toBe(`${customer.username}'s account is deactivated: keys cannot be bought for it`);
    expect(await keysBoughtBy(customer.user.id)).toEqual([]);
    expect((await userRow(customer.user.id))!.credits).toBe(1000);
  });

  it('is switched off by enableResellerPurchases and enableDirectPurchases', async () => {
    const product = await makeProduct({ baseCreditCost: 1, creditsPerDay: 0 });
    const noResale = await sandbox({ settings: { enableResellerPurchases: false } });
    const noDirect = await sandbox({ settings: { enableDirectPurchases: false } });
    const customer = await signedInUser('user', { credits: 100 });
    const body = { duration: 1, bypassBalance: false, useResellerCredits: true };

    const reseller = await noResale.signedInUser('reseller', { credits: 100 });
    const refused = await noResale.api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, {
      token: reseller.token,
      body,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 'PURCHASES_DISABLED', message: 'Reseller purchases are turned off in the settings' });
    const owner = await noResale.signedInUser('owner');
    expect(
      (await noResale.api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, { token: owner.token, body })).status,
    ).toBe(201);

    const owner2 = await noDirect.signedInUser('owner');
    const off = await noDirect.api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, { token: owner2.token, body });
    expect(off.status).toBe(403);
    expect(off.body).toEqual({ code: 'PURCHASES_DISABLED', message: 'Direct purchases are turned off in the settings' });
    const reseller2 = await noDirect.signedInUser('reseller', { credits: 100 });
    expect(
      (await noDirect.api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, { token: reseller2.token, body })).status,
    ).toBe(201);

    expect((await userRow(reseller.user.id))!.credits).toBe(100);
    expect(await keysBoughtBy(customer.user.id)).toHaveLength(2);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('applies the discount the owner sets', async () => {
    const box = await sandbox({ settings: { defaultDailyDiscount: 50 } });
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 3 });
    const reseller = await box.signedInUser('reseller', { credits: 100 });
    const customer = await signedInUser('user');
    const res = await box.api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, {
      token: reseller.token,
      body: { duration: 5, useResellerCredits: true },
    });
    // 10 + ceil(5 x 3 x 50 / 100) = 10 + 8.
    expect(res.body.licenseKey.cost).toBe(18);
    expect((await userRow(reseller.user.id))!.credits).toBe(82);
  });
});
