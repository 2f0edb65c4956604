// The owner's whole-shop counts at scale (keys by status, users by role): a small shop is counted on
// every request (exact right after any change); past 10,000 rows each isolate reuses a count for a
// few seconds, and concurrent requests share one count. Runs on a database of its own (STATS_DB),
// filled past the threshold.
import { applyD1Migrations, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../platform/db/client';
import { adminStats } from '../admin-stats';
import { COUNTS_REUSE_FROM, COUNTS_REUSE_MS } from '../../../platform/db/counts';
import type { Actor } from '../../../platform/db/schema';
import { interceptedD1 } from '../../../test/helpers';

const d1 = env.STATS_DB;
const owner: Actor = { id: 'stats-owner', role: 'owner' };
let batch = 0;

/** `count` keys with `status`, made by SQLite itself in one statement. */
async function addKeys(count: number, status: 'available' | 'used' | 'revoked') {
  const prefix = `S${batch++}`;
  await d1
    .prepare(
      `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?1)
       INSERT INTO license_keys (id, key, status, product_id, product_name, product_key_tag, product_type, duration, max_activations, created_at)
       SELECT printf('%s-%07d', ?2, n), printf('TAG-%s-%07d', ?2, n), ?3, 'product', 'Product', 'TAG', 'software', 30, 1, ?4 FROM seq`,
    )
    .bind(count, prefix, status, Date.now())
    .run();
}

/** `count` customer accounts, made by SQLite itself in one statement. */
async function addUsers(count: number) {
  const prefix = `U${batch++}`;
  await d1
    .prepare(
      `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?1)
       INSERT INTO users (id, username, email, role, created_at)
       SELECT printf('%s-%07d', ?2, n), printf('%s-%07d', ?2, n), printf('%s-%07d@example.com', ?2, n), 'user', ?3 FROM seq`,
    )
    .bind(count, prefix, Date.now())
    .run();
}

/** A D1 binding that counts how often a statement matching `pattern` is prepared (keys by status by default). */
function countingD1(pattern = /group by "license_keys"\."status"/) {
  let counts = 0;
  const binding = interceptedD1(d1, {
    prepare: (sql) => {
      if (pattern.test(sql) && !/expires_at/.test(sql)) counts++;
    },
  });
  return { binding, counted: () => counts };
}

beforeAll(async () => {
  await applyD1Migrations(d1, env.TEST_MIGRATIONS);
  await d1.prepare('DELETE FROM license_keys').run();
  await d1.prepare('DELETE FROM users').run();
});

describe("the owner's key counts", () => {
  it('are exact on every request in a small shop', async () => {
    const db = createDb(d1);
    await addKeys(3, 'available');
    const now = Date.now();
    expect((await adminStats(db, owner, now)).keysByStatus).toEqual({ available: 3, used: 0, revoked: 0, expired: 0 });
    await addKeys(2, 'revoked');
    expect((await adminStats(db, owner, now + 1)).keysByStatus).toEqual({ available: 3, used: 0, revoked: 2, expired: 0 });
  });

  it(`past ${COUNTS_REUSE_FROM.toLocaleString('en-US')} keys, are reused for ${COUNTS_REUSE_MS / 1000} s`, async () => {
    await addKeys(COUNTS_REUSE_FROM, 'used');
    const { binding, counted } = countingD1();
    const db = createDb(binding);
    const now = Date.now() + 60_000;
    // What one count costs (drizzle may prepare a batched statement more than once), on a binding of its own.
    const solo = countingD1();
    expect((await adminStats(createDb(solo.binding), owner, now)).totalKeys).toBe(COUNTS_REUSE_FROM + 5);
    const oneCount = solo.counted();
    expect(oneCount).toBeGreaterThan(0);

    // Counted once, in the first request's own batch; the next ones reuse it.
    const first = [await adminStats(db, owner, now), await adminStats(db, owner, now), await adminStats(db, owner, now)];
    expect(counted()).toBe(oneCount);
    for (const stats of first) expect(stats.totalKeys).toBe(COUNTS_REUSE_FROM + 5);

    await addKeys(1, 'used');
    expect((await adminStats(db, owner, now + COUNTS_REUSE_MS - 1)).totalKeys).toBe(COUNTS_REUSE_FROM + 5);
    expect(counted()).toBe(oneCount);
    expect((await adminStats(db, owner, now + COUNTS_REUSE_MS)).keysByStatus).toEqual({
      available: 3,
      used: COUNTS_REUSE_FROM + 1,
      revoked: 2,
      expired: 0,
    });
    expect(counted()).toBe(2 * oneCount);
  });
});

describe("the owner's user counts", () => {
  const byRole = /group by "users"\."role"/;

  it(`are exact on every request below ${COUNTS_REUSE_FROM.toLocaleString('en-US')} accounts, then reused for ${COUNTS_REUSE_MS / 1000} s`, async () => {
    const now = Date.now() + 3_600_000;
    await addUsers(3);
    const small = countingD1(byRole);
    const db = createDb(small.binding);
    const before = await adminStats(db, owner, now);
    // What one count costs (drizzle may prepare a batched statement more than once).
    const oneCount = small.counted();
    expect(oneCount).toBeGreaterThan(0);
    await addUsers(2);
    const after = await adminStats(db, owner, now);
    expect(after.usersByRole.user).toBe(before.usersByRole.user + 2);
    expect(small.counted()).toBe(2 * oneCount);

    await addUsers(COUNTS_REUSE_FROM);
    const large = countingD1(byRole);
    const db2 = createDb(large.binding);
    const later = now + 60_000;
    const first = [await adminStats(db2, owner, later), await adminStats(db2, owner, later)];
    expect(large.counted()).toBe(oneCount);
    for (const stats of first) expect(stats.totalUsers).toBe(after.totalUsers + COUNTS_REUSE_FROM);
    await addUsers(1);
    expect((await adminStats(db2, owner, later + COUNTS_REUSE_MS - 1)).totalUsers).toBe(after.totalUsers + COUNTS_REUSE_FROM);
    expect(large.counted()).toBe(oneCount);
    expect((await adminStats(db2, owner, later + COUNTS_REUSE_MS)).usersByRole.user).toBe(after.usersByRole.user + COUNTS_REUSE_FROM + 1);
    expect(large.counted()).toBe(2 * oneCount);
  });
});
