// The last step of every way in (password, two-factor, Google): a session, lastLogin, the log.
import { eq } from 'drizzle-orm';
import type { DB } from '../db/client';
import { securityLog, users } from '../db/schema';
import type { Env } from '../env';
import { AppError } from '../lib/errors';
import { saveAccountState } from '../lib/account-state';
import { createSession, type SessionOrigin } from '../lib/sessions';
import type { User } from '../schemas/entities';
import { securityEventRow } from './security-log';
import { createChallenge } from './two-factor';
import { toUserJson, type UserRow } from './users';

export type SignInAnswer = { token: string; user: User } | { requires2FA: true; challenge: string };

export const accountDisabled = () => new AppError('ACCOUNT_DISABLED', 'This account has been deactivated. Please contact support.');

export async function openSession(env: Pick<Env, 'KV' | 'JWT_SECRET'>, db: DB, user: UserRow, origin: SessionOrigin, rememberMe: boolean) {
  // The account's state goes to KV beside the session, so the session's first call reads no D1.
  const [{ token }] = await Promise.all([
    createSession(env, user.id, origin, rememberMe),
    saveAccountState(env.KV, user.id, { role: user.role, active: user.isActive }),
  ]);
  const lastLogin = new Date();
  await db.batch([
    db.update(users).set({ lastLogin }).where(eq(users.id, user.id)),
    db.insert(securityLog).values(securityEventRow(user.id, 'login', origin)),
  ]);
  return { token, user: toUserJson({ ...user, lastLogin }) };
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
