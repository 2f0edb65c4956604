// Tests that need whole tables to themselves: the last owner, exact totals in the admin stats,
// and the audit log's filters. They run in a sandbox over ISOLATED_DB, emptied before each test.
import { env } from 'cloudflare:test';
import { asc, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDb } from '../../../platform/db/client';
import { auditLog, ledger, licenseKeys, products, users } from '../../../platform/db/schema';
import { adminStats } from '../../reporting/admin-stats';
import { LAST_OWNER_MESSAGE } from '../../accounts/admin-users';
import { newId } from '../../../platform/ids';
import { interceptedD1 } from '../../../test/helpers';
import { sandbox, type Sandbox } from '../../../test/sandbox';
import { type KeyStatus } from '../../../platform/vocabulary';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ isolatedDb: true });
});

async function ownerState(id: string) {
  const db = box.db;
  return {
    row: await db.select().from(users).where(eq(users.id, id)).get(),
    ledgerRows: await db.select().from(ledger).where(eq(ledger.userId, id)).all(),
    auditRows: await db.select().from(auditLog).where(eq(auditLog.targetId, id)).all(),
  };
}

describe('the last owner', () => {
  it('cannot be demoted, deactivated or deleted, and the refusal changes nothing', async () => {
    const owner = await box.signedInUser('owner', { credits: 5 });
    // An inactive owner does not count: nobody could sign in as them.
    await box.signedInUser('owner', { isActive: false });
    const before = await ownerState(owner.user.id);
    for (const [method, body] of [
      ['PUT', { role: 'reseller' }],
      ['PUT', { role: 'user', credits: 500 }],
      ['PUT', { isActive: false }],
      ['DELETE', undefined],
    ] as const) {
      const res = await box.api(method, `/api/admin/users/${owner.user.id}`, { token: owner.token, body });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 'CONFLICT', message: LAST_OWNER_MESSAGE });
    }
    expect(await ownerState(owner.user.id)).toEqual(before);
    // Edits that keep them an active owner are fine.
    const rename = await box.api('PUT', `/api/admin/users/${owner.user.id}`, {
      token: owner.token,
      body: { role: 'owner', isActive: true, credits: 9 },
    });
    expect(rename.status).toBe(200);
  });

  it('may be changed once another active owner exists', async () => {
    const [a, b] = [await box.signedInUser('owner'), await box.signedInUser('owner')];
    const demote = await box.api('PUT', `/api/admin/users/${b.user.id}`, { token: a.token, body: { role: 'reseller' } });
    expect(demote.status).toBe(200);
    // Now `a` is the last one.
    expect((await box.api('DELETE', `/api/admin/users/${a.user.id}`, { token: a.token })).status).toBe(409);
  });

  it('survives two owners removing each other at the same moment', async () => {
    // Whichever commits first wins; the other's write then finds its own caller's session ended (the
    // demotion, deactivation or deletion ended it) by the caller guard in its batch: 401. The
    // last-owner rule (409) stays behind that guard.
    for (const [label, request, refused] of [
      ['demote', (id: string, token: string) => box.api('PUT', `/api/admin/users/${id}`, { token, body: { role: 'user' } }), 401],
      ['deactivate', (id: string, token: string) => box.api('PUT', `/api/admin/users/${id}`, { token, body: { isActive: false } }), 401],
      ['delete', (id: string, token: string) => box.api('DELETE', `/api/admin/users/${id}`, { token }), 401],
    ] as const) {
      await box.d1.prepare(`UPDATE users SET role = 'user' WHERE role = 'owner'`).run();
      const [a, b] = [await box.signedInUser('owner'), await box.signedInUser('owner')];
      const results = await Promise.all([request(b.user.id, a.token), request(a.user.id, b.token)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, label).toEqual([200, refused]);
      const active = await box.d1.prepare(`SELECT count(*) AS n FROM users WHERE role = 'owner' AND is_active = 1`).first<{ n: number }>();
      expect(active?.n, label).toBe(1);
    }
  });
});

/** A key row as the shop writes it, with only what the stats read. */
function keyRow(values: {
  productId: string;
  productName: string;
  status: KeyStatus;
  createdBy: string | null;
  purchasedBy: string | null;
  price?: number;
  expiresAt?: Date | null;
  createdAt: Date;
}) {
  const id = newId(values.createdAt.getTime());
  return {
    id,
    key: `TEST-${id}`,
    status: values.status,
    productId: values.productId,
    productName: values.productName,
    productKeyTag: 'TEST',
    productType: 'software' as const,
    duration: 30,
    maxActivations: 1,
    purchasedBy: values.purchasedBy,
    createdBy: values.createdBy,
    purchasePrice: values.price ?? 0,
    expiresAt: values.expiresAt ?? null,
    purchasedAt: values.purchasedBy ? values.createdAt : null,
    createdAt: values.createdAt,
  };
}

