// The owner's whole-shop counts at scale (keys by status, users by role): read from shop_counts
// (migration 0032's triggers keep them), exact right after any change at any size, and never by
// walking the keys or the accounts. Runs on a database of its own (STATS_DB), with tens of
// thousands of rows made by SQLite itself.
import { applyD1Migrations, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../platform/db/client';
import { adminStats } from '../admin-stats';
import type { Actor } from '../../../platform/db/schema';
import { interceptedD1 } from '../../../test/helpers';

const d1 = env.STATS_DB;
const owner: Actor = { id: 'stats-owner', role: 'owner' };
/** Past the size where the counts used to be reused for seconds rather than counted on each request. */
const MANY = 20_000;
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

  it(`are exact right after any change with ${MANY.toLocaleString('en-US')} keys, and never walk them`, async () => {
    await addKeys(MANY, 'used');
    const { binding, counted } = countingD1();
    const db = createDb(binding);
    const now = Date.now() + 60_000;
    expect((await adminStats(db, owner, now)).totalKeys).toBe(MANY + 5);
    await addKeys(1, 'used');
    expect((await adminStats(db, owner, now)).keysByStatus).toEqual({ available: 3, used: MANY + 1, revoked: 2, expired: 0 });
    // A key whose expiry passed before the cron marked it counts as expired at once.
    await d1
      .prepare(`UPDATE license_keys SET expires_at = ?1 WHERE id = (SELECT id FROM license_keys WHERE status = 'used' LIMIT 1)`)
      .bind(now - 1)
      .run();
    expect((await adminStats(db, owner, now)).keysByStatus).toEqual({ available: 3, used: MANY, revoked: 2, expired: 1 });
    expect(counted()).toBe(0);
  });
});

describe("the owner's user counts", () => {
  const byRole = /group by "users"\."role"/;

  it(`are exact right after any change with ${MANY.toLocaleString('en-US')} accounts, and never walk them`, async () => {
    const now = Date.now() + 3_600_000;
    const { binding, counted } = countingD1(byRole);
    const db = createDb(binding);
    const before = await adminStats(db, owner, now);
    await addUsers(MANY);
    const after = await adminStats(db, owner, now);
    expect(after.usersByRole.user).toBe(before.usersByRole.user + MANY);
    await addUsers(1);
    expect((await adminStats(db, owner, now)).totalUsers).toBe(after.totalUsers + 1);
    expect(counted()).toBe(0);
  });
});
