// Who is calling: one middleware for every signed-in route. It reads the caller from KV only (the
// session record or the API token's grant, and the account's state), never from D1, so a page read is
// its own one D1 round trip. For a write, it puts the caller's guard on the request's D1 session
// (db/session.ts): the write's own batch then re-checks, on D1's primary, that the account is active
// with the role the route needs, and commits nothing otherwise.
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv, Caller, SignedInEnv } from '../context';
import { isAtLeast, lowerRole, type Role } from '../db/schema';
import { apiTokenMayCall, findApiTokenGrant, mayHoldApiTokens, touchApiToken } from '../domain/api-tokens';
import { readAccountState } from '../lib/account-state';
import { AppError, forbidden } from '../lib/errors';
import { inBackground } from '../lib/request';
import { readSession, tokenAccount, touchSession } from '../lib/sessions';
import { isApiTokenValue } from '../schemas/api-tokens';

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1] : null;
}

const sessionExpired = () => new AppError('UNAUTHORIZED', 'Your session has expired. Please sign in again.');
const deactivated = () => new AppError('UNAUTHORIZED', 'This account has been deactivated');

/**
 * Lets the route run for a signed-in caller with at least `role` (any role when left out) and gives
 * it `c.var.caller`. 401 without a live session or a valid API token, 403 for a role too low, 429
 * past the per-minute call limit (the CALL_LIMITER binding).
 */
export function requireAuth(options: { role?: Role } = {}) {
  const minimum = options.role ?? 'user';
  return createMiddleware<SignedInEnv>(async (c, next) => {
    // Several sub-apps share /api/users and /api/admin: the first one's check identified the caller.
    const caller = c.var.caller ?? (await identify(c));
    c.set('caller', caller);
    if (!isAtLeast(caller.role, minimum)) throw forbidden();
    c.var.d1.guard(caller.id, minimum);
    await next();
  });
}

/** The caller behind the request's bearer token; throws 401 (or 403, 429) when there is none to serve. */
export async function identify<E extends AppEnv>(c: Context<E>): Promise<Caller> {
  const token = bearerToken(c.req.header('authorization'));
  if (!token) throw new AppError('UNAUTHORIZED', 'Please sign in to continue');
  const caller = isApiTokenValue(token) ? await callerByApiToken(c, token) : await callerBySession(c, token);
  const { success } = await c.env.CALL_LIMITER.limit({
    key: caller.via === 'session' ? `session:${caller.session.id}` : `token:${caller.apiToken.id}`,
  });
  if (!success) {
    throw new AppError(
      'RATE_LIMITED',
      `Too many requests ${caller.via === 'session' ? 'from this session' : 'with this API token'}. Please try again in a minute.`,
      {
        headers: { 'Retry-After': '60' },
        details: { retryAfter: 60 },
      },
    );
  }
  return caller;
}

async function callerBySession<E extends AppEnv>(c: Context<E>, token: string): Promise<Caller> {
  const userId = await tokenAccount(c.env, token);
  if (!userId) throw sessionExpired();
  // Side by side: the session record names the same account as its token (readSession checks).
  const [session, account] = await Promise.all([readSession(c.env, token), readAccountState(c.env.KV, c.var.db, userId)]);
  if (!session || !account) throw sessionExpired();
  if (!account.active) throw deactivated();
  await inBackground(c, touchSession(c.env.KV, session));
  return { id: session.userId, role: account.role, via: 'session', session };
}

/**
 * The API-token path: the lower of the token's role and the account's, read-only tokens limited to
 * GET, and no access to account security.
 */
async function callerByApiToken<E extends AppEnv>(c: Context<E>, token: string): Promise<Caller> {
  const grant = await findApiTokenGrant(c.env.KV, c.var.db, token);
  if (!grant) throw new AppError('UNAUTHORIZED', 'This API token is not valid or has been revoked');
  const account = await readAccountState(c.env.KV, c.var.db, grant.userId);
  if (!account) throw new AppError('UNAUTHORIZED', 'This API token is not valid or has been revoked');
  if (!account.active) throw deactivated();
  if (!mayHoldApiTokens(account.role)) throw forbidden('API tokens are available to owners and resellers only');
  if (!apiTokenMayCall(c.req.path)) throw forbidden('API tokens cannot manage account security. Sign in to KeyPanel to do this.');
  if (grant.readOnly && c.req.method !== 'GET' && c.req.method !== 'HEAD') throw forbidden('This API token is read-only');
  await inBackground(c, touchApiToken(c.var.db, grant));
  return { id: grant.userId, role: lowerRole(grant.role, account.role), via: 'apiToken', apiToken: grant };
}

/** The session of a caller on a route that only a signed-in person reaches (account security). */
export function sessionOf(caller: Caller) {
  if (caller.via !== 'session') throw forbidden('API tokens cannot manage account security. Sign in to KeyPanel to do this.');
  return caller.session;
}
