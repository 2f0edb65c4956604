// Sessions: a short JWT (HS256, algorithm pinned) names a session record kept in KV with a TTL.
// The record is checked on every request, so deleting it (logout, terminate, password change,
// deactivation, deletion) ends the session at once in this location; other Cloudflare
// locations see the deletion within about a minute (KV is eventually consistent).
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { randomToken } from './ids';
import { isolateCache } from './isolate-cache';
import { getSettings } from './settings';

export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
export const REMEMBER_ME_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** `lastActive` is rewritten at most this often, so KV writes stay rare. */
export const LAST_ACTIVE_WRITE_MS = 5 * 60 * 1000;
const KV_MIN_TTL_S = 60;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The owner's idle limit (settings, `sessionIdleDays`) in milliseconds. */
export const idleLimitMs = async (kv: KVNamespace, now = Date.now()) => (await getSettings(kv, now)).sessionIdleDays * DAY_MS;

/**
 * A session unused for longer than the idle limit is over, whatever its lifetime. `lastActive` is
 * written at most every LAST_ACTIVE_WRITE_MS, so the limit holds to within that.
 */
export const isIdle = (session: Pick<SessionRecord, 'lastActive'>, idleMs: number, now: number) => now - session.lastActive > idleMs;

export type SessionRecord = {
  id: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
  lastActive: number;
  ipAddress: string | null;
  userAgent: string | null;
  location: string | null;
};

/** Where a session's record lives in KV. */
export const sessionKey = (userId: string, sessionId: string) => `session:${userId}:${sessionId}`;
/**
 * The HMAC key for JWT_SECRET, imported once per isolate: importing it for every request costs
 * more than the signature check itself.
 */
const secretKeys = isolateCache<string, Promise<CryptoKey>>('jwt-secret-keys');
function secretKey(secret: string): Promise<CryptoKey> {
  if (!secret || secret.length < 32) throw new Error('JWT_SECRET must be set to at least 32 characters');
  return secretKeys.getOrSet(secret, () =>
    crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
  );
}

export type SessionOrigin = { ipAddress: string | null; userAgent: string | null; location: string | null };

export async function createSession(
  env: { KV: KVNamespace; JWT_SECRET: string },
  userId: string,
  origin: SessionOrigin,
  rememberMe = false,
  now = Date.now(),
): Promise<{ token: string; session: SessionRecord }> {
  const ttl = rememberMe ? REMEMBER_ME_TTL_MS : SESSION_TTL_MS;
  const session: SessionRecord = {
    id: randomToken(18),
    userId,
    createdAt: now,
    expiresAt: now + ttl,
    lastActive: now,
    ipAddress: origin.ipAddress,
    userAgent: origin.userAgent?.slice(0, 400) ?? null,
    location: origin.location,
  };
  await putSession(env.KV, session, now);
  const token = await new SignJWT({ sid: session.id })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(session.expiresAt / 1000))
    .sign(await secretKey(env.JWT_SECRET));
  return { token, session };
}

async function putSession(kv: KVNamespace, session: SessionRecord, now: number) {
  const ttlSeconds = Math.max(KV_MIN_TTL_S, Math.ceil((session.expiresAt - now) / 1000));
  await kv.put(sessionKey(session.userId, session.id), JSON.stringify(session), {
    expirationTtl: ttlSeconds,
    // Listing a user's sessions reads the metadata only, not every value.
    metadata: { lastActive: session.lastActive, createdAt: session.createdAt },
  });
}

type TokenClaims = { sub: string; sid: string; exp: number };

/**
 * Tokens this isolate has verified, with their claims: a signature checked once stays good until the
 * token expires, so a client's later calls skip parsing and HMAC (most of the token's cost). Only the
 * signature is remembered: the session record is still read from KV on every call.
 */
const verifiedTokens = isolateCache<string, { secret: string; claims: TokenClaims }>('verified-session-tokens');

