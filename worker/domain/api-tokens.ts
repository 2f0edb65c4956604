// API tokens: named, long-lived bearer tokens for scripts and the CLI. The secret is shown once and
// stored as its SHA-256 (a 256-bit random value needs no slow hash). D1 holds the token's row (the
// list, lastUsed); KV holds its grant under the same hash, which is what a request reads, so calling
// with a token reads nothing from D1. Revoking deletes both, so a revoked token is refused by the very
// next request. A token acts with the lower of its own role and its owner's current role (the
// account state, lib/account-state.ts), so a demotion takes effect on every token at once.
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { DB } from '../db/client';
import { apiTokens, isAtLeast, type Role } from '../db/schema';
import { AppError, forbidden } from '../lib/errors';
import { newId, randomToken, sha256Hex } from '../lib/ids';
import { isolateCache } from '../lib/isolate-cache';
import { LAST_ACTIVE_WRITE_MS } from '../lib/sessions';
import { API_TOKEN_PREFIX, MAX_API_TOKENS_PER_USER } from '../schemas/api-tokens';
import type { ApiToken } from '../schemas/entities';

/** The roles that may hold API tokens; a plain user's account has no use for one. */
export const mayHoldApiTokens = (role: Role) => isAtLeast(role, 'reseller');

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
  kv: KVNamespace,
  creator: { id: string; role: Role },
  input: { name: string; role: Role; readOnly: boolean },
  now = Date.now(),
): Promise<{ token: string; apiToken: ApiToken }> {
  if (!mayHoldApiTokens(creator.role)) throw forbidden('API tokens are available to owners and resellers only');
  if (!isAtLeast(creator.role, input.role)) throw forbidden(`A token's role cannot be above your own role (${creator.role})`);
  const token = API_TOKEN_PREFIX + randomToken(32);
  const row = {
    id: newId(now),
    userId: creator.id,
    name: input.name,
    tokenHash: await sha256Hex(token),
    role: input.role,
    readOnly: input.readOnly,
    createdAt: new Date(now),
  };
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
  const grant: ApiTokenGrant = { id: row.id, userId: row.userId, role: row.role, readOnly: row.readOnly };
  await kv.put(grantKey(row.tokenHash), JSON.stringify(grant));
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
export async function revokeApiToken(db: DB, kv: KVNamespace, userId: string, id: string): Promise<{ name: string } | null> {
  const [row] = await db
    .delete(apiTokens)
    .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId)))
    .returning({ name: apiTokens.name, tokenHash: apiTokens.tokenHash });
  if (!row) return null;
  await forgetApiTokenGrants(kv, [row.tokenHash]);
  return { name: row.name };
}

/** Deletes every token of the account (a password reset, say): rows and grants. */
export async function revokeAllApiTokens(db: DB, kv: KVNamespace, userId: string): Promise<number> {
  const rows = await deleteAllApiTokens(db, userId);
  await forgetApiTokenGrants(
    kv,
    rows.map((r) => r.tokenHash),
  );
  return rows.length;
}

/**
 * The statement that deletes every token row of the account (when `also` holds), answering their
 * hashes: for a change that ends them in its own batch (a password change or reset), which then
 * forgets their grants.
 */
export const deleteAllApiTokens = (db: DB, userId: string, also?: SQL) =>
  db
    .delete(apiTokens)
    .where(and(eq(apiTokens.userId, userId), also))
    .returning({ tokenHash: apiTokens.tokenHash });

/** Deletes the grants of tokens whose rows are gone. */
export async function forgetApiTokenGrants(kv: KVNamespace, tokenHashes: string[]) {
  await Promise.all(tokenHashes.map((hash) => kv.delete(grantKey(hash))));
}

/** What a request reads to call with a token (KV, under the token's hash): its own role, not the account's. */
export type ApiTokenGrant = { id: string; userId: string; role: Role; readOnly: boolean };

const grantKey = (tokenHash: string) => `api-token:${tokenHash}`;

/**
 * The token's grant, or null for a token that does not exist or was revoked. A token made before
 * grants were kept in KV has none there: its row is read instead, and no grant is written for it,
 * so no write can bring back a token that is being revoked at that moment.
 */
export async function findApiTokenGrant(kv: KVNamespace, db: DB, bearer: string): Promise<ApiTokenGrant | null> {
  const tokenHash = await sha256Hex(bearer);
  const grant = await kv.get<ApiTokenGrant>(grantKey(tokenHash), 'json');
  if (grant) return grant;
  const row = await db
    .select({ id: apiTokens.id, userId: apiTokens.userId, role: apiTokens.role, readOnly: apiTokens.readOnly })
    .from(apiTokens)
    .where(eq(apiTokens.tokenHash, tokenHash))
    .get();
  return row ?? null;
}

/** When this isolate last recorded each token's use: lastUsed is written at most every few minutes. */
const lastTouched = isolateCache<string, number>('api-token-last-touched');

/**
 * Records use, writing at most every few minutes from each isolate (and the statement's guard keeps
 * concurrent isolates to one write): the write, or undefined when none is due.
 */
export function touchApiToken(db: DB, grant: ApiTokenGrant, now = Date.now()): Promise<unknown> | undefined {
  // An entry lives LAST_ACTIVE_WRITE_MS: while it does, no write is due.
  if (lastTouched.get(grant.id, now) !== undefined) return undefined;
  lastTouched.set(grant.id, now, now, LAST_ACTIVE_WRITE_MS);
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
