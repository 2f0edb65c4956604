// A reseller's statistics from the figures migration 0033's triggers keep (issue 48), held to the
// ledger walk they replaced (ledger-walk.ts) after every kind of change: purchases for customers,
// customers' purchases (commissions), the reseller's own, revocations, deletions of keys, keys whose
// expiry passed, customers moved to another reseller, to none or deleted, new customers, and ledger
// rows dated in the past (as an import writes them: under a held kind, then given theirs; and a
// commission written straight in), a few hundred at random; and under a burst of purchases at once.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { licenseKeys } from '../../../platform/db/schema';
import { DAY_MS } from '../../../platform/vocabulary';
import { newId } from '../../../platform/ids';
import { api, db, openSessionAt, signedInUser, TEST_PASSWORD, uniqueName, unreconciledUsers } from '../../../test/helpers';
import { tokenFor } from '../../../test/role-matrix';
import { makeProduct, userRow } from '../../../test/shop-helpers';
import type { ResellerFigures } from '../schemas';
import { listResellerFigures, resellerStatistics } from '../statistics';
import { comparable, walkResellerFigures, type GoneKey } from './ledger-walk';

type Signed = Awaited<ReturnType<typeof signedInUser>>;
type Customer = { id: string; token: string };

const owner = () => tokenFor('owner');
const DAYS = 30;

/** A reseller in a tier of their own (a commission and a discount on every product), with credits. */
async function reseller(credits = 1_000_000) {
  const tier = await api('POST', '/api/admin/reseller-tiers', {
    token: await owner(),
    body: { name: uniqueName('Figures tier '), discountPercent: 20, commissionPercent: 10 },
  });
  expect(tier.status).toBe(201);
  const made = await signedInUser('reseller', { credits });
  expect(
    (await api('PUT', `/api/admin/resellers/${made.user.id}/tier`, { token: await owner(), body: { tierId: tier.body._id } })).status,
  ).toBe(200);
  return made;
}

