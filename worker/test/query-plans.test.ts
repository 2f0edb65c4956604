// How SQLite answers every statement of the hot path (licensing) and of the list endpoints (My Keys,
// the admin key list, the admin stats). The statements are the real ones: the domain functions run
// against a D1 binding that records what they prepare, and each is then explained with its own
// parameters. A full scan of license_keys, activations or users fails the test, and so does a value
// SQLite would compile the statement anew for on every call.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createDb } from '../platform/db/client';
import { activations, licenseKeys, payments, products } from '../platform/db/schema';
import { listAdminKeys } from '../modules/keys/admin-keys';
import { listUsers } from '../modules/accounts/admin-users';
import { listAuditLog } from '../modules/audit/audit';
import { adminStats } from '../modules/reporting/admin-stats';
import { systemAnalytics } from '../modules/reporting/analytics';
import { commissionEvent } from '../modules/webhooks/outbox';
import { activateLicense, validateLicense } from '../modules/licensing/licensing';
import { listOwnKeys } from '../modules/keys/my-keys';
import { keyHistory } from '../modules/keys/key-history';
import { listKeyTransfers } from '../modules/keys/key-care';
import { autoRenewKeys } from '../modules/keys/auto-renew';
import { dashboardStats } from '../modules/reporting/stats';
import { resellerStatistics, listResellerFigures } from '../modules/resellers/statistics';
import { listResellerCustomers } from '../modules/resellers/customers';
import { applyStripeEvent } from '../modules/billing/stripe-events';
import { createUser } from '../modules/accounts/users';
import { newId } from '../platform/ids';
import type { Stripe } from '../modules/billing/stripe';
import type { Actor } from '../platform/db/schema';
import { DEFAULT_SETTINGS } from '../modules/settings/schemas';
import { db, interceptedD1, uniqueName } from './helpers';
import { DAY_MS } from '../platform/vocabulary';

type Recorded = { sql: string; params: unknown[] };

/** A D1 binding that runs everything as usual and keeps each statement with its parameters. */
function recordingD1(real: D1Database, log: Recorded[]): D1Database {
  const record = (statement: D1PreparedStatement, entry: Recorded): D1PreparedStatement => {
    const bind = statement.bind.bind(statement);
    statement.bind = (...params: unknown[]) => {
      entry.params = params;
      return bind(...params);
    };
    return statement;
  };
  return interceptedD1(real, {
    prepare: (sql, statement) => {
      const entry = { sql, params: [] };
      log.push(entry);
      record(statement, entry);
    },
  });
}

/** Runs `work` against a recording binding and returns the statements it made. */
async function statementsOf(work: (d1: D1Database) => Promise<unknown>): Promise<Recorded[]> {
  const log: Recorded[] = [];
  await work(recordingD1(env.DB, log));
  expect(log.length).toBeGreaterThan(0);
  return log;
}

const WATCHED = ['license_keys', 'activations', 'users'];
const NOT_ALIASES = new Set([
  'where',
  'on',
  'left',
  'inner',
  'join',
  'set',
  'group',
  'order',
  'limit',
  'using',
  'values',
  'as',
  'select',
  'union',
  'and',
  'or',
  'natural',
  'cross',
]);

/** The names SQLite may use for the watched tables in a plan: the table itself or its alias. */
function watchedNames(sql: string): Map<string, string> {
  const names = new Map(WATCHED.map((t) => [t, t]));
  const pattern = /["`]?(license_keys|activations|users)["`]?\s+(?:as\s+)?["`]?([a-z_][a-z0-9_]*)["`]?/gi;
  for (const [, table, alias] of sql.matchAll(pattern)) {
    if (!NOT_ALIASES.has(alias.toLowerCase())) names.set(alias, table);
  }
  return names;
}

type Plan = { sql: string; steps: string[]; fullScans: string[] };

async function explain({ sql, params }: Recorded): Promise<Plan> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  const steps = results.map((r) => r.detail);
  const names = watchedNames(sql);
  // "SCAN t" walks the whole table; "SCAN t USING INDEX i" walks an index in order (stopping at
  // the page's LIMIT) and "USING COVERING INDEX" counts from the index alone.
  const fullScans = steps.filter((step) => {
    const match = step.match(/^SCAN (\S+)$/);
    return match !== null && names.has(match[1]);
  });
  return { sql, steps, fullScans };
}

