// The admin Overview's figures (SPEC section 3, "Admin stats"), each one an aggregate served by an
// index, never a table loaded into memory. The owner sees the whole shop; a reseller sees the keys
// they created and the customers they sold them to.
import { and, count, desc, eq, inArray, isNotNull, lte, ne, sql, sum, type SQL, type SQLWrapper } from 'drizzle-orm';
import { plainBatch, type DB, type RunBatch } from '../db/client';
import { compiledStatement, slot } from '../db/compiled';
import { licenseKeys, products, users, type KeyStatus, type Role } from '../db/schema';
import type { SessionUser } from '../lib/sessions';
import type { AdminStats, LicenseKey, RecentUser } from '../schemas/entities';
import { keysJsonStatement, NEWEST_FIRST } from './license-keys';

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

/** Past this many rows, the owner's whole-shop counts are reused for a few seconds (see `ReusedCount`). */
export const COUNTS_REUSE_FROM = 10_000;
export const COUNTS_REUSE_MS = 5_000;

/**
 * A whole-shop count for the owner's screens, which walks every row it counts: about 10 ms of
 * SQLite for 200,000 keys and 0.7 ms for 10,000 users, for a panel that many admins may have open.
 * Requests that arrive while it is being counted share that count, and once it covers 10,000 rows
 * or more this isolate reuses it for up to 5 s; a smaller shop is counted on every request, so its
 * figures are exact right after any change.
 */
class ReusedCount<T> {
  private entry: { d1: D1Database; at: number; value: Promise<T> } | null = null;

  constructor(
    private readonly count: (db: DB, now: number) => Promise<T>,
    private readonly rows: (value: T) => number,
  ) {}

  get(db: DB, now: number): Promise<T> {
    const d1 = db.$client;
    const cached = this.entry;
    if (cached && cached.d1 === d1 && now - cached.at < COUNTS_REUSE_MS) return cached.value;
    const entry = { d1, at: now, value: this.count(db, now) };
    this.entry = entry;
    const forget = () => {
      if (this.entry === entry) this.entry = null;
    };
    entry.value.then((value) => (this.rows(value) < COUNTS_REUSE_FROM ? forget() : undefined), forget);
    return entry.value;
  }
}

const ownerKeyCountsReuse = new ReusedCount<KeyCounts>((db, now) => countKeysByStatus(db, undefined, now), (c) => keyCountsTotal(c));

/** Every key by status at `now`, for the owner (see `ReusedCount`). */
export const ownerKeyCounts = (db: DB, now: number): Promise<KeyCounts> => ownerKeyCountsReuse.get(db, now);

export type RoleCounts = Record<Role, number>;

/** Users by role: users_role_created_idx walked in order, never a temporary B-tree. */
async function countUsersByRole(db: DB, scope: SQL | undefined): Promise<RoleCounts> {
  const rows = await db.select({ role: users.role, n: count() }).from(users).where(scope).groupBy(users.role);
  const counts: RoleCounts = { user: 0, reseller: 0, owner: 0 };
  for (const row of rows) counts[row.role] = row.n;
  return counts;
}

const roleCountsTotal = (counts: RoleCounts) => counts.user + counts.reseller + counts.owner;

/** Every account by role, for the owner (see `ReusedCount`). */
const ownerRoleCountsReuse = new ReusedCount<RoleCounts>((db) => countUsersByRole(db, undefined), roleCountsTotal);

export const keyCountsTotal = (counts: KeyCounts) => counts.available + counts.used + counts.revoked + counts.expired;

/**
 * The Overview's statements but the counts, compiled once per role (db/compiled.ts); slots `viewer`
 * (a reseller's id) and `now`. The owner: every product, the products' revenue, the newest accounts
 * (users_created_idx) and keys (license_keys_created_idx). A reseller: the active products, the
 * credits their customers' keys brought in, their latest customers and the newest keys they created
 * (license_keys_creator_idx).
 */