describe('GET /api/admin/stats', () => {
  async function shop() {
    const owner = await box.signedInUser('owner');
    const r1 = await box.signedInUser('reseller');
    const r2 = await box.signedInUser('reseller');
    const [u1, u2, u3] = [await box.signedInUser('user'), await box.signedInUser('user'), await box.signedInUser('user')];
    const product = (name: string, isActive: boolean) => ({
      id: newId(),
      name,
      keyTag: name.toUpperCase().slice(0, 6),
      baseCreditCost: 10,
      isActive,
      createdAt: new Date(),
    });
    const [p1, p2] = [product('Alpha', true), product('Beta', false)];
    await box.db.insert(products).values([p1, p2]);
    const t = (minutes: number) => new Date(Date.now() - (60 - minutes) * 60_000);
    const rows = [
      keyRow({ productId: p1.id, productName: 'Alpha', status: 'available', createdBy: owner.user.id, purchasedBy: null, createdAt: t(1) }),
      keyRow({ productId: p1.id, productName: 'Alpha', status: 'available', createdBy: owner.user.id, purchasedBy: null, createdAt: t(2) }),
      keyRow({
        productId: p1.id,
        productName: 'Alpha',
        status: 'used',
        createdBy: r1.user.id,
        purchasedBy: u1.user.id,
        price: 30,
        expiresAt: t(60 * 24 * 40),
        createdAt: t(3),
      }),
      // Past its expiry and not yet marked by the scheduled job: expired all the same.
      keyRow({
        productId: p2.id,
        productName: 'Beta',
        status: 'used',
        createdBy: r1.user.id,
        purchasedBy: u2.user.id,
        price: 20,
        expiresAt: t(0),
        createdAt: t(4),
      }),
      keyRow({
        productId: p1.id,
        productName: 'Alpha',
        status: 'used',
        createdBy: r1.user.id,
        purchasedBy: r1.user.id,
        price: 10,
        expiresAt: t(60 * 24 * 40),
        createdAt: t(5),
      }),
      keyRow({
        productId: p1.id,
        productName: 'Alpha',
        status: 'revoked',
        createdBy: r2.user.id,
        purchasedBy: u3.user.id,
        price: 7,
        createdAt: t(6),
      }),
    ];
    // Three rows a statement: D1 binds at most 100 values to one.
    for (let i = 0; i < rows.length; i += 3) await box.db.insert(licenseKeys).values(rows.slice(i, i + 3));
    return { owner, r1, r2, u1, u2, u3, rows };
  }

  it('gives the owner every figure of the whole shop', async () => {
    const { owner, u1, u2, u3, r2, rows } = await shop();
    const res = await box.api('GET', '/api/admin/stats', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      totalUsers: 6,
      totalKeys: 6,
      totalProducts: 2,
      // The bought keys' prices, counted on their products as the keys went in.
      totalRevenue: 30 + 20 + 10 + 7,
      usersByRole: { user: 3, reseller: 2, owner: 1 },
      keysByStatus: { available: 2, used: 2, expired: 1, revoked: 1 },
    });
    expect(res.body.recentActivity.users.map((u: { username: string }) => u.username)).toEqual([
      u3.username,
      u2.username,
      u1.username,
      r2.username,
      expect.any(String),
    ]);
    expect(res.body.recentActivity.users[0]).toEqual({
      _id: u3.user.id,
      username: u3.username,
      email: u3.email,
      role: 'user',
      createdAt: u3.user.createdAt.toISOString(),
    });
    const keys = res.body.recentActivity.keys;
    expect(keys.map((k: { _id: string }) => k._id)).toEqual(
      rows
        .slice(1)
        .reverse()
        .map((r) => r.id),
    );
    // The one key shape of every key list.
    expect(keys[0]).toMatchObject({
      _id: rows[5].id,
      key: rows[5].key,
      status: 'revoked',
      product: { _id: rows[5].productId, name: 'Alpha', keyTag: 'TEST', productType: 'software', duration: 30, maxActivations: 1 },
      purchasedBy: { _id: u3.user.id, username: u3.username },
      createdBy: { _id: r2.user.id, username: r2.username },
      createdAt: rows[5].createdAt.toISOString(),
      expiresAt: null,
      activations: [],
    });
    expect(keys[2].status).toBe('expired');
  });

  it('scopes a reseller to the keys they created and the customers they sold to', async () => {
    const { r1, u1, u2, rows } = await shop();
    // A deleted customer's keys stay, named as a deleted user.
    await box.db.delete(users).where(eq(users.id, u2.user.id));
    const res = await box.api('GET', '/api/admin/stats', { token: r1.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      totalUsers: 1,
      usersByRole: { user: 1, reseller: 0, owner: 0 },
      totalKeys: 3,
      keysByStatus: { available: 0, used: 2, expired: 1, revoked: 0 },
      totalProducts: 1,
      // Sales to customers; their own purchase is not revenue.
      totalRevenue: 50,
    });
    expect(res.body.recentActivity.users).toEqual([
      { _id: u1.user.id, username: u1.username, email: u1.email, role: 'user', createdAt: u1.user.createdAt.toISOString() },
    ]);
    const keys = res.body.recentActivity.keys;
    expect(keys.map((k: { _id: string }) => k._id)).toEqual([rows[4].id, rows[3].id, rows[2].id]);
    expect(keys[1].purchasedBy).toEqual({ _id: u2.user.id, username: 'Deleted user' });
  });

  it('answers zeros for an empty shop', async () => {
    const owner = await box.signedInUser('owner');
    const res = await box.api('GET', '/api/admin/stats', { token: owner.token });
    expect(res.body).toEqual({
      totalUsers: 1,
      totalKeys: 0,
      totalProducts: 0,
      totalRevenue: 0,
      usersByRole: { user: 0, reseller: 0, owner: 1 },
      keysByStatus: { available: 0, used: 0, expired: 0, revoked: 0 },
      recentActivity: { users: [expect.objectContaining({ _id: owner.user.id })], keys: [] },
    });
  });

  it('reads every figure through an index, never a table scan of users or keys', async () => {
    const queries: string[] = [];
    const d1 = env.ISOLATED_DB;
    const recording = interceptedD1(d1, { prepare: (query) => queries.push(query) });
    const { owner, r1 } = await shop();
    await adminStats(createDb(recording), { id: owner.user.id, role: 'owner' });
    await adminStats(createDb(recording), { id: r1.user.id, role: 'reseller' });
    // The owner's Overview, with its key counts (the shop's counters and the lapsed keys) and role
    // counts in it; the reseller's Overview, key counts (two), role counts and their customers.
    expect(queries.length).toBeGreaterThanOrEqual(6);
    for (const query of queries) {
      const params = (query.match(/\?/g) ?? []).map(() => 1);
      const plan = await d1
        .prepare(`EXPLAIN QUERY PLAN ${query}`)
        .bind(...params)
        .all<{ detail: string }>();
      for (const { detail } of plan.results) expect(detail, query).not.toMatch(/^SCAN (users|license_keys)$/);
    }
  });
});

