// The rows each hot request reads (and each write writes), as D1 counts and bills them (each
// statement's result metadata), held to a bound on a shop large enough that a query which scans a
// table cannot hide: 4,000 keys, 2,000 activations, 1,500 accounts and their ledger. A licensing call reads the key and its
// devices; a customer's page reads their own keys, whatever the shop's size; the owner's lists and
// Overview read their page and the shop's counts (shop_counts), never the tables they count.
// docs/performance.md has the same bounds beside the figures the benchmark measures at 200,000
// and 2,000,000 keys.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateShop, writeShop, type KeyRow, type Shop, type UserRow } from '../../scripts/demo-shop/generator';
import { MISCOUNTED_KEYS_SQL } from '../../scripts/demo-shop/recount';
import { comparable, walkResellerFigures } from '../modules/resellers/test/ledger-walk';
import { resellerStatistics } from '../modules/resellers/statistics';
import { newId } from '../platform/ids';
import { DAY_MS } from '../platform/vocabulary';
import { db } from './helpers';
import { api, openSessionAt } from './helpers';
import { instrumentedWorker } from './instrumented';

const SHOP = { products: 20, customers: 1_500, keys: 4_000, activations: 2_000 };
/**
 * The owner's search by a product's name or keyTag: the products (SHOP.products, for the name), the
 * product's counts by status, each status's newest 15 keys, and the page's 15 keys as JSON (about 30
 * rows each: their devices, users and product). The product's 200 keys (SHOP.keys / SHOP.products),
 * read once more, would pass it.
 */
const SEARCH_ROWS = 600;
/** The product the owner's product searches name: the one with the most keys. */
const searchedProduct = () => {
  const keys = new Map<string, number>();
  for (const k of shop.keys) keys.set(k.product_id, (keys.get(k.product_id) ?? 0) + 1);
  return shop.products.filter((p) => p.is_active === 1).sort((a, b) => keys.get(b.id)! - keys.get(a.id)!)[0];
};
/**
 * A reseller's statistics over 90 days: a row a day, five a product (its row, and a seek and a row of
 * its running totals at each end of the period), the all-time row, the key counters, the session.
 */
const RESELLER_STATS_ROWS = 90 + 5 * SHOP.products + 20;
/** The customer whose My Keys is read: far more keys than a page. */
const COLLECTOR_KEYS = 120;

type Call = {
  name: string;
  method: 'GET' | 'POST';
  path: () => string;
  body?: () => unknown;
  as: 'collector' | 'owner' | 'reseller' | 'shopper' | 'none';
  /** At most this many rows read per request. */
  maxRowsRead: number;
  /** A write: at most this many rows written per request, index entries included (each is billed as a row). */
  maxRowsWritten?: number;
};

let shop: Shop;
let resellerId: string;
let tokens: Record<Exclude<Call['as'], 'none'>, string>;
let device: { key: string; fingerprint: string };
let freshKeys: KeyRow[];
let collectorKeys: KeyRow[];

beforeAll(async () => {
  const now = Date.now();
  shop = generateShop({
    now,
    historyDays: 90,
    seed: 48,
    products: SHOP.products,
    resellers: 10,
    customers: SHOP.customers,
    keys: SHOP.keys,
    activations: SHOP.activations,
    accounts: [
      { username: 'rows-owner', email: 'owner@rows.test', role: 'owner', passwordHash: null, credits: 0, balanceCents: 0 },
      {
        username: 'rows-collector',
        email: 'collector@rows.test',
        role: 'user',
        passwordHash: null,
        credits: 0,
        balanceCents: 0,
        keys: COLLECTOR_KEYS,
      },
      { username: 'rows-shopper', email: 'shopper@rows.test', role: 'user', passwordHash: null, credits: 1_000_000, balanceCents: 0 },
    ],
    passwordHash: null,
    availableShare: 0.3,
    activatedGeneratedShare: 0.05,
    revokedShare: 0.03,
    customerCredits: (_, random) => Math.floor(random * 5_000),
    usernames: (i) => `rowscustomer${String(i).padStart(5, '0')}`,
  });
  await writeShop(env.DB, shop);
  const named = (username: string) => shop.byUsername.get(username)!;
  const session = (u: UserRow) => openSessionAt({ id: u.id, role: u.role }, Date.now());
  const reseller = shop.users.find((u) => u.role === 'reseller')!;
  resellerId = reseller.id;
  tokens = {
    owner: await session(named('rows-owner')),
    collector: await session(named('rows-collector')),
    shopper: await session(named('rows-shopper')),
    reseller: await session(reseller),
  };
  const keyById = new Map(shop.keys.map((k) => [k.id, k]));
  const live = shop.activations.find((a) => {
    const k = keyById.get(a.key_id)!;
    return k.status === 'used' && k.expires_at !== null && k.expires_at > now + 86_400_000;
  })!;
  device = { key: keyById.get(live.key_id)!.key, fingerprint: live.device_fingerprint };
  const active = new Set(shop.products.filter((p) => p.is_active === 1).map((p) => p.id));
  freshKeys = shop.keys.filter((k) => k.status === 'available' && active.has(k.product_id));
  collectorKeys = shop.keys.filter((k) => k.purchased_by === named('rows-collector').id);
}, 120_000);