/** A customer registered through the reseller's link, with credits to buy with. */
async function customerOf(seller: Signed, credits = 100_000): Promise<Customer> {
  const code = (await userRow(seller.user.id))!.referralCode!;
  const username = uniqueName('figcust');
  const res = await api('POST', '/api/auth/register', {
    body: { username, email: `${username}@example.com`, password: TEST_PASSWORD, ref: code },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id: string = res.body.user._id;
  const funds = await api('POST', `/api/admin/users/${id}/balance`, { token: await owner(), body: { amount: credits, type: 'credits' } });
  expect(funds.status).toBe(200);
  return { id, token: res.body.token };
}

/** The statistics (and the owner's comparison row) equal the ledger walk's, now. */
async function expectFiguresOfTheWalk(resellerId: string, gone: Map<string, GoneKey>) {
  const now = Date.now();
  const stats = await resellerStatistics(db(), resellerId, DAYS, now);
  const walked = await walkResellerFigures(env.DB, resellerId, DAYS, now, gone);
  expect(comparable(stats)).toEqual(walked);
  // The screen's order: by credits earned, then spent.
  const order = stats.byProduct.map((p) => [-p.earned, -p.spent]);
  expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  const compared = await listResellerFigures(db(), { page: 1, limit: 10_000 });
  const row = (compared.resellers as ResellerFigures[]).find((r) => r._id === resellerId);
  expect(row).toMatchObject({
    customers: walked.allTime.customers,
    earned: walked.allTime.earned,
    spent: walked.allTime.spent,
    keysForCustomers: walked.allTime.keysForCustomers,
    customerPurchases: walked.allTime.customerPurchases,
  });
  return walked;
}

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A ledger row as an import writes it: under a held kind (no trigger knows it), the balance moved by the batch, then given its kind. */
async function importedLedgerRow(userId: string, kind: 'commission' | 'purchase', credits: number, reference: string, at: number) {
  const id = newId();
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, reference, note, created_at) VALUES (?1, ?2, NULL, ?3, ?4, ?5, 'imported', ?6)`,
    ).bind(id, userId, `import:${kind}`, kind === 'commission' ? credits : -credits, reference, at),
    env.DB.prepare(`UPDATE users SET credits = credits + ?2 WHERE id = ?1`).bind(userId, kind === 'commission' ? credits : -credits),
    env.DB.prepare(`UPDATE ledger SET kind = substr(kind, 8) WHERE id = ?1 AND kind LIKE 'import:%'`).bind(id),
  ]);
}

describe('a reseller’s figures (migration 0033)', () => {
  it('equal the ledger walk after a few hundred changes of every kind, at random', async () => {
    const products = await Promise.all([10, 25, 40].map((cost) => makeProduct({ baseCreditCost: cost, creditsPerDay: 0 })));
    const [seller, rival] = await Promise.all([reseller(), reseller()]);
    const customers: Customer[] = await Promise.all([0, 1, 2, 3].map(() => customerOf(seller)));
    const keys: string[] = [];
    const gone = new Map<string, GoneKey>();
    const next = random(48);
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
    const token = await owner();
    const done: Record<string, number> = {};
    for (let step = 0; step < 300; step++) {
      const roll = next();
      const product = pick(products);
      const customer = customers.length ? pick(customers) : null;
      let op: string;
      if (roll < 0.3 && customer) {
        op = 'customer buys';
        const res = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 1 } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        keys.push(res.body.licenseKey._id);
      } else if (roll < 0.5 && customer) {
        op = 'bought for a customer';
        const res = await api('POST', `/api/admin/users/${customer.id}/purchase/${product.id}`, {
          token: seller.token,
          body: { duration: 1, useResellerCredits: true },
        });
        // A customer moved to another reseller, or to none, may be refused to this one (the shop's setting).
        expect([201, 403, 409], JSON.stringify(res.body)).toContain(res.status);
        if (res.status === 201) keys.push(res.body.licenseKey._id);
      } else if (roll < 0.55) {
        op = 'the reseller buys for themselves';
        const res = await api('POST', '/api/keys/purchase', { token: seller.token, body: { productId: product.id, duration: 1 } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        keys.push(res.body.licenseKey._id);
      } else if (roll < 0.63 && keys.length) {
        op = 'revoked';
        const res = await api('PUT', `/api/keys/${pick(keys)}/revoke`, { token, body: { reason: 'figures' } });
        expect([200, 400, 409]).toContain(res.status);
      } else if (roll < 0.7 && keys.length) {
        op = 'key deleted';
        const id = pick(keys);
        const key = (await db().select().from(licenseKeys).where(eq(licenseKeys.id, id)).get())!;
        gone.set(id, {
          productId: key.productId,
          name: key.productName,
          keyTag: key.productKeyTag,
          generationMethod: key.generationMethod,
        });
        expect((await api('DELETE', `/api/admin/keys/${id}`, { token })).status).toBe(200);
        keys.splice(keys.indexOf(id), 1);
      } else if (roll < 0.74 && keys.length) {
        op = 'expiry passed';
        // Used, with an expiry passed that the scheduled job has not marked yet.
        await env.DB.prepare(`UPDATE license_keys SET status = 'used', expires_at = ?2 WHERE id = ?1 AND status != 'revoked'`)
          .bind(pick(keys), Date.now() - 1_000)
          .run();
      } else if (roll < 0.8 && customer) {
        op = 'customer moved';
        const to = pick([rival.user.id, null, seller.user.id]);
        expect((await api('PUT', `/api/admin/users/${customer.id}/reseller`, { token, body: { resellerId: to } })).status).toBe(200);
      } else if (roll < 0.84) {
        op = 'new customer';
        customers.push(await customerOf(seller));
      } else if (roll < 0.87 && customer) {
        op = 'customer deleted';
        expect((await api('DELETE', `/api/admin/users/${customer.id}`, { token })).status).toBe(200);
        customers.splice(customers.indexOf(customer), 1);
      } else if (roll < 0.95) {
        op = 'imported, dated in the past';
        // Within the period or before it; naming a key here, one deleted since, or one never here.
        const reference = next() < 0.6 && keys.length ? pick(keys) : next() < 0.5 && gone.size ? pick([...gone.keys()]) : newId();
        await importedLedgerRow(
          seller.user.id,
          next() < 0.5 ? 'commission' : 'purchase',
          1 + Math.floor(next() * 30),
          reference,
          Date.now() - Math.floor(next() * 60) * DAY_MS,
        );
      } else {
        op = 'commission dated in the past';
        if (!keys.length) continue;
        await env.DB.prepare(
          `INSERT INTO ledger (id, user_id, kind, credits_delta, reference, note, created_at) VALUES (?1, ?2, 'commission', ?3, ?4, 'late', ?5)`,
        )
          .bind(newId(), seller.user.id, 1 + Math.floor(next() * 9), pick(keys), Date.now() - Math.floor(next() * 45) * DAY_MS)
          .run();
      }
      done[op] = (done[op] ?? 0) + 1;
      if (step % 50 === 49) await expectFiguresOfTheWalk(seller.user.id, gone);
    }
    // Every kind of change happened.
    expect(Object.keys(done).sort(), JSON.stringify(done)).toHaveLength(11);
    const walked = await expectFiguresOfTheWalk(seller.user.id, gone);
    await expectFiguresOfTheWalk(rival.user.id, gone);
    // A key deleted since still counts under its product; a row whose key was never here under "Deleted keys".
    expect(walked.byProduct.map((p) => p.productId)).toEqual(expect.arrayContaining(products.map((p) => p.id)));
    expect(walked.byProduct.find((p) => p.productId === null)).toMatchObject({ name: 'Deleted keys' });
    expect(walked.keysForCustomersByStatus.expired).toBeGreaterThan(0);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('keep counting a key deleted since under its product (the walk of the ledger alone put it under "Deleted keys")', async () => {
    const product = await makeProduct({ baseCreditCost: 30, creditsPerDay: 0 });
    const seller = await reseller();
    const customer = await customerOf(seller);
    const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 1 } });
    expect(bought.status).toBe(201);
    expect((await api('DELETE', `/api/admin/keys/${bought.body.licenseKey._id}`, { token: await owner() })).status).toBe(200);
    const stats = await resellerStatistics(db(), seller.user.id, 7);
    expect(stats.byProduct).toEqual([
      { productId: product.id, name: product.name, keyTag: product.keyTag, earned: 3, spent: 0, keysForCustomers: 0, customerPurchases: 1 },
    ]);
  });

  it("are kept for resellers only: a customer's purchase writes none, and an account made a reseller is counted from its ledger", async () => {
    const products = await Promise.all([14, 22].map((cost) => makeProduct({ baseCreditCost: cost, creditsPerDay: 0 })));
    const buyer = await signedInUser('user', { credits: 10_000 });
    const figureRows = async () =>
      (await env.DB.prepare(
        `SELECT (SELECT count(*) FROM reseller_days WHERE reseller_id = ?1) + (SELECT count(*) FROM reseller_products WHERE reseller_id = ?1)
              + (SELECT count(*) FROM reseller_product_days WHERE reseller_id = ?1)
              + (SELECT count(*) FROM reseller_figures WHERE reseller_id = ?1 AND (earned != 0 OR spent != 0 OR customer_purchases != 0)) AS n`,
      )
        .bind(buyer.user.id)
        .first<{ n: number }>())!.n;
    let token = buyer.token;
    const buy = async () => {
      for (const product of products) {
        const res = await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
    };
    // A session names its role: a changed role needs a new one.
    const setRole = async (role: 'user' | 'reseller') => {
      await env.DB.prepare(`UPDATE users SET role = ?2 WHERE id = ?1`).bind(buyer.user.id, role).run();
      token = await openSessionAt({ id: buyer.user.id, role }, Date.now());
    };
    await buy();
    // A customer: no figures written, and no statistics to read.
    expect(await figureRows()).toBe(0);
    await expect(resellerStatistics(db(), buyer.user.id, DAYS)).rejects.toMatchObject({ status: 404 });
    // Made a reseller: what they bought before counts, as the walk counts it; and so does what they buy next.
    await setRole('reseller');
    expect((await expectFiguresOfTheWalk(buyer.user.id, new Map())).totals.spent).toBe(14 + 22);
    await buy();
    expect((await expectFiguresOfTheWalk(buyer.user.id, new Map())).totals.spent).toBe(2 * (14 + 22));
    // A customer again: the figures go; made a reseller once more, they are counted afresh, the purchases in between too.
    await setRole('user');
    expect(await figureRows()).toBe(0);
    await buy();
    expect(await figureRows()).toBe(0);
    await setRole('reseller');
    expect((await expectFiguresOfTheWalk(buyer.user.id, new Map())).totals.spent).toBe(3 * (14 + 22));
  });

  it('are exact after a burst of purchases at once, by the reseller for customers and by their customers', async () => {
    const products = await Promise.all([12, 31].map((cost) => makeProduct({ baseCreditCost: cost, creditsPerDay: 0 })));
    const seller = await reseller();
    const customers = await Promise.all(Array.from({ length: 8 }, () => customerOf(seller)));
    const burst = await Promise.all(
      Array.from({ length: 48 }, (_, i) => {
        const customer = customers[i % customers.length];
        const product = products[i % products.length];
        return i % 2
          ? api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 1 } })
          : api('POST', `/api/admin/users/${customer.id}/purchase/${product.id}`, {
              token: seller.token,
              body: { duration: 1, useResellerCredits: true },
            });
      }),
    );
    expect(burst.map((r) => r.status)).toEqual(burst.map(() => 201));
    const walked = await expectFiguresOfTheWalk(seller.user.id, new Map());
    // 24 of each: every one counted once.
    expect(walked.totals).toMatchObject({ keysForCustomers: 24, customerPurchases: 24 });
    expect(walked.totals.earned).toBeGreaterThan(0);
    expect(walked.totals.spent).toBeGreaterThan(0);
    expect(walked.allTime.customers).toBe(8);
    expect(Object.values(walked.keysForCustomersByStatus).reduce((a, b) => a + b)).toBe(24);
    expect(walked.allTime.keysForCustomers).toBe(24);
    // The counters themselves, as the triggers left them after the burst.
    const kept = await env.DB.prepare(
      `SELECT customers, earned, spent, customer_purchases AS customerPurchases,
              (SELECT sum(n) FROM reseller_key_counts WHERE reseller_id = ?1) AS keysForCustomers
         FROM reseller_figures WHERE reseller_id = ?1`,
    )
      .bind(seller.user.id)
      .first();
    expect(kept).toEqual(walked.allTime);
  });
});