/**
 * A bare parameter as a LIMIT, an OFFSET or a LIKE pattern: SQLite plans with its value and compiles
 * the statement again each time it is bound (platform/db/compiled.ts, runtimeNumber), which for a page of keys
 * was a third of SQLite's work on every call.
 */
const PLANNED_WITH_VALUE = /\b(?:limit|offset|like|glob)\s+\?/i;

function expectCompiledOnce(statements: Recorded[]) {
  for (const { sql } of statements) expect(sql).not.toMatch(PLANNED_WITH_VALUE);
}

async function expectNoFullScans(statements: Recorded[]) {
  expectCompiledOnce(statements);
  const plans = await Promise.all(statements.filter((s) => /^\s*(select|insert|update|delete|with)\b/i.test(s.sql)).map(explain));
  expect(plans.length).toBeGreaterThan(0);
  for (const plan of plans) {
    expect(plan.fullScans, `${plan.sql}\n  ${plan.steps.join('\n  ')}`).toEqual([]);
  }
  return plans;
}

/** The status indexes serve a list of one status over all keys, never a list already narrowed. */
function expectNotDrivenByStatus(plans: Plan[]) {
  for (const plan of plans) {
    expect(
      plan.steps.filter((step) => /license_keys_(status|expiry)_idx/.test(step)),
      `${plan.sql}\n  ${plan.steps.join('\n  ')}`,
    ).toEqual([]);
  }
}

/**
 * The owner's search, and list of one product: a matched product's keys are never walked, nor sorted.
 * Its total comes from product_key_counts; its page from each status's newest keys, taken in the order
 * of license_keys_product_idx (product, status, creation), with no sort after that walk; the only
 * status range is the lapsed keys' short one (license_keys_expiry_idx, the Overview's counts read
 * the same), never a walk of every key of a status (license_keys_status_idx).
 */
function expectByMatchedProducts(plans: Plan[]) {
  const steps = plans.flatMap((p) => p.steps);
  const text = `${plans.map((p) => p.sql).join('\n')}\n  ${steps.join('\n  ')}`;
  const walks = steps.flatMap((step, i) =>
    /^SEARCH w USING COVERING INDEX license_keys_product_idx \(product_id=\? AND status=\?\)$/.test(step) ? [i] : [],
  );
  expect(walks.length, text).toBeGreaterThan(0);
  for (const i of walks) expect(steps[i + 1], text).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
  expect(text).toMatch(/SEARCH product_key_counts USING INDEX \S+ \(product_id=\?\)/);
  expect(
    steps.filter((step) => /license_keys_status_idx/.test(step)),
    text,
  ).toEqual([]);
  for (const step of steps.filter((step) => /license_keys_expiry_idx/.test(step))) {
    expect(step, text).toMatch(/^SEARCH (license_keys|lk) USING INDEX license_keys_expiry_idx \(status=\? AND expires_at<\?\)$/);
  }
}

/** Adds the indexes the plans use to `used`. */
const noteIndexes = (plans: Plan[], used: Set<string>) =>
  plans.forEach((p) => p.steps.forEach((step) => step.match(/INDEX (\w+)/g)?.forEach((m) => used.add(m.slice(6)))));

/** Every index made for `table` (at least `atLeast` of them) is among `used`: none is kept up for nothing. */
async function expectEveryIndexUsed(table: string, used: Set<string>, atLeast: number) {
  const { results } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL")
    .bind(table)
    .all<{ name: string }>();
  expect(results.length).toBeGreaterThanOrEqual(atLeast);
  expect(results.map((r) => r.name).filter((name) => !used.has(name))).toEqual([]);
}