let fresh = 0;
const calls: Call[] = [
  {
    name: 'validate',
    method: 'POST',
    path: () => '/api/v1/licenses/validate',
    body: () => ({ key: device.key, deviceFingerprint: device.fingerprint }),
    as: 'none',
    maxRowsRead: 10,
    // The device was last seen long ago: its lastUsed, an unindexed column.
    maxRowsWritten: 1,
  },
  {
    name: 'activate',
    method: 'POST',
    path: () => '/api/v1/licenses/activate',
    body: () => ({ key: freshKeys[fresh++].key, deviceFingerprint: `rows-device-${fresh}` }),
    as: 'none',
    maxRowsRead: 35,
    // A key's first device: the device (its row and index entries), the day's figure, the key's history
    // line, and the key's start (its row, the indexes that hold its status or expiry, its counts).
    // Migration 0036 took out three index entries nothing read (23 before).
    maxRowsWritten: 20,
  },
  {
    name: 'purchase',
    method: 'POST',
    path: () => '/api/keys/purchase',
    body: () => {
      const p = shop.products.find((x) => x.is_active === 1)!;
      return { productId: p.id, duration: p.min_days };
    },
    as: 'shopper',
    // A customer's purchase writes no reseller's figures (migration 0033 keeps those for resellers).
    maxRowsRead: 30,
    maxRowsWritten: 20,
  },
  // A customer's own keys: counted for the page's total, then the page (license_keys_purchaser_idx).
  { name: 'my keys', method: 'GET', path: () => '/api/users/my-keys?page=3&limit=10', as: 'collector', maxRowsRead: 2.5 * COLLECTOR_KEYS },
  {
    name: 'my keys ?search',
    method: 'GET',
    path: () => `/api/users/my-keys?search=${encodeURIComponent(collectorKeys[0].product_key_tag)}`,
    as: 'collector',
    maxRowsRead: 2.5 * COLLECTOR_KEYS,
  },
  // The pages up to this one (an offset) with the page's devices, and the counts from shop_counts.
  {
    name: 'admin keys ?status',
    method: 'GET',
    path: () => '/api/admin/keys?limit=15&page=4&status=used',
    as: 'owner',
    maxRowsRead: 300,
  },
  {
    name: 'admin keys ?search',
    method: 'GET',
    path: () => `/api/admin/keys?limit=15&search=${encodeURIComponent(shop.keys[17].key.slice(0, 11))}`,
    as: 'owner',
    maxRowsRead: 60,
  },
  // A product by name, and by keyTag (which also names its keys by prefix): the product's counts by
  // status and its newest keys of each status, never its 200 keys (SHOP.keys / SHOP.products).
  {
    name: 'admin keys ?search=product name',
    method: 'GET',
    path: () => `/api/admin/keys?limit=15&search=${encodeURIComponent(searchedProduct().name)}`,
    as: 'owner',
    maxRowsRead: SEARCH_ROWS,
  },
  {
    name: 'admin keys ?search=keyTag&status',
    method: 'GET',
    path: () => `/api/admin/keys?limit=15&status=available&search=${encodeURIComponent(searchedProduct().key_tag)}`,
    as: 'owner',
    maxRowsRead: SEARCH_ROWS,
  },
  // The counts by status and by role from shop_counts, the products, the newest accounts and keys.
  { name: 'admin stats', method: 'GET', path: () => '/api/admin/stats', as: 'owner', maxRowsRead: 150 },
  { name: 'admin users', method: 'GET', path: () => '/api/admin/users?limit=15&page=3', as: 'owner', maxRowsRead: 120 },
  // The resellers' figures (migration 0033): a row a day, a few a product, the all-time row and key
  // counters, whatever the reseller sold (the ledger walk it replaced read every row of theirs).
  {
    name: 'reseller stats 90d',
    method: 'GET',
    path: () => '/api/reseller/stats?days=90',
    as: 'reseller',
    maxRowsRead: RESELLER_STATS_ROWS,
  },
  // The rollups (migration 0032): a row a day of figures, and a day's products twice (sold by day, by
  // product), whatever the keys, ledger, accounts and devices of the period.
  {
    name: 'analytics 90d',
    method: 'GET',
    path: () => '/api/admin/analytics?days=90',
    as: 'owner',
    maxRowsRead: 90 + 2 * 90 * SHOP.products + 100,
  },
];

