// Who is calling: the bearer token's live session and the user's current row.
import { eq } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context';
import { users, type Role } from '../db/schema';
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
  const token = bearerToken(c.req.header('authorization'));
  if (!token) throw new AppError('UNAUTHORIZED', 'Please sign in to continue');
  const session = await readSession(c.env, token);
  if (!session) throw sessionExpired();
  const user = await c.var.db
    .select({ id: users.id, username: users.username, email: users.email, role: users.role, isActive: users.isActive })
    .from(users)
    .where(eq(users.id, session.userId))
    .get();
  if (!user || !user.isActive) {
    await endSession(c.env.KV, session.userId, session.id);
    throw user ? new AppError('UNAUTHORIZED', 'This account has been deactivated') : sessionExpired();
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
