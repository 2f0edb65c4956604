// The admin Overview's figures ("Admin stats"), each one an aggregate served by an
// index, never a table loaded into memory. The owner sees the whole shop; a reseller sees the keys
// they created and the customers they sold them to.
import { and, count, desc, eq, inArray, isNotNull, ne, sql, sum, type SQL, type SQLWrapper } from 'drizzle-orm';
import { runBatch, type DB } from '../../platform/db/client';
import { compiledStatement, rowsAsJson, runtimeLimit, slot, sqlStatement } from '../../platform/db/compiled';
import { licenseKeys, products, shopCounts, users } from '../../platform/db/schema';
import type { Actor } from '../../platform/db/schema';
import { withCounts, type Count } from '../../platform/db/counts';
import type { Role } from '../../platform/vocabulary';
import { keyCountsTotal, keysByStatus, keysJsonStatement, NEWEST_FIRST, readCountedJson, shopKeyCountsJson, type KeyCounts } from '../keys';
import { type AdminStats, type RecentUser } from './schemas';
import { type LicenseKey } from '../keys/schemas/answers';

export const RECENT_ITEMS = 5;

const readRoleCounts = ([rows]: unknown[]) => {
  const counts: RoleCounts = { user: 0, reseller: 0, owner: 0 };
  for (const row of rows as { role: Role; n: number }[]) counts[row.role] = row.n;
  return counts;
};

/** Users by role: users_role_created_idx walked in order, never a temporary B-tree. */
function usersByRole(db: DB, scope: SQL | undefined): Count<RoleCounts> {
  return { statements: [db.select({ role: users.role, n: count() }).from(users).where(scope).groupBy(users.role)], read: readRoleCounts };
}

/** Every account by role, for the owner, as a JSON column: three rows of shop_counts (migration 0032's triggers keep them). */
const shopUsersByRoleJson = (db: DB) =>
  rowsAsJson(
    db
      .select({ role: sql<Role>`${shopCounts.value}`.as('role'), n: sql<number>`${shopCounts.n}`.as('n') })
      .from(shopCounts)
      .where(eq(shopCounts.kind, 'user_role')),
    ['role', 'n'],
  );

export type RoleCounts = Record<Role, number>;

const roleCountsTotal = (counts: RoleCounts) => counts.user + counts.reseller + counts.owner;

/**
 * The Overview's figures as one statement compiled once per role (platform/db/compiled.ts), one
 * row: a local D1 batch costs as much again for every statement in it as for what most of these do.
 * The owner's counts by status and by role are columns of it too (shop_counts); a reseller's ride
 * beside it in the batch (`overviewOf`). Slots `viewer` (a reseller's id) and `now`. The owner: every product, the
 * products' revenue, the newest accounts (users_created_idx) and keys (license_keys_created_idx). A
 * reseller: the active products, the credits their customers' keys brought in, their latest
 * customers and the newest keys they created (license_keys_creator_idx). The accounts and the keys
 * come as JSON arrays, newest first.
 */
const overviewStatement = compiledStatement((db: DB, { owner }: { owner: boolean }) => {
  const productCount = db
    .select({ n: count() })
    .from(products)
    .where(owner ? undefined : eq(products.isActive, true));
  const revenue = owner
    ? // Each product counts the credits it earned; a few hundred rows at most.
      db.select({ total: sum(products.revenue) }).from(products)
    : db
        .select({ total: sum(licenseKeys.purchasePrice) })
        .from(licenseKeys)
        .where(and(eq(licenseKeys.createdBy, slot('viewer')), ne(licenseKeys.purchasedBy, slot('viewer'))));
  const people = owner
    ? rowsAsJson(
        db.select(recentUserFields).from(users).orderBy(desc(users.createdAt)).limit(runtimeLimit(RECENT_ITEMS)),
        Object.keys(recentUserFields),
        '"createdAt" DESC',
      )
    : sql`(SELECT json_group_array("id" ORDER BY "last" DESC) FROM ${latestCustomers(db, slot('viewer'))})`;
  const keys = keysJsonStatement(
    db,
    db
      .select({ id: licenseKeys.id })
      .from(licenseKeys)
      .where(owner ? undefined : eq(licenseKeys.createdBy, slot('viewer')))
      .orderBy(...NEWEST_FIRST)
      .limit(runtimeLimit(RECENT_ITEMS)),
    slot('now'),
  );
  // The owner's counts by status and by role ride in the same row (one statement fewer each in the batch).
  const counts = owner ? sql`, ${shopKeyCountsJson(db, slot('now'))} AS "keyCounts", ${shopUsersByRoleJson(db)} AS "roles"` : sql``;
  return sqlStatement(sql`SELECT ${productCount} AS "n", ${revenue} AS "total", ${people} AS "people", ${keys} AS "keys"${counts}`);
});