describe('rows read (and, for a write, written) per request', () => {
  it.each(calls.map((call) => [call.name, call] as const))('%s', async (_, call) => {
    // Once to warm what an isolate keeps (a product's price, the shop's counts), then measured.
    const cost = await instrumentedWorker().warmCost((fetch) =>
      api(call.method, call.path(), { token: call.as === 'none' ? undefined : tokens[call.as], body: call.body?.(), fetch }),
    );
    expect(cost.rowsRead, `rows read by ${call.name}`).toBeGreaterThan(0);
    expect(cost.rowsRead, `rows read by ${call.name}`).toBeLessThanOrEqual(call.maxRowsRead);
    if (call.maxRowsWritten !== undefined)
      expect(cost.rowsWritten, `rows written by ${call.name}`).toBeLessThanOrEqual(call.maxRowsWritten);
  });
});

describe("the owner's search as a product grows", () => {
  it('reads the same rows whether the product it names has its keys or 2,000 more', async () => {
    const product = searchedProduct();
    const searches = [
      `search=${encodeURIComponent(product.name)}`,
      `search=${encodeURIComponent(product.key_tag)}&status=available`,
      `search=${encodeURIComponent(product.key_tag)}&status=expired&page=2`,
    ];
    const costs = () =>
      Promise.all(
        searches.map(async (query) => {
          const cost = await instrumentedWorker().warmCost((fetch) =>
            api('GET', `/api/admin/keys?limit=15&${query}`, { token: tokens.owner, fetch }),
          );
          return cost.rowsRead;
        }),
      );
    const totalOf = async () =>
      (await api('GET', `/api/admin/keys?limit=15&search=${searches[0].slice(7)}`, { token: tokens.owner })).body.total;
    const before = await costs();
    const keysBefore = await totalOf();
    for (let i = 0; i < 20; i++) {
      const res = await api('POST', '/api/keys/generate', { token: tokens.owner, body: { productId: product.id, quantity: 100 } });
      expect(res.status).toBe(201);
    }
    expect(await totalOf()).toBe(keysBefore + 2_000);
    const after = await costs();
    // The page's keys differ (new ones, without devices), so a few rows either way; the product's
    // 2,000 new keys, read even once, would be far past this.
    for (const [i, cost] of after.entries()) expect(cost, searches[i]).toBeLessThanOrEqual(before[i] + 20);
  }, 60_000);
});

describe('the shop as written', () => {
  it('has the counts and daily figures of its rows (their triggers run as it is written)', async () => {
    const n = async (sql: string, ...params: unknown[]) =>
      (await env.DB.prepare(sql)
        .bind(...params)
        .first<{ n: number }>())!.n;
    const stats = await api('GET', '/api/admin/stats', { token: tokens.owner });
    expect(stats.body.totalKeys).toBe(await n('SELECT count(*) AS n FROM license_keys'));
    expect(stats.body.totalUsers).toBe(await n('SELECT count(*) AS n FROM users'));
    const analytics = await api('GET', '/api/admin/analytics?days=90', { token: tokens.owner });
    const from = Date.parse(`${analytics.body.from}T00:00:00Z`);
    expect(analytics.body.totals).toEqual({
      keysSold: await n('SELECT count(*) AS n FROM license_keys WHERE purchased_at IS NOT NULL AND created_at >= ?1', from),
      revenue: await n("SELECT coalesce(-sum(credits_delta), 0) AS n FROM ledger WHERE kind = 'purchase' AND created_at >= ?1", from),
      newUsers: await n('SELECT count(*) AS n FROM users WHERE created_at >= ?1', from),
      activations: await n('SELECT count(*) AS n FROM activations WHERE activated_at >= ?1', from),
    });
    expect(analytics.body.totals.keysSold).toBeGreaterThan(1_000);
    // The keys by product and status, and by tag and product (migration 0034), for the owner's search.
    expect(await n('SELECT sum(n) AS n FROM product_key_counts')).toBe(await n('SELECT count(*) AS n FROM license_keys'));
    expect(await n(MISCOUNTED_KEYS_SQL)).toBe(0);
  });

  it("has each reseller's figures of its rows (their triggers run as it is written)", async () => {
    const now = Date.now();
    const resellers = shop.users.filter((u) => u.role === 'reseller');
    expect(resellers.length).toBe(10);
    let sold = 0;
    for (const r of resellers) {
      const walked = await walkResellerFigures(env.DB, r.id, 90, now);
      expect(comparable(await resellerStatistics(db(), r.id, 90, now)), r.username).toEqual(walked);
      sold += walked.allTime.spent + walked.allTime.keysForCustomers;
    }
    expect(sold).toBeGreaterThan(0);
  });
});

