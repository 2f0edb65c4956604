// Who is calling: the bearer token's live session and the user's current row.
import { eq } from 'drizzle-orm';
import type { Context, Next } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context';
import { users, type Role } from '../db/schema';
import { apiTokenMayCall, findApiTokenCaller, mayHoldApiTokens, touchApiToken } from '../domain/api-tokens';
import { countStatement, isOver, rateLimited, RULES, windowStartOf } from '../domain/throttle';
import { AppError } from '../lib/errors';
import { endSession, readSession, touchSession } from '../lib/sessions';
import { inBackground } from '../lib/request';
import { isApiTokenValue } from '../schemas/api-tokens';

const ROLE_RANK: Record<Role, number> = { user: 0, reseller: 1, owner: 2 };

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1] : null;
}

const sessionExpired = () => new AppError('UNAUTHORIZED', 'Your session has expired. Please sign in again.');

export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  // Several sub-apps share /api/users; the first one's check covers the request.
  if (c.get('session') || c.get('apiToken')) return next();
  const token = bearerToken(c.req.header('authorization'));
  if (!token) throw new AppError('UNAUTHORIZED', 'Please sign in to continue');
  if (isApiTokenValue(token)) return authenticateApiToken(c, token, next);
  const session = await readSession(c.env, token);
  if (!session) throw sessionExpired();
  // The session's call count rides in the same D1 round trip as the user lookup, so the limit
  // costs no extra latency; the counter is exact even when a client fires many calls at once.
  const now = Date.now();
  const db = c.var.db;
  const [[counted], [user]] = await db.batch([
    countStatement(db, `session:${session.id}`, windowStartOf(RULES.session, now)),
    db
      .select({ id: users.id, username: users.username, email: users.email, role: users.role, isActive: users.isActive })
      .from(users)
      .where(eq(users.id, session.userId)),
  ]);
  if (!user || !user.isActive) {
    await endSession(c.env.KV, session.userId, session.id);
    throw user ? new AppError('UNAUTHORIZED', 'This account has been deactivated') : sessionExpired();
  }
  if (isOver({ count: counted.count, rule: RULES.session })) {
    throw rateLimited(RULES.session, now, 'Too many requests from this session.');
  }
  c.set('session', session);
  c.set('user', { id: user.id, username: user.username, email: user.email, role: user.role });
  await inBackground(c, touchSession(c.env.KV, session));
  await next();
});

/**
 * The API-token path, apart from the session path above: the token and its owner in one D1 round
 * trip (with the per-token call count), the lower of the two roles, read-only tokens limited to
 * GET, and no access to account security.
 */
async function authenticateApiToken(c: Context<AppEnv>, token: string, next: Next) {
  const now = Date.now();
  const caller = await findApiTokenCaller(c.var.db, token, now);
  if (!caller) throw new AppError('UNAUTHORIZED', 'This API token is not valid or has been revoked');
  if (!caller.isActive) throw new AppError('UNAUTHORIZED', 'This account has been deactivated');
  if (!mayHoldApiTokens(caller.accountRole)) throw new AppError('FORBIDDEN', 'API tokens are available to owners and resellers only');
  if (isOver({ count: caller.callCount, rule: RULES.session })) {
    throw rateLimited(RULES.session, now, 'Too many requests with this API token.');
  }
  if (!apiTokenMayCall(c.req.path)) {
    throw new AppError('FORBIDDEN', 'API tokens cannot manage account security. Sign in to KeyPanel to do this.');
  }
  if (caller.grant.readOnly && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    throw new AppError('FORBIDDEN', 'This API token is read-only');
  }
  c.set('apiToken', caller.grant);
  c.set('user', caller.user);
  await inBackground(c, touchApiToken(c.var.db, caller.grant, now));
  await next();
}

/** Allows the given role and every role above it (user < reseller < owner). */
export function requireRole(minimum: Role) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (ROLE_RANK[c.var.user.role] < ROLE_RANK[minimum]) {
      throw new AppError('FORBIDDEN', 'You do not have permission to do this');
    }
    await next();
  });
}

export const isAtLeast = (role: Role, minimum: Role) => ROLE_RANK[role] >= ROLE_RANK[minimum];
