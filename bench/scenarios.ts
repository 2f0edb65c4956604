// What the benchmark measures: one entry per endpoint. Adding an endpoint is one more entry here:
// how to build its next request from the seeded data, what a correct answer looks like, its targets
// and, for endpoints that write, what must hold in the database afterwards.
import type { BenchData } from './dataset';
import { COLLECTOR_KEYS } from './dataset';
import type { BenchRequest, Expectation } from './load';
import { FLOOR_PATH } from './runtime';
import { KEY_STATUSES } from '../worker/platform/vocabulary';
import { MISCOUNTED_KEYS_SQL } from '../scripts/demo-shop/recount';

export type Check = { name: string; pass: boolean; detail: string };

/** The connection count the targets are read at (the table shows every count measured). */
export const TARGET_CONNECTIONS = 10;
/**
 * With D1 in a process of its own: the guarded endpoints' p99 (those with a minRatio) at most this
 * multiple of the floor's p99, both at the same steady load and at once (paced.ts).
 */
export const MAX_P99_VS_FLOOR = 3;
/**
 * The p99s' load: this share of what the endpoint served in the closed loop just before, offered on
 * a schedule to the floor and to the endpoint alike and at once (as long as a closed-loop
 * measurement, after each repeat's), so the p99 is a request's time at a load the
 * Worker carries rather than the queue of a saturated one. Production is sized to run below what it
 * can serve; a closed loop at saturation waits connections / throughput by Little's law, which would
 * make the p99 verdict the throughput ratio again. A quarter, not a half: the sender, the Worker and
 * D1 share two cores, and at half the queues of a stall grew past 200 connections.
 */
export const PACED_SHARE = 0.25;

export type Targets = {
  /**
   * With D1 on the Workers' thread (`--d1 thread`): throughput at least this share of the floor's,
   * measured in turns with it, at TARGET_CONNECTIONS, as the median of the run's repeats. Floors
   * under the figures a quiet machine gives, so a regression shows and noise does not. An endpoint
   * with one is in the guard, and with D1 in its own process its p99 is held to MAX_P99_VS_FLOOR.
   * None (the analytics and statistics pages): the endpoint is measured (its cost, rows and p99)
   * with no target.
   */
  minRatio?: number;
};

export type Prepared = {
  next: () => BenchRequest;
  expect: Expectation;
  /**
   * Runs after all the load, against the database the Worker wrote. `unanswered`: requests still in
   * flight when a run stopped, which the Worker may have carried out without the answer being counted.
   */
  verify?: (db: D1Database, unanswered: number) => Promise<Check[]>;
};

export type Scenario = {
  name: string;
  endpoint: string;
  /** How requests are drawn, for the table's reader. */
  drives: string;
  targets: Targets;
  prepare: (data: BenchData) => Prepared;
};

const random = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));
/** Round-robin, so every session carries its share and none nears the per-session limit. */
function rotate<T>(items: readonly T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length];
}
const count = async (db: D1Database, sql: string, ...params: unknown[]) =>
  (await db
    .prepare(sql)
    .bind(...params)
    .first<{ n: number }>())!.n;

