// License keys by status, as a count that rides in a page's batch (platform/db/counts.ts): the admin
// key list's totals and the Overview's figures.
import { and, count, inArray, type SQL } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { ReusedCount, type Count } from '../../platform/db/counts';
import { licenseKeys } from '../../platform/db/schema';
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
      // A short range of license_keys_expiry_idx (status, expires_at).
      db
        .select({ status: licenseKeys.status, n: count() })
        .from(licenseKeys)
        .where(and(scope, inArray(licenseKeys.status, ['used', 'available']), passedAt(licenseKeys.expiresAt, new Date(now))))
        .groupBy(licenseKeys.status),
    ],
    read: ([stored, lapsed]) => {
      const counts: KeyCounts = { available: 0, used: 0, revoked: 0, expired: 0 };
      for (const row of stored as { status: KeyStatus; n: number }[]) counts[row.status] += row.n;
      for (const row of lapsed as { status: KeyStatus; n: number }[]) {
        counts[row.status] -= row.n;
        counts.expired += row.n;
      }
      return counts;
    },
  };
}

/** Every key by status, for the owner (see `ReusedCount`). */
export const ownerKeyCounts = new ReusedCount<KeyCounts>(
  'owner-key-counts',
  (db, now) => keysByStatus(db, undefined, now),
  (c) => keyCountsTotal(c),
);

export const keyCountsTotal = (counts: KeyCounts) => counts.available + counts.used + counts.revoked + counts.expired;
