// The admin Overview's figures (SPEC section 3, "Admin stats"), each one an aggregate served by an
// index, never a table loaded into memory. The owner sees the whole shop; a reseller sees the keys
// they created and the customers they sold them to.
import { and, count, desc, eq, inArray, isNotNull, lte, ne, sql, sum, type SQL } from 'drizzle-orm';
import type { DB } from '../db/client';
import { licenseKeys, products, users, type KeyStatus, type Role } from '../db/schema';
import type { SessionUser } from '../lib/sessions';
import type { AdminStats, RecentUser } from '../schemas/entities';
import { licenseKeysJson } from './license-keys';

export const RECENT_ITEMS = 5;

export type KeyCounts = Record<KeyStatus, number>;

/**
 * Keys by status at `now` (`effectiveStatus` in license-keys.ts): the stored statuses counted in
 * index order, then the used and available keys whose expiry has passed, which the scheduled job has
 * not marked yet, moved to expired. Grouping by a CASE over every key instead needs a temporary
 * B-tree and costs ten times more at 200,000 keys.
 */
async function countKeysByStatus(db: DB, scope: SQL | undefined, now: number): Promise<KeyCounts> {
  const [stored, lapsed] = await db.batch([
    // license_keys_status_idx (status, created_at) for the owner; license_keys_creator_idx for a reseller.
    db.select({ status: licenseKeys.status, n: count() }).from(licenseKeys).where(scope).groupBy(licenseKeys.status),
    // A short range of license_keys_expiry_idx (status, expires_at).
    db
      .select({ status: licenseKeys.status, n: count() })
      .from(licenseKeys)
      .where(and(scope, inArray(licenseKeys.status, ['used', 'available']), lte(licenseKeys.expiresAt, new Date(now))))
      .groupBy(licenseKeys.status),
  ]);
  const counts: KeyCounts = { available: 0, used: 0, revoked: 0, expired: 0 };
  for (const row of stored) counts[row.status] += row.n;
  for (const row of lapsed) {
    counts[row.status] -= row.n;
    counts.expired += row.n;
  }
  return counts;
}

/** Past this many keys, the owner's counts are reused for a few seconds (see `ownerKeyCounts`). */
export const KEY_COUNTS_REUSE_FROM = 10_000;
export const KEY_COUNTS_REUSE_MS = 5_000;
let ownerCounts: { d1: D1Database; at: number; counts: Promise<KeyCounts> } | null = null;

/**
 * The owner's counts walk every key: about 10 ms of SQLite at 200,000 keys, for a panel that many
 * admins may have open. Requests that arrive while the keys are being counted share that count, and
 * a shop past 10,000 keys reuses it for up to 5 s in this isolate; a smaller shop is counted on every
 * request, so its figures are exact right after any change.
 */
export function ownerKeyCounts(db: DB, now: number): Promise<KeyCounts> {
  const d1 = db.$client;
  if (ownerCounts && ownerCounts.d1 === d1 && now - ownerCounts.at < KEY_COUNTS_REUSE_MS) return ownerCounts.counts;
  const entry = { d1, at: now, counts: countKeysByStatus(db, undefined, now) };
  ownerCounts = entry;
  const forget = () => {
    if (ownerCounts === entry) ownerCounts = null;
  };
  entry.counts.then((c) => (keyCountsTotal(c) < KEY_COUNTS_REUSE_FROM ? forget() : undefined), forget);
  return entry.counts;
}

export const keyCountsTotal = (counts: KeyCounts) => counts.available + counts.used + counts.revoked + counts.expired;