describe("a reseller's statistics as the reseller sells more", () => {
  /**
   * `count` keys bought by the reseller for their customers, on the given (day back, product) pairs
   * in turn, as the purchase writes them (the key with its payer: its trigger writes the ledger row).
   */
  async function sell(count: number, pairs: [number, number][]) {
    const now = Date.now();
    const customers = shop.users.filter((u) => u.role === 'user');
    const keys = Array.from({ length: count }, (_, i) => {
      const [back, p] = pairs[i % pairs.length];
      const product = shop.products[p];
      const at = now - back * DAY_MS - (i % 1_000);
      return { id: newId(), key: `GROW-${newId()}`, product, at, customer: customers[i % customers.length].id };
    });
    // Credits for them (the test's own: the shop's reseller has a few thousand).
    await env.DB.prepare('UPDATE users SET credits = credits + ?2 WHERE id = ?1')
      .bind(resellerId, 10 * count)
      .run();
    await env.DB.prepare(
      `INSERT INTO license_keys (id, key, status, product_id, product_name, product_key_tag, product_type, duration, max_activations,
                                 purchased_at, purchased_by, created_by, purchase_price, paid_by, generation_method, created_at)
       SELECT value->>'id', value->>'key', 'available', value->>'productId', value->>'name', value->>'keyTag', value->>'type', 30, 1,
              value->>'at', value->>'customer', ?2, 7, ?2, 'reseller', value->>'at' FROM json_each(?1)`,
    )
      .bind(
        JSON.stringify(
          keys.map((k) => ({
            id: k.id,
            key: k.key,
            productId: k.product.id,
            name: k.product.name,
            keyTag: k.product.key_tag,
            type: k.product.product_type,
            at: k.at,
            customer: k.customer,
          })),
        ),
        resellerId,
      )
      .run();
  }

  const measure = async () =>
    (await instrumentedWorker().warmCost((fetch) => api('GET', '/api/reseller/stats?days=90', { token: tokens.reseller, fetch }))).rowsRead;

  it('read the same rows after seven times the sales on the same products, and answer what the ledger walk does', async () => {
    // Sales on 40 (day, product) pairs of the period; then six times as many, half on the same pairs
    // and half on the same products on days before the period (more running totals to skip over).
    const pairs = Array.from({ length: 40 }, (_, i): [number, number] => [(i * 7) % 90, (i * 3) % SHOP.products]);
    await sell(100, pairs);
    const before = await measure();
    await sell(300, pairs);
    await sell(
      300,
      pairs.map(([back, p], i): [number, number] => [back + 91 + i * 5, p]),
    );
    const after = await measure();
    // At most a row more a product: its running totals before the period, which it now has.
    expect(after, `rows read: ${before} before, ${after} after 600 more sales`).toBeLessThanOrEqual(before + SHOP.products);
    expect(after).toBeLessThanOrEqual(RESELLER_STATS_ROWS);
    const now = Date.now();
    const walked = await walkResellerFigures(env.DB, resellerId, 90, now);
    expect(comparable(await resellerStatistics(db(), resellerId, 90, now))).toEqual(walked);
    expect(walked.totals.keysForCustomers).toBeGreaterThanOrEqual(400);
    expect(walked.allTime.keysForCustomers).toBeGreaterThanOrEqual(700);
  });
});
