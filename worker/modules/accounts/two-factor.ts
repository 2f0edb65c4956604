// Two-factor sign-in with time-based codes (RFC 6238 through @oslojs/otp): six digits, 30-second
// steps, one step of drift either way, and never the same step twice for an account.
import { createTOTPKeyURI, generateHOTP } from '@oslojs/otp';
import { encodeBase32NoPadding } from '@oslojs/encoding';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { jwtVerify, SignJWT, errors as joseErrors } from 'jose';
import { renderSVG } from 'uqr';
import type { DB } from '../../platform/db/client';
import { recoveryTokens, spentChallenges, users } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { AppError } from '../../platform/errors';
import { randomToken } from '../../platform/ids';
import { timingSafeEqual } from '../../platform/password';
import { endCredentialsStatements } from './sessions';
import { openSecret, sealSecret } from '../../platform/secret-box';
import { TWO_FACTOR_DIGITS } from './schemas/security';
import type { UserRow } from './users';
import type { SessionOrigin } from '../../platform/request';
import { recordSecurityEvent } from './security-log';

export const TOTP_PERIOD_S = 30;
export const TOTP_DRIFT_STEPS = 1;
const SECRET_BYTES = 20;

export const timeStep = (now: number) => Math.floor(now / 1000 / TOTP_PERIOD_S);

/**
 * The time step `code` belongs to, within the drift and after `lastStep`, or null. Every candidate
 * is computed and compared in constant time, so timing tells nothing about which one matched.
 */
export function matchingStep(key: Uint8Array, code: string, now: number, lastStep: number | null): number | null {
  const current = timeStep(now);
  const given = new TextEncoder().encode(code);
  let found: number | null = null;
  for (let step = current - TOTP_DRIFT_STEPS; step <= current + TOTP_DRIFT_STEPS; step++) {
    const expected = new TextEncoder().encode(generateHOTP(key, BigInt(step), TWO_FACTOR_DIGITS));
    const match = timingSafeEqual(given, expected);
    if (match && found === null && (lastStep === null || step > lastStep)) found = step;
  }
  return found;
}

/** Whether the code matched a step that was already used (a replay), for a clearer message. */
function matchesUsedStep(key: Uint8Array, code: string, now: number, lastStep: number | null) {
  return lastStep !== null && matchingStep(key, code, now, null) !== null && matchingStep(key, code, now, lastStep) === null;
}

export type TwoFactorSetup = { secret: string; otpauthUrl: string; qrCodeUrl: string };

/** A QR image of the otpauth address as an SVG data URL (the CSP allows data: images). */
export function qrCodeDataUrl(text: string): string {
  const svg = renderSVG(text, { ecc: 'M', border: 2, pixelSize: 6 });
  return `data:image/svg+xml;base64,${btoa(svg)}`;
}