/** A small shop: a product, an owner, a reseller, a customer with keys in each status, a device. */
async function shop() {
  const d = db();
  const [owner, reseller, customer] = await Promise.all(
    (['owner', 'reseller', 'user'] as const).map((role) => {
      const username = uniqueName(`plan${role}`);
      return createUser(d, { username, email: `${username}@example.com`, password: null, role });
    }),
  );
  const tag = `QP${Date.now().toString(36).slice(-6).toUpperCase()}`;
  const product = { id: newId(), name: `Plan Product ${tag}`, keyTag: tag, baseCreditCost: 10, createdAt: new Date() };
  await d.insert(products).values(product);
  const now = Date.now();
  const key = (i: number, fields: Partial<typeof licenseKeys.$inferInsert>) => ({
    id: newId(),
    key: `${tag}-AAAAA-BBBBB-CCCCC-${String(i).padStart(5, '2')}`,
    status: 'used' as const,
    productId: product.id,
    productName: product.name,
    productKeyTag: tag,
    productType: 'software' as const,
    duration: 30,
    maxActivations: 2,
    createdAt: new Date(now - i * 1000),
    ...fields,
  });
  const bought = {
    purchasedBy: customer.id,
    createdBy: customer.id,
    purchasedAt: new Date(now),
    expiresAt: new Date(now + 30 * DAY_MS),
    generationMethod: 'purchase' as const,
  };
  const keys = [
    key(1, bought),
    key(2, { ...bought, status: 'revoked', revokeReason: 'test' }),
    key(3, { ...bought, expiresAt: new Date(now - DAY_MS) }),
    key(4, { status: 'available', createdBy: reseller.id, generationMethod: 'reseller' }),
    key(5, { status: 'available', createdBy: owner.id }),
  ];
  await d.insert(licenseKeys).values(keys);
  const device = 'plan-device-1';
  await d.insert(activations).values({
    id: newId(),
    keyId: keys[0].id,
    deviceFingerprint: device,
    activatedAt: new Date(now - DAY_MS),
    lastUsed: new Date(now - DAY_MS),
  });
  const viewer = (u: typeof owner): Actor & { username: string } => ({ id: u.id, role: u.role, username: u.username });
  return { owner: viewer(owner), reseller: viewer(reseller), customer: viewer(customer), product, keys, device };
}

