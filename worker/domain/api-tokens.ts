// API tokens: named, long-lived bearer tokens for scripts and the CLI. The secret is shown once and
// stored as its SHA-256 (a 256-bit random value needs no slow hash); revoking deletes the row, so
// a revoked token is refused by the very next request. A token acts with the lower of its own role
// and its owner's current role, so a demotion takes effect on every token at once.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { DB } from '../db/client';
import { apiTokens, rateLimits, users, type Role } from '../db/schema';
import { AppError, forbidden } from '../lib/errors';
import { newId, randomToken, sha256Hex } from '../lib/ids';
import { LAST_ACTIVE_WRITE_MS, type SessionUser } from '../lib/sessions';
import { API_TOKEN_PREFIX, MAX_API_TOKENS_PER_USER } from '../schemas/api-tokens';
import type { ApiToken } from '../schemas/entities';
import { RULES, windowStartOf } from './throttle';

const ROLE_RANK: Record<Role, number> = { user: 0, reseller: 1, owner: 2 };
const lowerRole = (a: Role, b: Role): Role => (ROLE_RANK[a] <= ROLE_RANK[b] ? a : b);

/** The roles that may hold API tokens; a plain user's account has no use for one. */
export const mayHoldApiTokens = (role: Role) => ROLE_RANK[role] >= ROLE_RANK.reseller;

type ApiTokenRow = typeof apiTokens.$inferSelect;

export const toApiTokenJson = (row: Pick<ApiTokenRow, 'id' | 'name' | 'role' | 'readOnly' | 'createdAt' | 'lastUsedAt'>): ApiToken => ({
  _id: row.id,
  name: row.name,
  role: row.role,
  readOnly: row.readOnly,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
});

export async function createApiToken(
  db: DB,
  creator: SessionUser,
  input: { name: string; role: Role; readOnly: boolean },
  now = Date.now(),
): Promise<{ token: string; apiToken: ApiToken }> {
  if (!mayHoldApiTokens(creator.role)) throw forbidden('API tokens are available to owners and resellers only');
  if (ROLE_RANK[input.role] > ROLE_RANK[creator.role]) throw forbidden(`A token's role cannot be above your own role (${creator.role})`);
  const token = API_TOKEN_PREFIX + randomToken(32);
  const row = { id: newId(now), userId: creator.id, name: input.name, tokenHash: await sha256Hex(token), role: input.role, readOnly: input.readOnly, createdAt: new Date(now) };
  // The count and the insert are one statement, so concurrent requests cannot pass the limit together.
  const inserted = await db
    .insert(apiTokens)
    .select(
      sql`SELECT ${row.id}, ${row.userId}, ${row.name}, ${row.tokenHash}, ${row.role}, ${row.readOnly ? 1 : 0}, NULL, ${now}
           WHERE (SELECT count(*) FROM ${apiTokens} WHERE ${apiTokens.userId} = ${creator.id}) < ${MAX_API_TOKENS_PER_USER}`,
    )
    .returning({ id: apiTokens.id });
  if (inserted.length === 0) {
    throw new AppError('CONFLICT', `You can have at most ${MAX_API_TOKENS_PER_USER} API tokens. Revoke one you no longer use first.`);
  }
  return { token, apiToken: toApiTokenJson({ ...row, lastUsedAt: null }) };
}

export async function listApiTokens(db: DB, userId: string): Promise<ApiToken[]> {
  const rows = await db
    .select()
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id))
    .all();
  return rows.map(toApiTokenJson);
}

/** Deletes one of the user's own tokens; null when they have no token with that id. */
export async function revokeApiToken(db: DB, userId: string, id: string): Promise<{ name: string } | null> {
  const [row] = await db
    .delete(apiTokens)
    .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId)))
    .returning({ name: apiTokens.name });
  return row ?? null;
}

/** Ends every API token of the account (a password reset or change): a statement, to run in the change's batch. */
export const revokeAllApiTokens = (db: DB, userId: string) => db.delete(apiTokens).where(eq(apiTokens.userId, userId));

export type ApiTokenGrant = { id: string; readOnly: boolean; lastUsedAt: number | null };

/** `user.role` is the role the token acts with; `accountRole` the account's own. */
export type ApiTokenCaller = { grant: ApiTokenGrant; user: SessionUser; accountRole: Role; isActive: boolean; callCount: number };

/**
 * Finds the token and its owner, and counts the call against the token's per-minute limit, in one
 * D1 round trip. The count is written only for a token that exists, so garbage tokens cost no write.
 */
export async function findApiTokenCaller(db: DB, bearer: string, now = Date.now()): Promise<ApiTokenCaller | null> {
  const tokenHash = await sha256Hex(bearer);
  const bucket = `api-token:${tokenHash.slice(0, 32)}`;
  const windowStart = windowStartOf(RULES.session, now);
  const [found, counted] = await db.batch([
    db
      .select({
        id: apiTokens.id,
        tokenRole: apiTokens.role,
        readOnly: apiTokens.readOnly,
        lastUsedAt: apiTokens.lastUsedAt,
        // Aliased: D1's batch answers rows keyed by column name, and both tables have id and role.
        userId: sql<string>`${users.id}`.as('owner_id'),
        username: users.username,
        email: users.email,
        accountRole: sql<Role>`${users.role}`.as('account_role'),
        isActive: users.isActive,
      })
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(eq(apiTokens.tokenHash, tokenHash)),
    db
      .insert(rateLimits)
      .select(sql`SELECT ${bucket}, ${windowStart}, 1 FROM ${apiTokens} WHERE ${apiTokens.tokenHash} = ${tokenHash}`)
      .onConflictDoUpdate({ target: [rateLimits.bucket, rateLimits.windowStart], set: { count: sql`${rateLimits.count} + 1` } })
      .returning({ count: rateLimits.count }),
  ]);
  const row = found[0];
  if (!row) return null;
  return {
    grant: { id: row.id, readOnly: row.readOnly, lastUsedAt: row.lastUsedAt?.getTime() ?? null },
    user: { id: row.userId, username: row.username, email: row.email, role: lowerRole(row.tokenRole, row.accountRole) },
    accountRole: row.accountRole,
    isActive: row.isActive,
    callCount: counted[0]?.count ?? 1,
  };
}

/**
 * Records use, writing at most every few minutes (the guard keeps concurrent calls to one write):
 * the write, or undefined when none is due.
 */
export function touchApiToken(db: DB, grant: ApiTokenGrant, now = Date.now()): Promise<unknown> | undefined {
  if (grant.lastUsedAt !== null && now - grant.lastUsedAt < LAST_ACTIVE_WRITE_MS) return undefined;
  const staleBefore = new Date(now - LAST_ACTIVE_WRITE_MS);
  return db
    .update(apiTokens)
    .set({ lastUsedAt: new Date(now) })
    .where(and(eq(apiTokens.id, grant.id), sql`(${apiTokens.lastUsedAt} IS NULL OR ${apiTokens.lastUsedAt} < ${staleBefore.getTime()})`))
    .run();
}

/**
 * What a token may reach. Account security (password, two-factor, sessions, Google, API tokens
 * themselves, signing in and out) needs the person, not a script: under /api/users a token reaches
 * only the profile, the stats and the customer's own keys; /api/auth not at all.
 */
const TOKEN_USER_PATHS = /^\/api\/users\/(profile|stats|my-keys)(\/|$)/;
export function apiTokenMayCall(path: string): boolean {
  if (path.startsWith('/api/auth/') || path === '/api/auth') return false;
  if (path.startsWith('/api/users/') || path === '/api/users') return TOKEN_USER_PATHS.test(path);
  return true;
}
