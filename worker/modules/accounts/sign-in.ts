// Every way in: registration, a password, its second factor, and the last step they share with
// Google's (a session, lastLogin, the log); and the way out.
import { and, eq, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { securityLog, sessions, users } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { AppError, registrationClosed, underMaintenance } from '../../platform/errors';
import { verifyPassword } from '../../platform/password';
import type { Later, SessionOrigin } from '../../platform/request';
import { passwordAttempt, refund, secondFactorAttempt } from '../../platform/throttle';
import { openSessionStatement, sessionToken } from './sessions';
import { recordSecurityEvent, securityEventRow } from './security-log';
import { spendRecoveryToken } from './recovery';
import { sendVerificationIfPossible } from './email-verification';
import { createChallenge, readChallenge, releaseChallenge, spendChallenge, spendTwoFactorCode } from './two-factor';
import { createUser, findUserByEmail, findUserById, toUserJson, type UserRow } from './users';
import type { Env as WorkerEnv } from '../../platform/env';
import { getSettings } from '../settings';
import { type User } from './schemas/answers';
import { REFERRAL_CODE_INVALID } from './schemas/auth';

export type SignInAnswer = { token: string; user: User } | { requires2FA: true; challenge: string };

export const accountDisabled = () => new AppError('ACCOUNT_DISABLED', 'This account has been deactivated. Please contact support.');
// One answer for an unknown email and a wrong password, so neither reveals an account.
const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Invalid email or password');
const challengeExpired = () => new AppError('UNAUTHORIZED', 'This sign-in has expired. Please sign in again.');
const INVALID_CODE = 'Invalid two-factor code';
const INVALID_RECOVERY = 'Invalid or already used recovery token';
const challengeUsed = () => new AppError('UNAUTHORIZED', 'This sign-in was already completed. Please sign in again.');

/**
 * Creates an account and signs it in. The address is not proven yet: a link goes to it after the
 * answer (without mail or APP_URL, the account asks again later).
 */
export async function register(
  env: WorkerEnv,
  db: DB,
  input: { username: string; email: string; password: string; ref?: string },
  origin: SessionOrigin,
  later: Later,
) {
  if (!(await getSettings(env.KV)).registrationEnabled) throw registrationClosed();
  const resellerId = input.ref ? await resellerByReferralCode(db, input.ref) : null;
  const created = await createUser(db, { username: input.username, email: input.email, password: input.password, resellerId });
  const session = await openSession(env, db, created, origin, false, 'register');
  await later(sendVerificationIfPossible(env, db, created, env.APP_URL));
  return session;
}

/** The active reseller a referral code names; a code that names none is refused, so nobody registers believing otherwise. */
async function resellerByReferralCode(db: DB, code: string): Promise<string> {
  const reseller = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.referralCode, code), eq(users.role, 'reseller'), eq(users.isActive, true)))
    .get();
  if (!reseller) throw new AppError('VALIDATION_ERROR', REFERRAL_CODE_INVALID, { details: { field: 'ref' } });
  return reseller.id;
}

/**
 * The first factor: the password, counted before the check so concurrent guesses cannot all pass
 * under the limit. A session, or with two-factor on a challenge for `finishTwoFactorSignIn`.
 */
export async function signInWithPassword(
  env: Pick<Env, 'KV' | 'JWT_SECRET'>,
  db: DB,
  input: { email: string; password: string; rememberMe: boolean },
  origin: SessionOrigin,
  later: Later,
): Promise<SignInAnswer> {
  const attempt = await passwordAttempt(db, input.email, origin.ipAddress);
  const user = await findUserByEmail(db, input.email);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (!user || !ok) {
    if (user) await later(recordSecurityEvent(db, user.id, 'login_failed', origin));
    throw invalidCredentials();
  }
  await refund(db, attempt);
  return afterFirstFactor(env, db, user, origin, input.rememberMe);
}

/**
 * The second factor: a code from the authenticator or a recovery token, against the challenge the
 * first answered. The challenge is spent before the code is checked, so two calls with one challenge
 * cannot both open a session (nor both spend a recovery token); a wrong code gives it back. A call
 * that finds the challenge held or completed by another (a double click) checks no code and counts
 * no attempt, and the same wrong answer sent again is refused again without counting.
 */
export async function finishTwoFactorSignIn(
  env: Pick<Env, 'KV' | 'JWT_SECRET' | 'TOTP_ENCRYPTION_KEY'>,
  db: DB,
  input: { challenge: string; code?: string; recoveryToken?: string },
  origin: SessionOrigin,
) {
  const claim = await readChallenge(env.JWT_SECRET, input.challenge);
  if (!claim) throw challengeExpired();
  const user = await findUserById(db, claim.userId);
  if (!user || !user.twoFactorEnabled) throw challengeExpired();
  if (!user.isActive) throw accountDisabled();
  // The answer as sent: a code with its spaces, or a recovery token, each marked wrong as it was sent.
  const answer = input.code !== undefined ? `code:${input.code}` : `recovery:${input.recoveryToken!}`;
  const claimed = await spendChallenge(db, claim, answer);
  // A copy of a call that holds or completed the challenge (a double click, a retry) tries nothing
  // and counts nothing; a copy of a wrong answer is told again that it is wrong.
  if (claimed === 'spent') throw challengeUsed();
  if (claimed === 'repeated') throw new AppError('INVALID_CREDENTIALS', input.code !== undefined ? INVALID_CODE : INVALID_RECOVERY);
  let attempts: Awaited<ReturnType<typeof secondFactorAttempt>>;
  try {
    attempts = await secondFactorAttempt(db, user.id);
  } catch (err) {
    await releaseChallenge(db, claim, null);
    throw err;
  }
  const failed = async (message: string) => {
    await releaseChallenge(db, claim, answer);
    await recordSecurityEvent(db, user.id, '2fa_failed', origin);
    return new AppError('INVALID_CREDENTIALS', message);
  };
  if (input.code !== undefined) {
    const check = await spendTwoFactorCode(env, db, user, input.code);
    if (check !== 'ok') {
      throw await failed(check === 'reused' ? 'This code was already used. Wait for the next code and try again.' : INVALID_CODE);
    }
  } else if (!(await spendRecoveryToken(db, user.id, input.recoveryToken!))) {
    throw await failed(INVALID_RECOVERY);
  } else {
    await recordSecurityEvent(db, user.id, 'recovery_token_used', origin);
  }
  await Promise.all(attempts.map((a) => refund(db, a)));
  return openSession(env, db, user, origin, claim.rememberMe);
}

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
