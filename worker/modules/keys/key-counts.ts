// License keys by status, as a count that rides in a page's batch (platform/db/counts.ts): the admin
// key list's totals and the Overview's figures.
import { and, count, eq, inArray, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { unionAll, type AnySQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { DB } from '../../platform/db/client';
import { rowsAsJson } from '../../platform/db/compiled';
import type { Count } from '../../platform/db/counts';
import { licenseKeys, shopCounts } from '../../platform/db/schema';
import type { KeyStatus } from '../../platform/vocabulary';
import { passedAt } from '../../platform/db/expiry';

export type KeyCounts = Record<KeyStatus, number>;

/**
 * Keys by status at `now` (`effectiveStatus` in license-keys.ts): the stored statuses counted in
 * index order, then the used and available keys whose expiry has passed, which the scheduled job has
 * not marked yet, moved to expired. Grouping by a CASE over every key instead needs a temporary
 * B-tree and costs ten times more at 200,000 keys.
 */
export function keysByStatus(db: DB, scope: SQL | undefined, now: number): Count<KeyCounts> {
  return {
    statements: [
      // license_keys_status_idx (status, created_at) for the owner; license_keys_creator_idx for a reseller.
      db.select({ status: licenseKeys.status, n: count() }).from(licenseKeys).where(scope).groupBy(licenseKeys.status),
      lapsedKeys(db, scope, now, {}),
    ],
    read: ([stored, lapsed]) => countsOf(stored as StatusCount[], lapsed as StatusCount[]),
  };
}

export type StatusCount = { status: KeyStatus; n: number };

/**
 * Used and available keys whose expiry passed at `now` (a moment, or a compiled statement's slot):
 * a short range of license_keys_expiry_idx (status, expires_at).
 */
export const lapsedKeys = <T extends Record<string, SQL.Aliased>>(db: DB, scope: SQL | undefined, now: number | Placeholder, extra: T) =>
  db
    // Named, so that a statement can read the rows as a subquery (admin-keys.ts).
    .select({ status: licenseKeys.status, n: count().as('n'), ...extra })
    .from(licenseKeys)
    .where(
      and(
        scope,
        inArray(licenseKeys.status, ['used', 'available']),
        passedAt(licenseKeys.expiresAt, typeof now === 'number' ? new Date(now) : now),
      ),
    )
    .groupBy(licenseKeys.status);

/** The stored statuses' counts, with the lapsed keys moved to expired (`effectiveStatus`). */
export function countsOf(stored: StatusCount[], lapsed: StatusCount[]): KeyCounts {
  const counts: KeyCounts = { available: 0, used: 0, revoked: 0, expired: 0 };
  for (const row of stored) counts[row.status] += row.n;
  for (const row of lapsed) {
    counts[row.status] -= row.n;
    counts.expired += row.n;
  }
  return counts;
}

/** The shop's keys by stored status: four rows of shop_counts (migration 0032's triggers keep them). */
const SHOP_KEY_COUNTS = { table: shopCounts, status: shopCounts.value, n: shopCounts.n, where: eq(shopCounts.kind, 'key_status') };

/**
 * Every key of the shop by status at `now`, for the owner, as a column of a page's own statement (a
 * local D1 batch costs about as much again for each statement as for what a short one does): the
 * stored statuses from shop_counts and, beside them, the same short range of license_keys_expiry_idx
 * as `keysByStatus` reads, the keys whose expiry passed before the scheduled job marked them, as a
 * JSON array that `readCountedJson` reads, with those moved to expired. Exact on every request, at
 * any size: the rows read are four and the lapsed keys, never the shop's keys. `now` is a moment or
 * a compiled statement's slot.
 */
export const shopKeyCountsJson = (db: DB, now: number | Placeholder): SQL =>
  rowsAsJson(countedRows(db, SHOP_KEY_COUNTS, undefined, now), ['status', 'n', 'lapsed']);

/** The keys by status from shopKeyCountsJson's column. */
export const readCountedJson = (json: string): KeyCounts => readCounted(JSON.parse(json) as CountedRow[]);

type Counters = { table: SQLiteTable; status: AnySQLiteColumn; n: AnySQLiteColumn; where: SQL | undefined };
type CountedRow = StatusCount & { lapsed: number };

/** The counters' rows (lapsed 0) and the lapsed keys' (lapsed 1), as countedKeysByStatus reads them. */
function countedRows(db: DB, counts: Counters, scope: SQL | undefined, now: number | Placeholder) {
  const stored = db
    .select({
      status: sql<string>`${counts.status}`.as('status'),
      n: sql<number>`${counts.n}`.as('n'),
      lapsed: sql<number>`0`.as('lapsed'),
    })
    .from(counts.table)
    .where(counts.where);
  return unionAll(stored, lapsedKeys(db, scope, now, { lapsed: sql<number>`1`.as('lapsed') }));
}

const readCounted = (rows: CountedRow[]) =>
  countsOf(
    rows.filter((r) => !r.lapsed),
    rows.filter((r) => r.lapsed),
  );

/**
 * Keys by status at `now` from counters kept by triggers (a row per stored status: `table` where
 * `where`), with the keys of `scope` whose expiry passed before the scheduled job marked them moved
 * to expired, in one statement (the reseller's statistics). The lapsed keys are read from
 * license_keys_expiry_idx: a scope must not offer SQLite an index of its own (write its column as
 * `+column`), or the range would be every key of the scope instead of the lapsed ones.
 */
export function countedKeysByStatus(db: DB, counts: Counters, scope: SQL | undefined, now: number): Count<KeyCounts> {
  return { statements: [countedRows(db, counts, scope, now)], read: ([rows]) => readCounted(rows as CountedRow[]) };
}

export const keyCountsTotal = (counts: KeyCounts) => counts.available + counts.used + counts.revoked + counts.expired;