describe('GET /api/admin/audit-log', () => {
  it('lists admin actions newest first, filtered by action and by actor, paged', async () => {
    const [a, b] = [await box.signedInUser('owner'), await box.signedInUser('owner')];
    const target = await box.signedInUser('user');
    await box.api('POST', `/api/admin/users/${target.user.id}/balance`, {
      token: a.token,
      body: { amount: 5, type: 'credits' },
      ip: '198.51.100.1',
    });
    await box.api('PUT', `/api/admin/users/${target.user.id}`, { token: a.token, body: { credits: 1 } });
    await box.api('POST', `/api/admin/users/${target.user.id}/balance`, { token: b.token, body: { amount: 2, type: 'balance' } });

    const all = await box.api('GET', '/api/admin/audit-log', { token: a.token });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.entries.map((e: { action: string }) => e.action).sort()).toEqual(['user.add_funds', 'user.add_funds', 'user.update']);

    const funds = await box.api('GET', '/api/admin/audit-log?action=user.add_funds', { token: a.token });
    expect(funds.body.total).toBe(2);
    const byA = await box.api('GET', `/api/admin/audit-log?action=user.add_funds&actor=${a.username.toUpperCase()}`, { token: a.token });
    expect(byA.body.entries).toEqual([
      {
        _id: expect.any(String) as unknown,
        action: 'user.add_funds',
        actor: { _id: a.user.id, username: a.username },
        targetType: 'user',
        targetId: target.user.id,
        details: { username: target.username, type: 'credits', amount: 5 },
        ipAddress: '198.51.100.1',
        createdAt: expect.any(String) as unknown,
      },
    ]);
    const paged = await box.api('GET', '/api/admin/audit-log?limit=2&page=2', { token: a.token });
    expect(paged.body).toMatchObject({ total: 3, totalPages: 2 });
    expect(paged.body.entries).toHaveLength(1);
    const nobody = await box.api('GET', '/api/admin/audit-log?actor=nobody-here', { token: a.token });
    expect(nobody.body).toEqual({ entries: [], totalPages: 0, total: 0 });
    const bad = await box.api('GET', '/api/admin/audit-log?action=user.hack', { token: a.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Unknown audit action');
  });

  it('keeps entries of a deleted actor', async () => {
    const [a, b] = [await box.signedInUser('owner'), await box.signedInUser('owner')];
    const target = await box.signedInUser('user');
    await box.api('POST', `/api/admin/users/${target.user.id}/balance`, { token: b.token, body: { amount: 1, type: 'credits' } });
    await box.api('DELETE', `/api/admin/users/${b.user.id}`, { token: a.token });
    const res = await box.api('GET', '/api/admin/audit-log?action=user.add_funds', { token: a.token });
    expect(res.body.entries[0].actor).toEqual({ _id: b.user.id, username: null });
    const rows = await box.db.select().from(auditLog).orderBy(asc(auditLog.createdAt)).all();
    expect(rows.map((r) => r.action)).toEqual(['user.add_funds', 'user.delete']);
  });
});