export const SCENARIOS: Scenario[] = [
  {
    name: 'floor',
    endpoint: `POST ${FLOOR_PATH} (floor Worker)`,
    drives: 'random keys; one D1 read by the indexed key',
    targets: {},
    prepare: (data) => ({
      next: () => ({ method: 'POST', path: FLOOR_PATH, body: { key: random(data.anyKeys) } }),
      expect: { statuses: [200], check: (b) => b.startsWith('{"found":true') },
    }),
  },
  {
    name: 'validate',
    endpoint: 'POST /api/v1/licenses/validate',
    drives: 'random valid key and one of its devices: half checked in within 5 minutes (a read), half an hour ago (lastUsed written too)',
    targets: { minRatio: 0.55 },
    prepare: (data) => {
      const devices = [...data.recentDevices, ...data.staleDevices];
      const stale = new Set(data.staleDevices.map((d) => d.activationId));
      const staleSent = new Set<string>();
      // In parts: at ten times the shop, every recently seen device's id is more text than one statement takes.
      const written = async (db: D1Database, ids: string[]) => {
        let n = 0;
        for (let i = 0; i < ids.length; i += 10_000)
          n += await count(
            db,
            'SELECT count(*) AS n FROM activations WHERE last_used > ?1 AND id IN (SELECT value FROM json_each(?2))',
            data.seededAt,
            JSON.stringify(ids.slice(i, i + 10_000)),
          );
        return n;
      };
      return {
        next: () => {
          const pair = random(devices);
          if (stale.has(pair.activationId)) staleSent.add(pair.activationId);
          return {
            method: 'POST',
            path: '/api/v1/licenses/validate',
            body: { key: pair.key, deviceFingerprint: pair.device, nonce: String(Math.random()) },
          };
        },
        expect: { statuses: [200], check: (b) => b.startsWith('{"valid":true') },
        verify: async (db, unanswered) => {
          // Seeded at the start, so the run stays inside the 5-minute window: no recent device may be written.
          const rewritten = await written(
            db,
            data.recentDevices.map((d) => d.activationId),
          );
          // Every stale device validated is written, in batches that close shortly after their answers.
          const sent = [...staleSent];
          let landed = await written(db, sent);
          for (let waited = 0; landed < sent.length - unanswered && waited < 5_000; waited += 250) {
            await new Promise((r) => setTimeout(r, 250));
            landed = await written(db, sent);
          }
          return [
            {
              name: 'recently seen devices were only read',
              pass: rewritten === 0,
              detail: `${rewritten} of ${data.recentDevices.length} recently seen devices had lastUsed rewritten`,
            },
            {
              name: 'every device seen long ago had lastUsed written',
              pass: landed <= sent.length && landed >= sent.length - unanswered,
              detail: `${landed} of the ${sent.length} such devices validated, ${unanswered} unanswered`,
            },
          ];
        },
      };
    },
  },
  {
    name: 'activate',
    endpoint: 'POST /api/v1/licenses/activate',
    drives: 'fresh generated keys, each tried by two new devices at once (limits 1 to 5)',
    targets: { minRatio: 0.33 },
    prepare: (data) => {
      let sent = 0;
      let activated = 0;
      const used = new Set<string>();
      return {
        next: () => {
          const n = sent++;
          const key = data.freshKeys[Math.floor(n / 2) % data.freshKeys.length];
          used.add(key.id);
          return {
            method: 'POST',
            path: '/api/v1/licenses/activate',
            body: { key: key.key, deviceFingerprint: `bench-device-${n}`, deviceInfo: { manufacturer: 'Bench', model: 'Loopback' } },
          };
        },
        expect: {
          statuses: [200],
          check: (b) => b.startsWith('{"valid":true,"code":"VALID"') || b.includes('"code":"DEVICE_LIMIT_REACHED"'),
          record: (b) => {
            if (b.includes('"detail":"Device activated')) activated++;
          },
        },
        verify: async (db, unanswered) => {
          if (Math.floor(sent / 2) >= data.freshKeys.length) throw new Error('activate ran out of fresh keys: seed more');
          const overLimit = await count(
            db,
            'SELECT count(*) AS n FROM license_keys k WHERE (SELECT count(*) FROM activations a WHERE a.key_id = k.id) > k.max_activations',
          );
          const made = await count(db, "SELECT count(*) AS n FROM activations WHERE device_fingerprint LIKE 'bench-device-%'");
          const counters = await db
            .prepare('SELECT (SELECT sum(total_activations) FROM products) AS counted, (SELECT count(*) FROM activations) AS rows')
            .first<{ counted: number; rows: number }>();
          const touched = JSON.stringify([...used]);
          const unstarted = await count(
            db,
            "SELECT count(*) AS n FROM license_keys WHERE id IN (SELECT value FROM json_each(?1)) AND EXISTS (SELECT 1 FROM activations a WHERE a.key_id = license_keys.id) AND (status != 'used' OR expires_at IS NULL)",
            touched,
          );
          return [
            { name: 'no key has more devices than its limit', pass: overLimit === 0, detail: `${overLimit} keys over their limit` },
            // A request in flight when a run stops may have activated without its answer being counted.
            {
              name: 'activations made match the answers',
              pass: made >= activated && made - activated <= unanswered,
              detail: `${made} rows, ${activated} "Device activated" answers, ${unanswered} unanswered`,
            },
            {
              name: 'products count every activation',
              pass: counters!.counted === counters!.rows,
              detail: `total_activations ${counters!.counted}, activation rows ${counters!.rows}`,
            },
            {
              name: 'activated keys started their clock',
              pass: unstarted === 0,
              detail: `${unstarted} activated keys without status used and an expiry`,
            },
          ];
        },
      };
    },
  },
  {
    name: 'purchase',
    endpoint: 'POST /api/keys/purchase',
    drives: '2,000 customers with credits, a random active product and duration each',
    targets: { minRatio: 0.33 },
    prepare: (data) => {
      const startedAt = Date.now();
      const token = rotate(data.shopperTokens);
      let bought = 0;
      return {
        next: () => {
          const p = random(data.activeProducts);
          return {
            method: 'POST',
            path: '/api/keys/purchase',
            token: token(),
            body: { productId: p.id, duration: between(p.min_days, p.max_days) },
          };
        },
        expect: { statuses: [201], check: (b) => b.startsWith('{"licenseKey":{'), record: () => bought++ },
        verify: async (db, unanswered) => {
          const negative = await count(db, 'SELECT count(*) AS n FROM users WHERE credits < 0 OR balance_cents < 0');
          const unreconciled = await count(
            db,
            `SELECT count(*) AS n FROM users u
              WHERE u.credits != coalesce((SELECT sum(credits_delta) FROM ledger l WHERE l.user_id = u.id), 0)
                 OR u.balance_cents != coalesce((SELECT sum(usd_cents_delta) FROM ledger l WHERE l.user_id = u.id), 0)`,
          );
          const keys = await db
            .prepare(
              "SELECT count(*) AS n, coalesce(sum(purchase_price), 0) AS credits FROM license_keys WHERE generation_method = 'purchase' AND created_at >= ?1",
            )
            .bind(startedAt)
            .first<{ n: number; credits: number }>();
          const debits = await db
            .prepare(
              "SELECT count(*) AS n, coalesce(-sum(credits_delta), 0) AS credits FROM ledger WHERE kind = 'purchase' AND created_at >= ?1",
            )
            .bind(startedAt)
            .first<{ n: number; credits: number }>();
          const products = await db
            .prepare(
              'SELECT (SELECT sum(total_sold) FROM products) AS sold, (SELECT sum(revenue) FROM products) AS revenue, (SELECT count(*) FROM license_keys WHERE purchased_by IS NOT NULL) AS keys, (SELECT sum(purchase_price) FROM license_keys WHERE purchased_by IS NOT NULL) AS paid',
            )
            .first<{ sold: number; revenue: number; keys: number; paid: number }>();
          // The counters the owner's search and Overview read, against the keys themselves.
          const miscounted = await db.prepare(MISCOUNTED_KEYS_SQL).first<{ n: number }>();
          return [
            { name: 'no balance below zero', pass: negative === 0, detail: `${negative} accounts below zero` },
            {
              name: "the keys' counters by product, tag and status match the keys",
              pass: miscounted!.n === 0,
              detail: `${miscounted!.n} counts differ`,
            },
            {
              name: 'ledger reconciles with every balance',
              pass: unreconciled === 0,
              detail: `${unreconciled} of ${data.shop.users.length.toLocaleString('en-US')} accounts differ from their ledger`,
            },
            {
              name: 'every key bought was paid for once',
              pass: keys!.n === debits!.n && keys!.credits === debits!.credits,
              detail: `${keys!.n} keys for ${keys!.credits} credits; ${debits!.n} ledger debits for ${debits!.credits}`,
            },
            {
              name: 'keys bought match the answers',
              pass: keys!.n >= bought && keys!.n - bought <= unanswered,
              detail: `${keys!.n} keys, ${bought} answers 201, ${unanswered} unanswered`,
            },
            {
              name: 'product sales and revenue count every key',
              pass: products!.sold === products!.keys && products!.revenue === products!.paid,
              detail: `sold ${products!.sold} / ${products!.keys} keys, revenue ${products!.revenue} / ${products!.paid} credits`,
            },
          ];
        },
      };
    },
  },
  {
    name: 'my-keys',
    endpoint: 'GET /api/users/my-keys',
    drives: `a customer with ${COLLECTOR_KEYS} keys, a random page`,
    targets: { minRatio: 0.33 },
    prepare: (data) => {
      const token = rotate(data.collectorTokens);
      return {
        next: () => ({ method: 'GET', path: `/api/users/my-keys?page=${between(1, COLLECTOR_KEYS / 10)}&limit=10`, token: token() }),
        expect: { statuses: [200], check: (b) => b.endsWith(`"total":${COLLECTOR_KEYS}}`) },
      };
    },
  },
  {
    name: 'my-keys ?search',
    endpoint: 'GET /api/users/my-keys?search=',
    drives: 'the same customer: a product name, a keyTag or part of one of their keys',
    targets: { minRatio: 0.36 },
    prepare: (data) => {
      const token = rotate(data.collectorTokens);
      const own = data.shop.keys.filter((k) => k.purchased_by === data.collector.id);
      const terms = () => {
        const k = random(own);
        return random([k.product_name.split(' ')[0], k.product_key_tag, k.key.split('-')[2]]);
      };
      return {
        next: () => ({ method: 'GET', path: `/api/users/my-keys?search=${encodeURIComponent(terms())}`, token: token() }),
        expect: { statuses: [200], check: (b) => b.startsWith('{"keys":[{') },
      };
    },
  },
  {
    name: 'admin keys ?search',
    endpoint: 'GET /api/admin/keys?search=&status=',
    drives: 'the owner: a key prefix, a product name, a keyTag or a username prefix, with or without a status',
    targets: { minRatio: 0.17 },
    prepare: (data) => {
      const token = rotate(data.ownerTokens);
      const forms = [
        () => random(data.anyKeys).slice(0, 11),
        () => random(data.activeProducts).name,
        () => random(data.activeProducts).key_tag,
        // A prefix that names about ten customers (customer0123…).
        () => random(data.customers).username.slice(0, 12),
      ];
      return {
        next: () => {
          const status = random([null, ...KEY_STATUSES]);
          return {
            method: 'GET',
            path: `/api/admin/keys?limit=15&search=${encodeURIComponent(random(forms)())}${status ? `&status=${status}` : ''}`,
            token: token(),
          };
        },
        expect: { statuses: [200], check: (b) => b.startsWith('{"keys":[') },
      };
    },
  },
  {
    name: 'admin keys ?status',
    endpoint: 'GET /api/admin/keys?status=',
    drives: 'the owner: one status over all keys, one of the first ten pages',
    targets: { minRatio: 0.32 },
    prepare: (data) => {
      const token = rotate(data.ownerTokens);
      return {
        next: () => ({
          method: 'GET',
          path: `/api/admin/keys?limit=15&page=${between(1, 10)}&status=${random(KEY_STATUSES)}`,
          token: token(),
        }),
        expect: { statuses: [200], check: (b) => b.startsWith('{"keys":[{') },
      };
    },
  },
  {
    name: 'admin stats',
    endpoint: 'GET /api/admin/stats',
    drives: 'the owner: totals over all users and keys',
    targets: { minRatio: 0.4 },
    prepare: (data) => {
      const token = rotate(data.ownerTokens);
      return {
        next: () => ({ method: 'GET', path: '/api/admin/stats', token: token() }),
        expect: { statuses: [200], check: (b) => b.includes(`"totalUsers":${data.shop.users.length}`) },
      };
    },
  },
  {
    name: 'analytics 90d',
    endpoint: 'GET /api/admin/analytics?days=90',
    drives: "the owner's System Analytics over 90 days",
    targets: {},
    prepare: (data) => {
      const token = rotate(data.ownerTokens);
      return {
        next: () => ({ method: 'GET', path: '/api/admin/analytics?days=90', token: token() }),
        expect: { statuses: [200], check: (b) => b.includes('"days":90') },
      };
    },
  },
  {
    name: 'reseller stats 90d',
    endpoint: 'GET /api/reseller/stats?days=90',
    drives: 'the reseller who sold the most products: My Statistics over 90 days',
    targets: {},
    prepare: (data) => {
      const token = rotate(data.resellerTokens);
      return {
        next: () => ({ method: 'GET', path: '/api/reseller/stats?days=90', token: token() }),
        expect: { statuses: [200], check: (b) => b.includes('"days":90') },
      };
    },
  },
];