const overviewProducts = compiledStatement((db: DB, { owner }: { owner: boolean }) =>
  db
    .select({ n: count().as('n') })
    .from(products)
    .where(owner ? undefined : eq(products.isActive, true)),
);
const overviewRevenue = compiledStatement((db: DB, { owner }: { owner: boolean }) =>
  owner
    ? // Each product counts the credits it earned; a few hundred rows at most.
      db.select({ total: sum(products.revenue).as('total') }).from(products)
    : db
        .select({ total: sum(licenseKeys.purchasePrice).as('total') })
        .from(licenseKeys)
        .where(and(eq(licenseKeys.createdBy, slot('viewer')), ne(licenseKeys.purchasedBy, slot('viewer')))),
);
const overviewPeople = compiledStatement((db: DB, { owner }: { owner: boolean }) =>
  owner ? db.select(recentUserFields).from(users).orderBy(desc(users.createdAt)).limit(RECENT_ITEMS) : latestCustomers(db, slot('viewer')),
);
const overviewKeys = compiledStatement((db: DB, { owner }: { owner: boolean }) =>
  keysJsonStatement(
    db,
    db
      .select({ id: licenseKeys.id })
      .from(licenseKeys)
      .where(owner ? undefined : eq(licenseKeys.createdBy, slot('viewer')))
      .orderBy(...NEWEST_FIRST)
      .limit(RECENT_ITEMS),
    slot('now'),
  ),
);

/** The Overview's figures; `run` runs its one batch (the request's runner, with the session's checks in front). */
export async function adminStats(db: DB, viewer: Pick<SessionUser, 'id' | 'role'>, now = Date.now(), run: RunBatch = plainBatch(db)): Promise<AdminStats> {
  const isOwner = viewer.role === 'owner';
  // The reseller's keys: license_keys_creator_idx (created_by, created_at).
  const keyScope = isOwner ? undefined : eq(licenseKeys.createdBy, viewer.id);
  // The reseller's customers: buyers of the keys they created, other than themselves.
  const customerIds = db
    .selectDistinct({ id: licenseKeys.purchasedBy })
    .from(licenseKeys)
    .where(and(eq(licenseKeys.createdBy, viewer.id), isNotNull(licenseKeys.purchasedBy), ne(licenseKeys.purchasedBy, viewer.id)));
  const userScope = isOwner ? undefined : inArray(users.id, customerIds);

  // Every figure but the counts by status and by role in one D1 round trip.
  const shape = { owner: isOwner };
  const values = { viewer: viewer.id, now };
  const [productRows, revenueRows, peopleRows, keyRows] = (await run([
    overviewProducts(db, shape, values),
    overviewRevenue(db, shape, values),
    overviewPeople(db, shape, values),
    overviewKeys(db, shape, values),
  ])) as [{ n: number }[], { total: string | number | null }[], unknown[], { json: string }[]];
  const [keysByStatus, usersByRole, recentUsers] = await Promise.all([
    isOwner ? ownerKeyCounts(db, now) : countKeysByStatus(db, keyScope, now),
    isOwner ? ownerRoleCountsReuse.get(db, now) : countUsersByRole(db, userScope),
    isOwner ? (peopleRows as RecentUserRow[]).map(toRecentUser) : customersInOrder(db, (peopleRows as { id: string | null }[]).map((r) => r.id!)),
  ]);
  const recentKeys = JSON.parse(keyRows[0]!.json) as LicenseKey[];
  const productRow = productRows[0];
  const revenueRow = revenueRows[0];

  return {
    totalUsers: roleCountsTotal(usersByRole),
    totalKeys: keyCountsTotal(keysByStatus),
    totalProducts: productRow?.n ?? 0,
    totalRevenue: Number(revenueRow?.total ?? 0),
    usersByRole,
    keysByStatus,
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
    .limit(RECENT_ITEMS);
}

/** The accounts of these customers, in the given order (a deleted one is left out). */
async function customersInOrder(db: DB, ids: string[]): Promise<RecentUser[]> {
  if (ids.length === 0) return [];
  const rows = await db.select(recentUserFields).from(users).where(inArray(users.id, ids)).all();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [toRecentUser(byId.get(id)!)] : []));
}