describe('query plans', () => {
  it('the licensing hot path reads and writes through indexes only', async () => {
    const s = await shop();
    const validate = await statementsOf((d1) => validateLicense(d1, DEFAULT_SETTINGS, { key: s.keys[0].key, deviceFingerprint: s.device }));
    // The device was last seen a day ago, so this validation also rewrites its lastUsed.
    expect(validate.some((r) => /^UPDATE activations/.test(r.sql))).toBe(true);
    const activate = await statementsOf((d1) =>
      activateLicense(d1, DEFAULT_SETTINGS, { key: s.keys[4].key, deviceFingerprint: 'plan-device-2' }),
    );
    expect(activate.some((r) => /INSERT INTO activations/.test(r.sql))).toBe(true);
    const plans = await expectNoFullScans([...validate, ...activate]);
    // The key is found by its unique index, its device and device count by the activation index.
    const keyRead = plans.find((p) => p.sql.includes('WHERE k.key = ?2'))!;
    expect(keyRead.steps.join('\n')).toMatch(/SEARCH k USING INDEX license_keys_key_unique \(key=\?\)/);
    expect(keyRead.steps.join('\n')).toMatch(/activations_key_device_unique/);
  });

  it('every index of activations and key_events serves one of these statements: each one costs every activation', async () => {
    const s = await shop();
    const used = new Set<string>();
    const note = (plans: Plan[]) => noteIndexes(plans, used);
    note(
      await expectNoFullScans(
        await statementsOf((d1) => activateLicense(d1, DEFAULT_SETTINGS, { key: s.keys[4].key, deviceFingerprint: 'plan-device-3' })),
      ),
    );
    const carer = (d1: D1Database) => ({ db: createDb(d1), actor: s.owner });
    note(await expectNoFullScans(await statementsOf((d1) => keyHistory(carer(d1), s.keys[4].id, 'admin', { page: 1, limit: 20 }))));
    // The transfers an account gave or received: each side by its own (partial) index, never a walk of
    // the key history, whose activations have neither side.
    const transfers = await expectNoFullScans(
      await statementsOf((d1) => listKeyTransfers(createDb(d1), s.customer.id, { page: 1, limit: 20 })),
    );
    for (const plan of transfers) {
      expect(plan.steps.join('\n'), plan.sql).toMatch(/SEARCH key_events USING INDEX key_events_from_idx \(from_user_id=\?\)/);
      expect(plan.steps.join('\n'), plan.sql).toMatch(/SEARCH key_events USING INDEX key_events_to_idx \(to_user_id=\?\)/);
    }
    note(transfers);
    await expectEveryIndexUsed('activations', used, 1);
    await expectEveryIndexUsed('key_events', used, 3);
  });

  it('My Keys, with and without a search or a status, narrows by the buyer index', async () => {
    const s = await shop();
    const d = (d1: D1Database) => createDb(d1);
    const queries = [
      { page: 1, limit: 10 },
      { page: 2, limit: 10, search: 'BBBBB' },
      { page: 1, limit: 10, status: 'used' as const },
      { page: 1, limit: 10, status: 'expired' as const, search: s.product.name.slice(0, 6) },
    ];
    for (const query of queries) {
      const plans = await expectNoFullScans(await statementsOf((d1) => listOwnKeys(d(d1), s.customer.id, query)));
      const keyQueries = plans.filter((p) => /from "license_keys"/i.test(p.sql));
      expect(keyQueries.length).toBeGreaterThan(0);
      for (const p of keyQueries) expect(p.steps.join('\n'), p.sql).toContain('license_keys_buyer_idx');
      // The customer's keys are matched (text, status) in the index itself, without reading each key's row.
      for (const p of keyQueries) expect(p.steps.join('\n'), p.sql).toContain('USING COVERING INDEX license_keys_buyer_idx');
      // A search tests its pattern on each of the customer's keys once, not once for the page and
      // again for the count; without one, the page's walk stops at its last row.
      const steps = plans.flatMap((p) => p.steps).join('\n');
      if (query.search) expect(steps).toContain('MATERIALIZE matches');
      else expect(steps).not.toContain('MATERIALIZE');
      expectNotDrivenByStatus(plans);
    }
  });

  it('the admin key list, for each search form and status, and for a reseller', async () => {
    const s = await shop();
    // The last is shorter than SHORT_SEARCH: whole values only, from the same indexes.
    const forms = [
      s.keys[0].key.slice(0, 9),
      s.product.name,
      s.product.keyTag,
      s.customer.username.slice(0, 8),
      s.product.keyTag.slice(0, 2),
    ];
    for (const viewer of [s.owner, s.reseller]) {
      for (const search of [undefined, ...forms]) {
        for (const status of [undefined, 'available', 'used', 'revoked', 'expired'] as const) {
          const plans = await expectNoFullScans(
            await statementsOf((d1) => listAdminKeys(createDb(d1), viewer, { page: 1, limit: 15, search, status })),
          );
          // A reseller's keys and a search's matches are few; walking every key of a status instead
          // would read a quarter of the table or more.
          if (viewer.role === 'reseller') expectNotDrivenByStatus(plans);
          if (viewer.role === 'owner' && search) {
            expectByMatchedProducts(plans);
            // The other forms: a key by prefix, a buyer or creator by username, found once for the
            // page and the count.
            const steps = plans.flatMap((p) => p.steps).join('\n');
            for (const index of ['license_keys_key_unique', 'license_keys_buyer_idx', 'license_keys_creator_idx'])
              expect(steps).toContain(index);
            expect(steps).toContain('MATERIALIZE others');
          }
        }
      }
    }
    // The owner's list of one product: the same statement, without the other forms.
    for (const status of [undefined, 'available', 'used', 'revoked', 'expired'] as const) {
      const plans = await expectNoFullScans(
        await statementsOf((d1) => listAdminKeys(createDb(d1), s.owner, { page: 2, limit: 15, product: s.product.id, status })),
      );
      expectByMatchedProducts(plans);
    }
  });

  it('the admin stats, for the owner and for a reseller', async () => {
    const s = await shop();
    for (const viewer of [s.owner, s.reseller]) {
      const plans = await expectNoFullScans(await statementsOf((d1) => adminStats(createDb(d1), viewer)));
      // A count over every key walks an index in its own order: a temporary B-tree per key would
      // cost ten times more at 200,000 keys.
      for (const plan of plans.filter((p) => p.steps.some((step) => /^SCAN license_keys/.test(step)))) {
        expect(plan.steps, plan.sql).not.toContain('USE TEMP B-TREE FOR GROUP BY');
      }
    }
  });

  it('the other paged lists bind their page and search as values SQLite does not plan with', async () => {
    const s = await shop();
    const users = await statementsOf((d1) =>
      listUsers(createDb(d1), { page: 2, limit: 20, search: s.customer.username.slice(0, 6) }, 'full'),
    );
    const audit = await statementsOf((d1) => listAuditLog(createDb(d1), { page: 2, limit: 20 }));
    expect([...users, ...audit].filter((r) => /\blimit\b/i.test(r.sql))).toHaveLength(2);
    expectCompiledOnce([...users, ...audit]);
  });

  it('every index of license_keys serves one of these statements: each one costs every key written', async () => {
    const s = await shop();
    const used = new Set<string>();
    const note = (plans: Plan[]) => noteIndexes(plans, used);
    note(
      await expectNoFullScans(
        await statementsOf((d1) => validateLicense(d1, DEFAULT_SETTINGS, { key: s.keys[0].key, deviceFingerprint: s.device })),
      ),
    );
    note(await expectNoFullScans(await statementsOf((d1) => listOwnKeys(createDb(d1), s.customer.id, { page: 1, limit: 10 }))));
    for (const viewer of [s.owner, s.reseller]) {
      note(await expectNoFullScans(await statementsOf((d1) => adminStats(createDb(d1), viewer))));
      for (const search of [undefined, s.product.name]) {
        for (const status of [undefined, 'used', 'expired'] as const) {
          note(
            await expectNoFullScans(
              await statementsOf((d1) => listAdminKeys(createDb(d1), viewer, { page: 1, limit: 15, search, status })),
            ),
          );
        }
      }
    }
    // The cron's auto-renewal finds its candidates by the expiry index (the keys in use expiring within days).
    note(await expectNoFullScans(await statementsOf((d1) => autoRenewKeys(createDb(d1), DEFAULT_SETTINGS, Date.now()))));
    await expectEveryIndexUsed('license_keys', used, 6);
  });

  it("a reseller's statistics and customers, and the owner's comparison, read through indexes only", async () => {
    const s = await shop();
    for (const work of [
      (d1: D1Database) => resellerStatistics(createDb(d1), s.reseller.id, 30),
      (d1: D1Database) => listResellerCustomers(createDb(d1), s.reseller.id, { page: 1, limit: 20, search: undefined }),
      (d1: D1Database) => listResellerCustomers(createDb(d1), s.reseller.id, { page: 1, limit: 20, search: 'cu' }),
      (d1: D1Database) => listResellerFigures(createDb(d1), { page: 1, limit: 20 }),
    ]) {
      const plans = await expectNoFullScans(await statementsOf(work));
      // The ledger (alias l) only through the reseller's own rows: never a walk of the shop's.
      expect(plans.flatMap((p) => p.steps).join('\n')).not.toMatch(/\bSCAN (ledger|l)\b/);
    }
    // The statistics read the figures migration 0033 keeps, never the reseller's ledger or customers,
    // and their keys only for the lapsed ones (the expiry index, not every key the reseller made).
    const stats = (await expectNoFullScans(await statementsOf((d1) => resellerStatistics(createDb(d1), s.reseller.id, 90))))
      .flatMap((p) => p.steps)
      .join('\n');
    expect(stats).not.toMatch(/\bledger\b|users_reseller_idx|license_keys_creator_idx/);
    expect(stats).toMatch(/license_keys_expiry_idx/);
    // A row a day of the period, and each product's running totals by a seek at each end of it: the
    // products drive, never the reseller's running totals (every day they sold on).
    expect(stats).toMatch(/SEARCH reseller_days USING PRIMARY KEY \(reseller_id=\? AND day>\? AND day<\?\)/);
    expect(stats).toMatch(/SEARCH p USING PRIMARY KEY \(reseller_id=\?\)\n/);
    expect(stats).toMatch(/SEARCH l USING PRIMARY KEY \(reseller_id=\? AND product_id=\? AND day=\?\)/);
    expect(stats).toMatch(/SEARCH b USING PRIMARY KEY \(reseller_id=\? AND product_id=\? AND day=\?\)/);
    expect(stats).toMatch(/SEARCH reseller_figures USING PRIMARY KEY \(reseller_id=\?\)/);
    expect(stats).toMatch(/SEARCH reseller_key_counts USING PRIMARY KEY \(reseller_id=\?\)/);
  });

  it('every index of the ledger serves one of its reads: each one costs every movement of money', async () => {
    const s = await shop();
    const used = new Set<string>();
    const note = (plans: Plan[]) => noteIndexes(plans, used);
    // System Analytics reads its rollups, not the ledger (migration 0032).
    const analytics = await expectNoFullScans(await statementsOf((d1) => systemAnalytics(createDb(d1), 30)));
    expect(analytics.flatMap((p) => p.steps).join('\n')).not.toMatch(/\bledger\b/);
    // reseller.commission_earned finds the commission its purchase's trigger wrote by kind and time.
    const commission = commissionEvent(newId(), Date.now());
    const event = await expectNoFullScans([{ sql: commission.text, params: commission.params }]);
    expect(event.flatMap((p) => p.steps).join('\n')).toMatch(/SEARCH l USING INDEX ledger_kind_created_idx/);
    note(event);
    const dashboard = await expectNoFullScans(await statementsOf((d1) => dashboardStats(createDb(d1), s.customer)));
    note(dashboard);
    // A card top-up's credit looks for the session's topup row through its unique index.
    const sessionId = `cs_test_plan${newId()}`;
    await db().insert(payments).values({ id: sessionId, userId: s.customer.id, amountCents: 500, createdAt: new Date() });
    const paid = {
      id: sessionId,
      mode: 'payment',
      payment_status: 'paid',
      currency: 'usd',
      amount_total: 500,
      payment_intent: `pi_test_plan${newId()}`,
    };
    const recorded = await statementsOf(async (d1) =>
      expect(
        await applyStripeEvent(createDb(d1), { type: 'checkout.session.completed', data: { object: paid } } as unknown as Stripe.Event),
      ).toBe('credited'),
    );
    // runBatch has drizzle prepare its statements once more, unbound, to read their SQL: not run.
    const credit = await expectNoFullScans(recorded.filter((r) => r.params.length > 0));
    expect(credit.flatMap((p) => p.steps).join('\n')).toMatch(/USING (COVERING )?INDEX ledger_topup_session_unique/);
    note(credit);
    // A customer's spending is read from their own rows, never by walking every purchase in the shop.
    const spent = dashboard.find((p) => /from "ledger"/i.test(p.sql))!;
    expect(spent.steps.join('\n')).toMatch(/SEARCH ledger USING INDEX ledger_user_idx \(user_id=\?\)/);
    await expectEveryIndexUsed('ledger', used, 1);
  });
});
