// API tokens: named, long-lived bearer tokens for scripts and the CLI. The secret is shown once and
// stored as its SHA-256 (a 256-bit random value needs no slow hash). D1 holds the token's row, the
// authority: every round trip of a request made with a token checks that the row is still there
// under the account's current credential epoch (platform/db/session.ts), so a revoked token is refused by
// the very next request. The isolate remembers what a token grants (its account, roles, read-only)
// so that only its first call in an isolate reads the row before its own work. A token acts with the
// lower of its own role and its account's role; a role change ends every token.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { ApiTokenGrant } from '../../platform/context';
import type { DB } from '../../platform/db/client';
import { apiTokens, users } from '../../platform/db/schema';
import { AppError, forbidden, notFound } from '../../platform/errors';
import type { Later, SessionOrigin } from '../../platform/request';
import { recordSecurityEvent } from './security-log';
import { newId, randomToken, sha256Hex } from '../../platform/ids';
import { isolateCache } from '../../platform/isolate-cache';
import { noteTouch, type TouchKind } from '../../platform/touches';
import { LAST_ACTIVE_WRITE_MS } from './sessions';
import { API_TOKEN_PREFIX, MAX_API_TOKENS_PER_USER } from './schemas/api-tokens';
import { isAtLeast, type Role } from '../../platform/vocabulary';
import { type ApiToken } from './schemas/answers';

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

/** Makes a token for its creator, logged (after the answer); the secret is in the answer only. */
export async function createApiToken(
  db: DB,
  creator: { id: string; role: Role },
  input: { name: string; role: Role; readOnly: boolean },
  from: { origin: SessionOrigin; later: Later },
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
  // The count and the insert are one statement, so concurrent requests cannot pass the limit together;
  // the token is made under the account's current credential epoch.
  const inserted = await db
    .insert(apiTokens)
    .select(
      sql`SELECT ${row.id}, ${row.userId}, ${row.name}, ${row.tokenHash}, ${row.role}, ${row.readOnly ? 1 : 0}, NULL, ${now}, ${users.credentialEpoch}
           FROM ${users} WHERE ${users.id} = ${creator.id}
           AND (SELECT count(*) FROM ${apiTokens} WHERE ${apiTokens.userId} = ${creator.id}) < ${MAX_API_TOKENS_PER_USER}`,
    )
    .returning({ id: apiTokens.id });
  if (inserted.length === 0) {
    throw new AppError('CONFLICT', `You can have at most ${MAX_API_TOKENS_PER_USER} API tokens. Revoke one you no longer use first.`);
  }
  await from.later(recordSecurityEvent(db, creator.id, 'api_token_created', from.origin));
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

/** Deletes one of the user's own tokens, logged (after the answer); 404 when they have no token with that id. */
export async function revokeApiToken(
  db: DB,
  userId: string,
  id: string,
  from: { origin: SessionOrigin; later: Later },
): Promise<{ name: string }> {
  const [row] = await db
    .delete(apiTokens)
    .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId)))
    .returning({ name: apiTokens.name });
  if (!row) throw notFound('API token');
  await from.later(recordSecurityEvent(db, userId, 'api_token_revoked', from.origin));
  return row;
}

/**
 * What calling with a token grants: the token's own role and the account's role when it was read
 * (the caller check refuses the call if that changed), and whether it is read-only.
 */

const grants = isolateCache<string, ApiTokenGrant>('api-token-grants');

/**
 * The token's grant, or null for a token that does not exist; `inactive` when its account is
 * deactivated. Read from D1 on the token's first call in this isolate, remembered after.
 */
export async function findApiTokenGrant(db: DB, bearer: string, now = Date.now()): Promise<ApiTokenGrant | 'inactive' | null> {
  const tokenHash = await sha256Hex(bearer);
  const known = grants.get(tokenHash, now);
  if (known) return known;
  const row = await db
    .select({
      id: apiTokens.id,
      userId: apiTokens.userId,
      role: apiTokens.role,
      readOnly: apiTokens.readOnly,
      accountRole: users.role,
      active: users.isActive,
      current: sql<number>`${apiTokens.credentialEpoch} = ${users.credentialEpoch}`,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, tokenHash))
    .get();
  if (!row || !row.current) return null;
  if (!row.active) return 'inactive';
  const grant: ApiTokenGrant = { id: row.id, userId: row.userId, role: row.role, accountRole: row.accountRole, readOnly: row.readOnly };
  return grants.set(tokenHash, grant, now);
}

/** When this isolate last noted each token's use: lastUsed is noted at most every few minutes. */
const lastTouched = isolateCache<string, number>('api-token-last-touched');

/** A token's lastUsedAt, in the isolate's batch of touches (platform/touches.ts); skipped when written within the interval. */
const API_TOKEN_TOUCH: TouchKind = {
  name: 'API token lastUsed',
  sql: `UPDATE api_tokens SET last_used_at = json_extract(j.value, '$[1]')
  FROM json_each(?1) AS j
  WHERE api_tokens.id = json_extract(j.value, '$[0]')
    AND (api_tokens.last_used_at IS NULL OR api_tokens.last_used_at < json_extract(j.value, '$[1]') - ${LAST_ACTIVE_WRITE_MS})`,
  forget: (ids) => ids.forEach((id) => lastTouched.delete(id)),
};

/**
 * Records use, at most every few minutes from each isolate (and the statement's guard keeps
 * concurrent isolates to one write), in the isolate's batch of touches: the batch's write when this
 * call opened it, or undefined when none is due or an open batch carries it.
 */
export function touchApiToken(d1: D1Database, grant: ApiTokenGrant, now = Date.now(), windowMs?: number): Promise<void> | undefined {
  // An entry lives LAST_ACTIVE_WRITE_MS: while it does, no write is due.
  if (lastTouched.get(grant.id, now) !== undefined) return undefined;
  lastTouched.set(grant.id, now, now, LAST_ACTIVE_WRITE_MS);
  return noteTouch(d1, API_TOKEN_TOUCH, grant.id, now, [], windowMs) ?? undefined;
}
