// Who is calling: the bearer token's live session and the user's current row.
import { eq } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context';
import { users, type Role } from '../db/schema';
import { countStatement, isOver, rateLimited, RULES, windowStartOf } from '../domain/throttle';
import { AppError } from '../lib/errors';
import { endSession, readSession, touchSession } from '../lib/sessions';
import { inBackground } from '../lib/request';

const ROLE_RANK: Record<Role, number> = { user: 0, reseller: 1, owner: 2 };

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1] : null;
}

const sessionExpired = () => new AppError('UNAUTHORIZED', 'Your session has expired. Please sign in again.');

export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  // Several sub-apps share /api/users; the first one's check covers the request.
  if (c.get('session')) return next();
  const token = bearerToken(c.req.header('authorization'));
  if (!token) throw new AppError('UNAUTHORIZED', 'Please sign in to continue');
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