async function verifiedClaims(secret: string, token: string, now: number): Promise<TokenClaims | null> {
  const known = verifiedTokens.get(token, now);
  if (known?.secret === secret) return known.claims;
  let claims: { sub?: string; sid?: unknown; exp?: number };
  try {
    ({ payload: claims } = await jwtVerify(token, await secretKey(secret), { algorithms: ['HS256'], currentDate: new Date(now) }));
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return null;
    throw err;
  }
  if (typeof claims.sub !== 'string' || typeof claims.sid !== 'string' || typeof claims.exp !== 'number') return null;
  const good: TokenClaims = { sub: claims.sub, sid: claims.sid, exp: claims.exp };
  // Kept until the token expires: past that it is refused without a second look.
  verifiedTokens.set(token, { secret, claims: good }, now, good.exp * 1000 - now);
  return good;
}

/**
 * The account a session token was issued to, when its signature holds and it has not expired: known
 * before the session record is read, so the account's state can be read beside it.
 */
export async function tokenAccount(env: { JWT_SECRET: string }, token: string, now = Date.now()): Promise<string | null> {
  return (await verifiedClaims(env.JWT_SECRET, token, now))?.sub ?? null;
}

/** Verifies the token and finds its live session; null for anything wrong, whatever it is. */
export async function readSession(
  env: { KV: KVNamespace; JWT_SECRET: string },
  token: string,
  now = Date.now(),
): Promise<SessionRecord | null> {
  const claims = await verifiedClaims(env.JWT_SECRET, token, now);
  if (!claims) return null;
  const [session, idleMs] = await Promise.all([
    env.KV.get<SessionRecord>(sessionKey(claims.sub, claims.sid), 'json'),
    idleLimitMs(env.KV, now),
  ]);
  if (!session || session.expiresAt <= now || session.userId !== claims.sub) return null;
  if (isIdle(session, idleMs, now)) {
    await endSession(env.KV, session.userId, session.id);
    return null;
  }
  return session;
}

/** Records activity, writing to KV at most every LAST_ACTIVE_WRITE_MS: the write, or undefined when none is due. */
export function touchSession(kv: KVNamespace, session: SessionRecord, now = Date.now()): Promise<void> | undefined {
  if (now - session.lastActive < LAST_ACTIVE_WRITE_MS) return undefined;
  return putSession(kv, { ...session, lastActive: now }, now);
}

/** The live session record with this id, or null (ended or expired). */
export async function findSession(kv: KVNamespace, userId: string, sessionId: string, now = Date.now()): Promise<SessionRecord | null> {
  const [session, idleMs] = await Promise.all([kv.get<SessionRecord>(sessionKey(userId, sessionId), 'json'), idleLimitMs(kv, now)]);
  return session && session.expiresAt > now && !isIdle(session, idleMs, now) ? session : null;
}

export async function endSession(kv: KVNamespace, userId: string, sessionId: string) {
  await kv.delete(sessionKey(userId, sessionId));
}

/** The KV keys of every session record of a user, live or not. */
async function sessionKeys(kv: KVNamespace, userId: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix: `session:${userId}:`, cursor });
    keys.push(...page.keys.map((k) => k.name));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return keys;
}

export async function listSessions(kv: KVNamespace, userId: string): Promise<SessionRecord[]> {
  const keys = await sessionKeys(kv, userId);
  const [records, idleMs] = await Promise.all([Promise.all(keys.map((k) => kv.get<SessionRecord>(k, 'json'))), idleLimitMs(kv)]);
  const now = Date.now();
  return records.filter((r): r is SessionRecord => r !== null && r.expiresAt > now && !isIdle(r, idleMs, now));
}

/** Ends every session of a user (idle ones too), except `keepSessionId` when given. */
export async function endAllSessions(kv: KVNamespace, userId: string, keepSessionId?: string) {
  const keys = await sessionKeys(kv, userId);
  const keep = keepSessionId === undefined ? null : sessionKey(userId, keepSessionId);
  await Promise.all(keys.filter((k) => k !== keep).map((k) => kv.delete(k)));
}
