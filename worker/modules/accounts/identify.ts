// Who is calling, for a signed-in operation (modules/accounts/operation.ts). Read from the bearer token
// alone: a session JWT names its account, role and session; an API token's grant is remembered by
// the isolate after its first call. Nothing is read from KV. Whether the session or token is still
// live, and the account still active with that role, is checked by D1 in every round trip the
// request makes (platform/db/session.ts), so it costs the request no round trip of its own.
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../../platform/context';
import { accountDeactivated, apiTokenEnded, bindingOf, sessionEnded, type CallerCheck } from '../../platform/db/session';
import { findApiTokenGrant, mayHoldApiTokens, touchApiToken } from './api-tokens';
import { AppError, forbidden } from '../../platform/errors';
import { inBackground } from '../../platform/request';
import { idleLimitMs, touchSession, verifySessionToken } from './sessions';
import { isApiTokenValue } from './schemas/api-tokens';
import { isAtLeast, lowerRole, type Role } from '../../platform/vocabulary';

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1] : null;
}

/** What an operation asks of its caller (its declaration, platform/openapi.ts). */
export type CallerNeeds = { minimum: Role; tokens: boolean; reads: boolean; proof: boolean };

export const SESSION_ONLY_MESSAGE = 'API tokens cannot manage account security. Sign in to KeyPanel to do this.';
export const PROOF_NEEDS_SESSION_MESSAGE = 'API tokens cannot do this: it needs proof of who you are. Sign in to KeyPanel to do it.';

/**
 * The caller behind the request's bearer token, checked against what the operation needs: 401
 * without a session or token that could be live, 403 for a token where the operation takes none, a
 * read-only token on a write, or a role too low, 429 past the per-minute call limit. From here on,
 * every D1 round trip of the request checks the caller.
 */
export async function identify(c: Context<AppEnv>, needs: CallerNeeds, now = Date.now()): Promise<Caller> {
  const bearer = bearerToken(c.req.header('authorization'));
  if (!bearer) throw new AppError('UNAUTHORIZED', 'Please sign in to continue');
  const [caller, check] = isApiTokenValue(bearer) ? await byApiToken(c, bearer, needs, now) : await bySession(c, bearer, now);
  const { success } = await c.env.CALL_LIMITER.limit({
    key: caller.via === 'session' ? `session:${caller.session.id}` : `token:${caller.apiToken.id}`,
  });
  if (!success) {
    throw new AppError(
      'RATE_LIMITED',
      `Too many requests ${caller.via === 'session' ? 'from this session' : 'with this API token'}. Please try again in a minute.`,
      { headers: { 'Retry-After': '60' }, details: { retryAfter: 60 } },
    );
  }
  if (!isAtLeast(caller.role, needs.minimum)) throw forbidden();
  c.var.d1.checkCaller(check);
  c.set('caller', caller);
  return caller;
}

/** Touches write outside the request's own D1 session, after the answer, in the isolate's batch (platform/touches.ts). */
const background = (c: Context<AppEnv>) => bindingOf(c.env.DB);

async function bySession(c: Context<AppEnv>, token: string, now: number): Promise<[Caller, CallerCheck]> {
  const claims = await verifySessionToken(c.env.JWT_SECRET, token, now);
  if (!claims) throw sessionEnded();
  const idleMs = await idleLimitMs(c.env.KV, now);
  await inBackground(c, touchSession(background(c), claims.sessionId, idleMs, now));
  return [
    { id: claims.userId, role: claims.role, via: 'session', session: { id: claims.sessionId, createdAt: claims.issuedAt } },
    {
      kind: 'session',
      credentialId: claims.sessionId,
      userId: claims.userId,
      role: claims.role,
      idleMs,
      now,
    },
  ];
}

/** The API-token path: the lower of the token's role and the account's, read-only tokens limited to reads. */
async function byApiToken(c: Context<AppEnv>, token: string, needs: CallerNeeds, now: number): Promise<[Caller, CallerCheck]> {
  const grant = await findApiTokenGrant(c.var.db, token, now);
  if (!grant) throw apiTokenEnded();
  if (grant === 'inactive') throw accountDeactivated();
  if (!mayHoldApiTokens(grant.accountRole)) throw forbidden('API tokens are available to owners and resellers only');
  if (!needs.tokens) throw forbidden(needs.proof ? PROOF_NEEDS_SESSION_MESSAGE : SESSION_ONLY_MESSAGE);
  if (grant.readOnly && !needs.reads) throw forbidden('This API token is read-only');
  await inBackground(c, touchApiToken(background(c), grant, now));
  return [
    { id: grant.userId, role: lowerRole(grant.role, grant.accountRole), via: 'apiToken', apiToken: grant },
    { kind: 'apiToken', credentialId: grant.id, userId: grant.userId, role: grant.accountRole, idleMs: 0, now },
  ];
}

/** The caller of a signed-in operation declared on a route that also serves guests (its sub-app is not SignedInEnv). */
export function signedInCaller(c: Context<AppEnv>): Caller {
  if (!c.var.caller) throw new AppError('UNAUTHORIZED', 'Please sign in to continue');
  return c.var.caller;
}

/** The session of a caller on an operation that only a signed-in person reaches (account security). */
export function sessionOf(caller: Caller) {
  if (caller.via !== 'session') throw forbidden(SESSION_ONLY_MESSAGE);
  return caller.session;
}