/** keyCounts and roles: the owner's only (JSON arrays). */
type OverviewRow = { n: number; total: string | number | null; people: string; keys: string; keyCounts?: string; roles?: string };

/** The owner's row, or a reseller's with their counts from the same batch. */
async function overviewOf(db: DB, viewer: Actor, now: number): Promise<{ row: OverviewRow; keyCounts: KeyCounts; roleCounts: RoleCounts }> {
  const values = { viewer: viewer.id, now };
  if (viewer.role === 'owner') {
    const [[row]] = (await runBatch(db, [overviewStatement(db, { owner: true }, values)])) as [[OverviewRow]];
    return { row, keyCounts: readCountedJson(row.keyCounts!), roleCounts: readRoleCounts([JSON.parse(row.roles!)]) };
  }
  // The reseller's keys: license_keys_creator_idx (created_by, created_at).
  const keyScope = eq(licenseKeys.createdBy, viewer.id);
  // The reseller's customers: buyers of the keys they created, other than themselves.
  const customerIds = db
    .selectDistinct({ id: licenseKeys.purchasedBy })
    .from(licenseKeys)
    .where(and(eq(licenseKeys.createdBy, viewer.id), isNotNull(licenseKeys.purchasedBy), ne(licenseKeys.purchasedBy, viewer.id)));
  const {
    page: [[row]],
    counts: [keyCounts, roleCounts],
  } = (await withCounts<[KeyCounts, RoleCounts]>(
    db,
    [overviewStatement(db, { owner: false }, values)],
    [keysByStatus(db, keyScope, now), usersByRole(db, inArray(users.id, customerIds))],
  )) as { page: [OverviewRow[]]; counts: [KeyCounts, RoleCounts] };
  return { row, keyCounts, roleCounts };
}

/** The Overview's figures. */
export async function adminStats(db: DB, viewer: Actor, now = Date.now()): Promise<AdminStats> {
  const isOwner = viewer.role === 'owner';
  // Every figure, the counts by status and by role too, in one D1 round trip.
  const { row, keyCounts, roleCounts } = await overviewOf(db, viewer, now);
  // A reseller's latest customers are named by a second read, from the ids the first one found.
  const recentUsers = isOwner
    ? (JSON.parse(row.people) as RecentUserRow[]).map(toRecentUser)
    : await customersInOrder(db, JSON.parse(row.people) as string[]);
  const recentKeys = JSON.parse(row.keys) as LicenseKey[];

  return {
    totalUsers: roleCountsTotal(roleCounts),
    totalKeys: keyCountsTotal(keyCounts),
    totalProducts: row.n,
    totalRevenue: Number(row.total ?? 0),
    usersByRole: roleCounts,
    keysByStatus: keyCounts,
    recentActivity: { users: recentUsers, keys: recentKeys },
  };
}

/** An account as recentUserFields reads it: the creation time in milliseconds. */
type RecentUserRow = { id: string; username: string; email: string; role: Role; createdAt: number };

const toRecentUser = (u: RecentUserRow): RecentUser => ({
  _id: u.id,
  username: u.username,
  email: u.email,
  role: u.role,
  createdAt: new Date(u.createdAt).toISOString(),
});

// Named, as a compiled statement's rows come back under the names SQLite gives its columns.
const recentUserFields = {
  id: sql<string>`${users.id}`.as('id'),
  username: sql<string>`${users.username}`.as('username'),
  email: sql<string>`${users.email}`.as('email'),
  role: sql<Role>`${users.role}`.as('role'),
  createdAt: sql<number>`${users.createdAt}`.as('createdAt'),
};

/** A reseller's latest customers: buyers of the keys they created, other than themselves, latest sale first. */
function latestCustomers(db: DB, resellerId: SQLWrapper) {
  return db
    .select({ id: sql<string | null>`${licenseKeys.purchasedBy}`.as('id'), last: sql<number>`max(${licenseKeys.createdAt})`.as('last') })
    .from(licenseKeys)
    .where(and(eq(licenseKeys.createdBy, resellerId), isNotNull(licenseKeys.purchasedBy), ne(licenseKeys.purchasedBy, resellerId)))
    .groupBy(licenseKeys.purchasedBy)
    .orderBy(desc(sql`max(${licenseKeys.createdAt})`))
    .limit(runtimeLimit(RECENT_ITEMS));
}

/** The accounts of these customers, in the given order (a deleted one is left out). */
async function customersInOrder(db: DB, ids: string[]): Promise<RecentUser[]> {
  if (ids.length === 0) return [];
  const rows = await db.select(recentUserFields).from(users).where(inArray(users.id, ids)).all();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [toRecentUser(byId.get(id)!)] : []));
}
