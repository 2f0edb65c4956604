// The last step of every way in (password, two-factor, Google): a session, lastLogin, the log.
import { and, eq, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { securityLog, sessions, users } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { AppError, underMaintenance } from '../../platform/errors';
import { getSettings } from '../settings/store';
import type { SessionOrigin } from '../../platform/request';
import { openSessionStatement, sessionToken } from './sessions';
import type { User } from '../../platform/schemas/entities';
import { securityEventRow } from './security-log';
import { createChallenge } from './two-factor';
import { toUserJson, type UserRow } from './users';

export type SignInAnswer = { token: string; user: User } | { requires2FA: true; challenge: string };

export const accountDisabled = () => new AppError('ACCOUNT_DISABLED', 'This account has been deactivated. Please contact support.');

/**
 * Opens a session, records the sign-in and, in maintenance, lets only owners in: one batch, so a
 * sign-in refused for maintenance, or one the account changed under, leaves no session behind.
 */
export async function openSession(
  env: Pick<Env, 'KV' | 'JWT_SECRET'>,
  db: DB,
  user: UserRow,
  origin: SessionOrigin,
  rememberMe: boolean,
  event: 'login' | 'register' = 'login',
) {
  if (user.role !== 'owner' && (await getSettings(env.KV)).maintenanceMode) throw underMaintenance();
  const now = Date.now();
  const lastLogin = new Date(now);
  const [[session]] = await db.batch([
    openSessionStatement(db, user, origin, rememberMe, now),
    db.update(users).set({ lastLogin }).where(eq(users.id, user.id)),
    db.insert(securityLog).values(securityEventRow(user.id, event, origin)),
  ]);
  if (!session) throw new AppError('UNAUTHORIZED', 'Your account changed while signing in. Please sign in again.');
  return { token: await sessionToken(env.JWT_SECRET, session, user.role), user: toUserJson({ ...user, lastLogin }) };
}

/** After the first factor: a session, or, with two-factor on, a challenge for the code step. */
export async function afterFirstFactor(
  env: Pick<Env, 'KV' | 'JWT_SECRET'>,
  db: DB,
  user: UserRow,
  origin: SessionOrigin,
  rememberMe: boolean,
): Promise<SignInAnswer> {
  if (!user.isActive) throw accountDisabled();
  if (user.twoFactorEnabled) return { requires2FA: true, challenge: await createChallenge(env.JWT_SECRET, user.id, rememberMe) };
  return openSession(env, db, user, origin, rememberMe);
}

/**
 * Ends one of the account's sessions and logs it, in one batch: the entry is written only if the
 * session was there to end, and ending the caller's own session cannot refuse its own log entry.
 * Whether there was one.
 */
export async function endSessionLogged(
  db: DB,
  userId: string,
  sessionId: string,
  event: 'logout' | 'session_terminated',
  origin: SessionOrigin,
): Promise<boolean> {
  const row = securityEventRow(userId, event, origin);
  const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId));
  const [, ended] = await db.batch([
    db.insert(securityLog).select(
      db
        .select({
          id: sql`${row.id}`.as('id'),
          userId: sessions.userId,
          event: sql`${row.event}`.as('event'),
          ipAddress: sql`${row.ipAddress}`.as('ip_address'),
          userAgent: sql`${row.userAgent}`.as('user_agent'),
          createdAt: sql`${row.createdAt.getTime()}`.as('created_at'),
        })
        .from(sessions)
        .where(mine),
    ),
    db.delete(sessions).where(mine).returning({ id: sessions.id }),
  ]);
  return ended.length > 0;
}