export async function adminStats(db: DB, viewer: SessionUser, now = Date.now()): Promise<AdminStats> {
  const isOwner = viewer.role === 'owner';
  // The reseller's keys: license_keys_creator_idx (created_by, created_at).
  const keyScope = isOwner ? undefined : eq(licenseKeys.createdBy, viewer.id);
  // The reseller's customers: buyers of the keys they created, other than themselves.
  const customerIds = db
    .selectDistinct({ id: licenseKeys.purchasedBy })
    .from(licenseKeys)
    .where(and(eq(licenseKeys.createdBy, viewer.id), isNotNull(licenseKeys.purchasedBy), ne(licenseKeys.purchasedBy, viewer.id)));
  const userScope = isOwner ? undefined : inArray(users.id, customerIds);

  const revenue = isOwner
    ? // Each product counts the credits it earned; a few hundred rows at most.
      db.select({ total: sum(products.revenue) }).from(products)
    : db
        .select({ total: sum(licenseKeys.purchasePrice) })
        .from(licenseKeys)
        .where(and(eq(licenseKeys.createdBy, viewer.id), ne(licenseKeys.purchasedBy, viewer.id)));
  // The owner's newest accounts (users_created_idx); a reseller's customers, latest sale first.
  const recentPeople = isOwner ? db.select(recentUserFields).from(users).orderBy(desc(users.createdAt)).limit(RECENT_ITEMS) : latestCustomers(db, viewer.id);
  // Every figure but the key counts in one D1 round trip.
  const [roleRows, productRows, revenueRows, peopleRows, keyRows] = await db.batch([
    // users_role_created_idx covers the owner's count.
    db.select({ role: users.role, n: count() }).from(users).where(userScope).groupBy(users.role),
    db
      .select({ n: count() })
      .from(products)
      .where(isOwner ? undefined : eq(products.isActive, true)),
    revenue,
    recentPeople,
    // license_keys_created_idx, or license_keys_creator_idx for a reseller.
    db.select().from(licenseKeys).where(keyScope).orderBy(desc(licenseKeys.createdAt)).limit(RECENT_ITEMS),
  ]);
  const [keysByStatus, recentUsers, recentKeys] = await Promise.all([
    isOwner ? ownerKeyCounts(db, now) : countKeysByStatus(db, keyScope, now),
    isOwner ? (peopleRows as RecentUserRow[]).map(toRecentUser) : customersInOrder(db, (peopleRows as { id: string | null }[]).map((r) => r.id!)),
    licenseKeysJson(db, keyRows, now),
  ]);
  const productRow = productRows[0];
  const revenueRow = revenueRows[0];

  const usersByRole: Record<Role, number> = { user: 0, reseller: 0, owner: 0 };
  for (const row of roleRows) usersByRole[row.role] = row.n;

  return {
    totalUsers: roleRows.reduce((total, r) => total + r.n, 0),
    totalKeys: keyCountsTotal(keysByStatus),
    totalProducts: productRow?.n ?? 0,
    totalRevenue: Number(revenueRow?.total ?? 0),
    usersByRole,
    keysByStatus,
    recentActivity: { users: recentUsers, keys: recentKeys },
  };
}

type RecentUserRow = { id: string; username: string; email: string; role: Role; createdAt: Date };

const toRecentUser = (u: RecentUserRow): RecentUser => ({
  _id: u.id,
  username: u.username,
  email: u.email,
  role: u.role,
  createdAt: u.createdAt.toISOString(),
});

const recentUserFields = { id: users.id, username: users.username, email: users.email, role: users.role, createdAt: users.createdAt };

/** A reseller's latest customers: buyers of the keys they created, other than themselves, latest sale first. */
function latestCustomers(db: DB, resellerId: string) {
  return db
    .select({ id: licenseKeys.purchasedBy, last: sql<number>`max(${licenseKeys.createdAt})` })
    .from(licenseKeys)
    .where(and(eq(licenseKeys.createdBy, resellerId), isNotNull(licenseKeys.purchasedBy), ne(licenseKeys.purchasedBy, resellerId)))
    .groupBy(licenseKeys.purchasedBy)
    .orderBy(desc(sql`max(${licenseKeys.createdAt})`))
    .limit(RECENT_ITEMS);
}

/** The accounts of these customers, in the given order (a deleted one is left out). */
async function customersInOrder(db: DB, ids: string[]): Promise<RecentUser[]> {
  if (ids.length === 0) return [];
  const rows = await db.select(recentUserFields).from(users).where(inArray(users.id, ids)).all();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [toRecentUser(byId.get(id)!)] : []));
}
