// Sessions: a short JWT (HS256, algorithm pinned) names a session row in D1. The token carries who
// the session is for and the role it was opened with, so a request knows its caller without any
// I/O; the row is the authority, checked by every round trip the request makes (platform/db/session.ts).
// Deleting the row, or moving the account's credential epoch on, ends the session for the next
// request everywhere: there is no eventually consistent copy to wait for.
import { and, desc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { DB } from '../../platform/db/client';
import { apiTokens, sessions, users } from '../../platform/db/schema';
import { randomToken } from '../../platform/ids';
import { isolateCache } from '../../platform/isolate-cache';
import { noteTouch, type TouchKind } from '../../platform/touches';
import type { SessionOrigin } from '../../platform/request';
import { DAY_MS, type Role, ROLES } from '../../platform/vocabulary';
import { getSettings } from '../settings';

export const SESSION_TTL_MS = DAY_MS;
export const REMEMBER_ME_TTL_MS = 30 * DAY_MS;
/** `lastActive` is rewritten at most this often, so touches stay rare. */
export const LAST_ACTIVE_WRITE_MS = 5 * 60 * 1000;

/** The owner's idle limit (settings, `sessionIdleDays`) in milliseconds. */
export const idleLimitMs = async (kv: KVNamespace, now = Date.now()) => (await getSettings(kv, now)).sessionIdleDays * DAY_MS;

export type SessionRecord = typeof sessions.$inferSelect;

/** What a verified session token says: the account, its role when the session opened, the session, when. */
export type SessionClaims = { userId: string; role: Role; sessionId: string; issuedAt: number; expiresAt: number };

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

/**
 * Opens a session for the account, under its current credential epoch and only while it still has
 * `user.role` (the role the token will carry): null when the account changed under the sign-in.
 */
export async function createSession(
  db: DB,
  secret: string,
  user: { id: string; role: Role },
  origin: SessionOrigin,
  rememberMe = false,
  now = Date.now(),
): Promise<{ token: string; session: SessionRecord } | null> {
  const [session] = await db.batch([openSessionStatement(db, user, origin, rememberMe, now)]);
  return session[0] ? { token: await sessionToken(secret, session[0], user.role), session: session[0] } : null;
}

/** The statement that opens a session (see createSession), for a sign-in's own batch. */
export function openSessionStatement(db: DB, user: { id: string; role: Role }, origin: SessionOrigin, rememberMe: boolean, now: number) {
  const ttl = rememberMe ? REMEMBER_ME_TTL_MS : SESSION_TTL_MS;
  const id = randomToken(18);
  const userAgent = origin.userAgent?.slice(0, 400) ?? null;
  return db
    .insert(sessions)
    .select(
      db
        .select({
          id: sql`${id}`.as('id'),
          userId: users.id,
          credentialEpoch: users.credentialEpoch,
          createdAt: sql`${now}`.as('created_at'),
          expiresAt: sql`${now + ttl}`.as('expires_at'),
          lastActive: sql`${now}`.as('last_active'),
          ipAddress: sql`${origin.ipAddress}`.as('ip_address'),
          userAgent: sql`${userAgent}`.as('user_agent'),
          location: sql`${origin.location}`.as('location'),
        })
        .from(users)
        .where(and(eq(users.id, user.id), eq(users.role, user.role), eq(users.isActive, true))),
    )
    .returning();
}

/** The JWT for a session row just opened. */
export async function sessionToken(secret: string, session: SessionRecord, role: Role): Promise<string> {
  // Just opened, so just active: no touch is due from this isolate for a while.
  lastTouched.set(session.id, session.lastActive.getTime(), session.lastActive.getTime(), LAST_ACTIVE_WRITE_MS);
  return new SignJWT({ sid: session.id, role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(session.userId)
    .setIssuedAt(Math.floor(session.createdAt.getTime() / 1000))
    .setExpirationTime(Math.floor(session.expiresAt.getTime() / 1000))
    .sign(await secretKey(secret));
}

/**
 * Tokens this isolate has verified, with their claims: a signature checked once stays good until the
 * token expires, so a client's later calls skip parsing and HMAC (most of the token's cost). Only the
 * signature is remembered: the session row is checked by every round trip.
 */
const verifiedTokens = isolateCache<string, { secret: string; claims: SessionClaims }>('verified-session-tokens');

/** The token's claims when its signature holds and it has not expired; null for anything wrong. */
export async function verifySessionToken(secret: string, token: string, now = Date.now()): Promise<SessionClaims | null> {
  const known = verifiedTokens.get(token, now);
  if (known?.secret === secret) return known.claims.expiresAt > now ? known.claims : null;
  let payload: { sub?: unknown; sid?: unknown; role?: unknown; iat?: unknown; exp?: unknown };
  try {
    ({ payload } = await jwtVerify(token, await secretKey(secret), { algorithms: ['HS256'], currentDate: new Date(now) }));
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return null;
    throw err;
  }
  const { sub, sid, role, iat, exp } = payload;
  if (typeof sub !== 'string' || typeof sid !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') return null;
  // A token from before sessions named their role is refused: its session is not in D1 either.
  if (!ROLES.includes(role as Role)) return null;
  const claims: SessionClaims = { userId: sub, role: role as Role, sessionId: sid, issuedAt: iat * 1000, expiresAt: exp * 1000 };
  // Kept until the token expires: past that it is refused without a second look.
  verifiedTokens.set(token, { secret, claims }, now, claims.expiresAt - now);
  return claims;
}

/** A session is live while it has not expired and has been used within the idle limit. */
const live = (idleMs: number, now: number) => and(gt(sessions.expiresAt, new Date(now)), gt(sessions.lastActive, new Date(now - idleMs)));

/** The account's live sessions under its current credential epoch, most recently active first. */
export function listSessions(db: DB, userId: string, idleMs: number, now = Date.now()): Promise<SessionRecord[]> {
  return db
    .select({ session: sessions })
    .from(sessions)
    .innerJoin(users, and(eq(users.id, sessions.userId), eq(users.credentialEpoch, sessions.credentialEpoch)))
    .where(and(eq(sessions.userId, userId), live(idleMs, now)))
    .orderBy(desc(sessions.lastActive))
    .all()
    .then((rows) => rows.map((r) => r.session));
}

/** Whether the account's session is live (a Google connect started from it may finish). */
export async function isSessionLive(db: DB, userId: string, sessionId: string, idleMs: number, now = Date.now()): Promise<boolean> {
  const row = await db
    .select({ id: sessions.id })
    .from(sessions)
    .innerJoin(users, and(eq(users.id, sessions.userId), eq(users.credentialEpoch, sessions.credentialEpoch), eq(users.isActive, true)))
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), live(idleMs, now)))
    .get();
  return row !== undefined;
}

/**
 * The statements that end every session and API token of the account, for the batch of the change
 * that ends them (a reset, a password or two-factor change, a role change, a deactivation): the
 * epoch moves on, the session to keep (the caller's own, say) and the tokens to keep move with it,
 * and the rows of what ended go.
 */
export function endCredentialsStatements(
  db: DB,
  userId: string,
  keep: { sessionId?: string; apiTokens?: boolean } = {},
  /** Further condition on the account row, for a change that may not happen (a refused demotion). */
  when?: SQL,
) {
  const epoch = sql`(SELECT ${users.credentialEpoch} FROM ${users} WHERE ${users.id} = ${userId})`;
  const ended = <T extends typeof sessions | typeof apiTokens>(table: T) =>
    and(eq(table.userId, userId), sql`${table.credentialEpoch} <> ${epoch}`);
  return [
    db
      .update(users)
      .set({ credentialEpoch: sql`${users.credentialEpoch} + 1` })
      .where(and(eq(users.id, userId), when)),
    db
      .update(sessions)
      .set({ credentialEpoch: epoch })
      .where(and(eq(sessions.id, keep.sessionId ?? ''), eq(sessions.userId, userId))),
    db.delete(sessions).where(ended(sessions)),
    keep.apiTokens
      ? db.update(apiTokens).set({ credentialEpoch: epoch }).where(eq(apiTokens.userId, userId))
      : db.delete(apiTokens).where(ended(apiTokens)),
  ] as const;
}

/** When this isolate last noted each session's lastActive: noted at most every LAST_ACTIVE_WRITE_MS. */
const lastTouched = isolateCache<string, number>('session-last-touched');

/**
 * A session's lastActive, in the isolate's batch of touches (platform/touches.ts): `$[2]` is the
 * idle cut-off, so a touch never revives a session that went idle, nor one that expired; the row is
 * skipped when another isolate wrote it within the interval.
 */
const SESSION_TOUCH: TouchKind = {
  name: 'session lastActive',
  sql: `UPDATE sessions SET last_active = json_extract(j.value, '$[1]')
  FROM json_each(?1) AS j
  WHERE sessions.id = json_extract(j.value, '$[0]')
    AND sessions.expires_at > json_extract(j.value, '$[1]')
    AND sessions.last_active > json_extract(j.value, '$[2]')
    AND sessions.last_active < json_extract(j.value, '$[1]') - ${LAST_ACTIVE_WRITE_MS}`,
  forget: (ids) => ids.forEach((id) => lastTouched.delete(id)),
};

/**
 * Records activity, at most every LAST_ACTIVE_WRITE_MS per session and isolate, in the isolate's
 * batch of touches: the batch's write when this call opened it, or undefined when none is due or an
 * open batch carries it. Only a live session is touched.
 */
export function touchSession(
  d1: D1Database,
  sessionId: string,
  idleMs: number,
  now = Date.now(),
  windowMs?: number,
): Promise<void> | undefined {
  if (lastTouched.get(sessionId, now) !== undefined) return undefined;
  lastTouched.set(sessionId, now, now, LAST_ACTIVE_WRITE_MS);
  return noteTouch(d1, SESSION_TOUCH, sessionId, now, [now - idleMs], windowMs) ?? undefined;
}