/** Starts setup: a fresh secret waits (encrypted) until a code from it proves the app has it. */
export async function beginTwoFactorSetup(
  env: Pick<Env, 'TOTP_ENCRYPTION_KEY' | 'APP_NAME'>,
  db: DB,
  user: UserRow,
): Promise<TwoFactorSetup> {
  if (user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is already enabled');
  const key = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  const sealed = await sealSecret(env.TOTP_ENCRYPTION_KEY, key);
  await db.update(users).set({ twoFactorPendingSecret: sealed }).where(eq(users.id, user.id));
  const otpauthUrl = createTOTPKeyURI(env.APP_NAME || 'KeyPanel', user.email, key, TOTP_PERIOD_S, TWO_FACTOR_DIGITS);
  return { secret: encodeBase32NoPadding(key), otpauthUrl, qrCodeUrl: qrCodeDataUrl(otpauthUrl) };
}

/**
 * Turns two-factor on with a first code from the pending secret. Every other session and the API tokens of the account end
 * in the same batch (they got in without the second factor); the session that turned it on stays.
 */
export async function enableTwoFactor(
  env: Pick<Env, 'TOTP_ENCRYPTION_KEY'>,
  db: DB,
  user: UserRow,
  code: string,
  from: { sessionId: string; origin: SessionOrigin },
  now = Date.now(),
) {
  if (user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is already enabled');
  const pending = user.twoFactorPendingSecret;
  if (!pending) throw new AppError('VALIDATION_ERROR', 'Start the two-factor setup first');
  const key = await openSecret(env.TOTP_ENCRYPTION_KEY, pending);
  const step = matchingStep(key, code, now, user.twoFactorLastStep);
  if (step === null) throw new AppError('VALIDATION_ERROR', 'Invalid verification code. Check your authenticator app and try again.');
  // Guarded on the same pending secret and an unused step: a concurrent setup or replay changes nothing.
  const [enabled] = await db.batch([
    db
      .update(users)
      .set({ twoFactorEnabled: true, twoFactorSecret: pending, twoFactorPendingSecret: null, twoFactorLastStep: step })
      .where(and(eq(users.id, user.id), eq(users.twoFactorPendingSecret, pending), eq(users.twoFactorEnabled, false), stepIsNew(step)))
      .returning({ id: users.id }),
    ...endCredentialsStatements(db, user.id, { sessionId: from.sessionId }, eq(users.twoFactorSecret, pending)),
  ]);
  if (enabled.length === 0) throw new AppError('CONFLICT', 'This code was already used. Wait for the next code and try again.');
  await recordSecurityEvent(db, user.id, '2fa_enabled', from.origin);
}

const stepIsNew = (step: number) => or(isNull(users.twoFactorLastStep), lt(users.twoFactorLastStep, step));

export type CodeCheck = 'ok' | 'invalid' | 'reused';

/**
 * Checks a code against the account's active secret and spends its time step, atomically: of
 * two requests carrying the same code, exactly one gets 'ok'.
 */
export async function spendTwoFactorCode(
  env: Pick<Env, 'TOTP_ENCRYPTION_KEY'>,
  db: DB,
  user: UserRow,
  code: string,
  now = Date.now(),
): Promise<CodeCheck> {
  if (!user.twoFactorEnabled || !user.twoFactorSecret) return 'invalid';
  const key = await openSecret(env.TOTP_ENCRYPTION_KEY, user.twoFactorSecret);
  const step = matchingStep(key, code, now, user.twoFactorLastStep);
  if (step === null) return matchesUsedStep(key, code, now, user.twoFactorLastStep) ? 'reused' : 'invalid';
  const spent = await db
    .update(users)
    .set({ twoFactorLastStep: step })
    .where(and(eq(users.id, user.id), eq(users.twoFactorEnabled, true), eq(users.twoFactorSecret, user.twoFactorSecret), stepIsNew(step)))
    .returning({ id: users.id });
  return spent.length ? 'ok' : 'reused';
}

/**
 * Turns two-factor off and forgets the secret and the recovery tokens. A session that got in with
 * the second factor must not outlive it elsewhere: every other session and the API tokens end in the
 * same batch; this session stays.
 */
export async function disableTwoFactor(
  db: DB,
  user: Pick<UserRow, 'id' | 'twoFactorEnabled'>,
  from: { sessionId: string; origin: SessionOrigin },
) {
  if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is not enabled');
  const userId = user.id;
  await db.batch([
    db
      .update(users)
      .set({ twoFactorEnabled: false, twoFactorSecret: null, twoFactorPendingSecret: null, twoFactorLastStep: null })
      .where(eq(users.id, userId)),
    db.delete(recoveryTokens).where(eq(recoveryTokens.userId, userId)),
    ...endCredentialsStatements(db, userId, { sessionId: from.sessionId }),
  ]);
  await recordSecurityEvent(db, userId, '2fa_disabled', from.origin);
}

// The sign-in challenge: proof that the password (or Google) step passed, good for five minutes and
// for one session, signed with a key of its own so it can never pass for a session token, nor the
// reverse. Its id (jti) is spent in D1 when the second step succeeds (spent_challenges).
export const CHALLENGE_TTL_S = 5 * 60;
const CHALLENGE_AUDIENCE = 'keypanel:2fa-challenge';
const challengeKey = (secret: string) => new TextEncoder().encode(`${secret}:2fa-challenge`);

export type Challenge = { id: string; userId: string; rememberMe: boolean; expiresAt: number };

export async function createChallenge(secret: string, userId: string, rememberMe: boolean, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({ rm: rememberMe })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setJti(randomToken(18))
    .setAudience(CHALLENGE_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + CHALLENGE_TTL_S)
    .sign(challengeKey(secret));
}

export async function readChallenge(secret: string, challenge: string, now = Date.now()): Promise<Challenge | null> {
  try {
    const { payload } = await jwtVerify(challenge, challengeKey(secret), {
      algorithms: ['HS256'],
      audience: CHALLENGE_AUDIENCE,
      currentDate: new Date(now),
    });
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return null;
    return { id: payload.jti, userId: payload.sub, rememberMe: payload.rm === true, expiresAt: payload.exp * 1000 };
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return null;
    throw err;
  }
}

/** The mark a wrong answer leaves on its challenge: the challenge's id and a hash of what was sent. */
async function wrongAnswerId(challenge: Challenge, answer: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${challenge.id}:${answer}`));
  return `${challenge.id}:wrong:${encodeBase32NoPadding(new Uint8Array(digest)).slice(0, 26)}`;
}

/**
 * Spends the challenge for one answer (a code or a recovery token): 'claimed' for the one call that
 * gets it (one conditional insert, so of two concurrent uses exactly one wins); 'spent' when another
 * call has it or completed it; 'repeated' when this very answer was already found wrong with it (a
 * double click, a retry), which is answered as the first was and counts as no new attempt.
 */
export async function spendChallenge(db: DB, challenge: Challenge, answer: string): Promise<'claimed' | 'spent' | 'repeated'> {
  const wrong = await wrongAnswerId(challenge, answer);
  const [marked, spent] = await db.batch([
    db.select({ id: spentChallenges.id }).from(spentChallenges).where(eq(spentChallenges.id, wrong)),
    db
      .insert(spentChallenges)
      .select(
        sql`SELECT ${challenge.id}, ${challenge.expiresAt} WHERE NOT EXISTS (SELECT 1 FROM ${spentChallenges} WHERE ${spentChallenges.id} = ${wrong})`,
      )
      .onConflictDoNothing()
      .returning({ id: spentChallenges.id }),
  ]);
  if (spent.length === 1) return 'claimed';
  return marked.length === 1 ? 'repeated' : 'spent';
}

/**
 * Gives a challenge back after a wrong answer, so the person can try again (the attempt is still
 * counted), and marks the answer wrong for it, so the same answer sent again is not counted again.
 * `answer` null: no answer was tried (the attempt limit refused it first).
 */
export async function releaseChallenge(db: DB, challenge: Challenge, answer: string | null) {
  const release = db.delete(spentChallenges).where(eq(spentChallenges.id, challenge.id));
  if (answer === null) {
    await release;
    return;
  }
  const mark = db
    .insert(spentChallenges)
    .values({ id: await wrongAnswerId(challenge, answer), expiresAt: challenge.expiresAt })
    .onConflictDoNothing();
  await db.batch([mark, release]);
}
