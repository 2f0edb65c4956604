import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, ledger, licenseKeys, products, users } from '../../../platform/db/schema';
import { analyticsQueries, systemAnalytics } from '../analytics';
import { newId } from '../../../platform/ids';
import { api, db, signedInUser } from '../../../test/helpers';
import { queryPlan } from '../../../test/key-admin-helpers';
import { OWNER_ONLY, roleMatrix } from '../../../test/role-matrix';
import { uniqueTag } from '../../../test/shop-helpers';
import { DAY_MS } from '../../../platform/vocabulary';

roleMatrix(
  'GET /api/admin/analytics',
  {
    request: () => ({ method: 'GET', path: '/api/admin/analytics?days=7' }),
    state: () => null,
    allowed: (res) => {
      expect(res.body.days).toBe(7);
      expect(res.body.daily).toHaveLength(7);
    },
  },
  OWNER_ONLY,
);

describe('GET /api/admin/analytics', () => {
  it('covers the last 7, 30 or 90 UTC days up to today, 30 by default', async () => {
    const { token } = await signedInUser('owner');
    const today = new Date().toISOString().slice(0, 10);
    for (const days of [7, 30, 90]) {
      const res = await api('GET', `/api/admin/analytics?days=${days}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.daily).toHaveLength(days);
      expect(res.body.to).toBe(today);
      expect(res.body.daily.at(-1)!.date).toBe(today);
      expect(res.body.daily[0].date).toBe(res.body.from);
      expect(new Date(res.body.to).getTime() - new Date(res.body.from).getTime()).toBe((days - 1) * DAY_MS);
    }
    expect((await api('GET', '/api/admin/analytics', { token })).body.days).toBe(30);
    for (const days of ['14', '0', 'abc', '7.5']) {
      const res = await api('GET', `/api/admin/analytics?days=${days}`, { token });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('days must be 7, 30 or 90');
    }
  });
});

describe('systemAnalytics', () => {
  // A week in 2001 that no other test writes to, so the figures are exactly this test's rows.
  const now = Date.UTC(2001, 2, 10, 15, 0, 0);
  const day = (n: number, hour = 12) => new Date(Date.UTC(2001, 2, 10 - n, hour));

  it('counts revenue, keys sold, sales by product, new users and activations per day', async () => {
    const [alpha, beta] = [
      { id: newId(), name: 'Analytics Alpha', keyTag: uniqueTag() },
      { id: newId(), name: 'Analytics Beta', keyTag: uniqueTag() },
    ];
    await db()
      .insert(products)
      .values([alpha, beta].map((p) => ({ ...p, baseCreditCost: 1, createdAt: day(30) })))
      .run();
    const buyer = newId();
    await db()
      .insert(users)
      .values([
        // Credits for the purchases' ledger rows below to take.
        { id: buyer, username: `an${uniqueTag()}`, email: `${uniqueTag()}@a.example`, credits: 1000, createdAt: day(0, 1) },
        { id: newId(), username: `an${uniqueTag()}`, email: `${uniqueTag()}@a.example`, createdAt: day(0, 23) },
        { id: newId(), username: `an${uniqueTag()}`, email: `${uniqueTag()}@a.example`, createdAt: day(6) },
        // The day before the period starts.
        { id: newId(), username: `an${uniqueTag()}`, email: `${uniqueTag()}@a.example`, createdAt: day(7, 23) },
      ])
      .run();
    const key = (product: typeof alpha, at: Date, price: number, sold = true) => ({
      id: newId(),
      key: `${product.keyTag}-${newId().toUpperCase()}`,
      status: sold ? ('used' as const) : ('available' as const),
      productId: product.id,
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: 'software' as const,
      duration: 30,
      maxActivations: 1,
      purchasedAt: sold ? at : null,
      purchasedBy: sold ? buyer : null,
      purchasePrice: price,
      createdAt: at,
    });
    const keys = [
      key(alpha, day(0), 30),
      key(alpha, day(2), 10),
      key(beta, day(2), 50),
      key(beta, day(2), 0),
      key(alpha, day(1), 0, false),
      key(beta, day(9), 99),
    ];
    // In two statements: D1 binds at most 100 parameters to one.
    await db().insert(licenseKeys).values(keys.slice(0, 3)).run();
    await db().insert(licenseKeys).values(keys.slice(3)).run();
    // Ledger rows of the paid sales; the free one (price 0) has none, and other kinds do not count.
    await db()
      .insert(ledger)
      .values([
        { id: newId(), userId: buyer, kind: 'purchase', creditsDelta: -30, reference: keys[0].id, createdAt: day(0) },
        { id: newId(), userId: buyer, kind: 'purchase', creditsDelta: -10, reference: keys[1].id, createdAt: day(2) },
        { id: newId(), userId: buyer, kind: 'purchase', creditsDelta: -50, reference: keys[2].id, createdAt: day(2) },
        { id: newId(), userId: buyer, kind: 'exchange', creditsDelta: 500, createdAt: day(2) },
        { id: newId(), userId: buyer, kind: 'purchase', creditsDelta: -99, createdAt: day(9) },
      ])
      .run();
    await db()
      .insert(activations)
      .values([
        { id: newId(), keyId: keys[0].id, deviceFingerprint: 'a1', activatedAt: day(0) },
        { id: newId(), keyId: keys[2].id, deviceFingerprint: 'a2', activatedAt: day(1) },
        { id: newId(), keyId: keys[5].id, deviceFingerprint: 'a3', activatedAt: day(8) },
      ])
      .run();

    const week = await systemAnalytics(db(), 7, now);
    expect(week).toMatchObject({ days: 7, from: '2001-03-04', to: '2001-03-10' });
    expect(week.daily).toEqual([
      { date: '2001-03-04', revenue: 0, keysSold: 0, newUsers: 1, activations: 0 },
      { date: '2001-03-05', revenue: 0, keysSold: 0, newUsers: 0, activations: 0 },
      { date: '2001-03-06', revenue: 0, keysSold: 0, newUsers: 0, activations: 0 },
      { date: '2001-03-07', revenue: 0, keysSold: 0, newUsers: 0, activations: 0 },
      { date: '2001-03-08', revenue: 60, keysSold: 3, newUsers: 0, activations: 0 },
      { date: '2001-03-09', revenue: 0, keysSold: 0, newUsers: 0, activations: 1 },
      { date: '2001-03-10', revenue: 30, keysSold: 1, newUsers: 2, activations: 1 },
    ]);
    expect(week.totals).toEqual({ revenue: 90, keysSold: 4, newUsers: 3, activations: 2 });
    expect(week.salesByProduct).toEqual([
      // As many keys each: the larger revenue first.
      { productId: beta.id, name: 'Analytics Beta', keyTag: beta.keyTag, keysSold: 2, revenue: 50 },
      { productId: alpha.id, name: 'Analytics Alpha', keyTag: alpha.keyTag, keysSold: 2, revenue: 40 },
    ]);

    const month = await systemAnalytics(db(), 30, now);
    expect(month.totals).toEqual({ revenue: 189, keysSold: 5, newUsers: 4, activations: 3 });
    expect(month.salesByProduct[0]).toMatchObject({ productId: beta.id, keysSold: 3, revenue: 149 });
  });

  it('follows the rows it counts out: a key deleted, a device removed, an account deleted', async () => {
    // A day of its own in 2001.
    const at = new Date(Date.UTC(2001, 5, 20, 12));
    const later = Date.UTC(2001, 5, 21, 12);
    const product = { id: newId(), name: 'Analytics Gamma', keyTag: uniqueTag() };
    await db()
      .insert(products)
      .values({ ...product, baseCreditCost: 1, createdAt: at })
      .run();
    const buyer = newId();
    await db()
      .insert(users)
      .values({ id: buyer, username: `an${uniqueTag()}`, email: `${uniqueTag()}@a.example`, createdAt: at })
      .run();
    const keyIds = [newId(), newId()];
    await db()
      .insert(licenseKeys)
      .values(
        keyIds.map((id) => ({
          id,
          key: `${product.keyTag}-${newId().toUpperCase()}`,
          status: 'used' as const,
          productId: product.id,
          productName: product.name,
          productKeyTag: product.keyTag,
          productType: 'software' as const,
          duration: 30,
          maxActivations: 1,
          purchasedAt: at,
          purchasedBy: buyer,
          purchasePrice: 7,
          createdAt: at,
        })),
      )
      .run();
    const device = newId();
    await db().insert(activations).values({ id: device, keyId: keyIds[0], deviceFingerprint: 'g1', activatedAt: at }).run();
    const before = await systemAnalytics(db(), 7, later);
    expect(before.totals).toEqual({ revenue: 0, keysSold: 2, newUsers: 1, activations: 1 });
    expect(before.salesByProduct).toEqual([
      { productId: product.id, name: product.name, keyTag: product.keyTag, keysSold: 2, revenue: 14 },
    ]);

    await db().delete(activations).where(eq(activations.id, device)).run();
    await db().delete(licenseKeys).where(eq(licenseKeys.id, keyIds[1])).run();
    await db().delete(users).where(eq(users.id, buyer)).run();
    const after = await systemAnalytics(db(), 7, later);
    expect(after.totals).toEqual({ revenue: 0, keysSold: 1, newUsers: 0, activations: 0 });
    expect(after.salesByProduct).toEqual([{ productId: product.id, name: product.name, keyTag: product.keyTag, keysSold: 1, revenue: 7 }]);
    await db().delete(licenseKeys).where(eq(licenseKeys.id, keyIds[0])).run();
    expect((await systemAnalytics(db(), 7, later)).salesByProduct).toEqual([]);
  });

  it('reads a row a day from the rollups, and the payments through their time index', async () => {
    const queries = analyticsQueries(db(), 0, 1);
    const expected: Record<keyof typeof queries, RegExp> = {
      figures: /SEARCH daily_figures USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/,
      keysSold: /SEARCH daily_sales USING (COVERING )?INDEX sqlite_autoindex_daily_sales_1 \(day>\? AND day<\?\)/,
      salesByProduct: /SEARCH daily_sales USING (COVERING )?INDEX sqlite_autoindex_daily_sales_1 \(day>\? AND day<\?\)/,
      payments: /USING (COVERING )?INDEX payments_created_idx\b/,
    };
    for (const [name, query] of Object.entries(queries) as Array<[keyof typeof queries, (typeof queries)[keyof typeof queries]]>) {
      const plan = (await queryPlan(query.toSQL())).join('\n');
      expect(plan, name).toMatch(expected[name]);
      expect(plan, name).not.toMatch(/SCAN (ledger|license_keys|users|activations|payments|daily_figures|daily_sales)\b(?! USING)/);
    }
  });
});
