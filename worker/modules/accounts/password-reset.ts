// Forgotten passwords: a single-use link, valid one hour, whose token is stored only as a hash.
// The link carries the token after '#', so it never reaches a server log or a Referer header.
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { passwordResetTokens, users } from '../../platform/db/schema';
import { AppError } from '../../platform/errors';
import { newId, randomToken, sha256Hex } from '../../platform/ids';
import { assertMailAvailable, type MailEnv } from '../../platform/mail';
import { queueMails } from '../mail';
import { enforce, RULES } from '../../platform/throttle';
import { recordSecurityEvent } from './security-log';
import type { Later, SessionOrigin } from '../../platform/request';
import { setPassword } from './credentials';
import { findUserByEmail } from './users';
import { hasPassed, HOUR_MS } from '../../platform/vocabulary';

export const RESET_TOKEN_TTL_MS = HOUR_MS;

export const resetLinkInvalid = () =>
  new AppError('VALIDATION_ERROR', 'This reset link is invalid, has expired or was already used. Please request a new one.');

type ResetEnv = MailEnv;

/**
 * Asks for a reset link: the same answer for every address, so it reveals nothing about accounts.
 * Mail must be available and the app's address known (`link` throws otherwise); the limit counts per
 * address whether or not it has an account; the mail goes after the response (`later`), so an
 * existing account does not answer more slowly than a missing one.
 */
export async function requestPasswordReset(
  env: ResetEnv,
  db: DB,
  email: string,
  link: () => string,
  origin: SessionOrigin,
  later: Later,
): Promise<void> {
  assertMailAvailable(env);
  const appUrl = link();
  await enforce(db, `reset-mail:${email}`, RULES.resetEmails, 'Too many reset requests for this email.');
  await later(
    sendPasswordReset(env, db, email, appUrl)
      .then((userId) => (userId ? recordSecurityEvent(db, userId, 'password_reset_requested', origin) : undefined))
      .catch((err) => console.error('Password reset email failed', err)),
  );
}

/**
 * Emails a reset link when an active account has this address (returning its id), and does nothing
 * otherwise; the caller answers the same either way and runs this after the response, so timing
 * tells nothing.
 */
export async function sendPasswordReset(env: ResetEnv, db: DB, email: string, appUrl: string, now = Date.now()): Promise<string | null> {
  const user = await findUserByEmail(db, email);
  if (!user || !user.isActive) return null;
  const token = randomToken(32);
  // The token and its mail commit together; the mail goes by the queue.
  await queueMails(
    db,
    [{ kind: 'password_reset', userId: user.id, data: { url: `${appUrl.replace(/\/$/, '')}/reset-password#token=${token}` } }],
    now,
    [
      db.insert(passwordResetTokens).values({
        id: newId(now),
        userId: user.id,
        tokenHash: await sha256Hex(token),
        expiresAt: new Date(now + RESET_TOKEN_TTL_MS),
        createdAt: new Date(now),
      }),
    ],
  );
  return user.id;
}

/**
 * Sets a new password with a reset token (setPassword, as a change does). The password change and
 * the spending of the token are one batch (one transaction): the UPDATE of the password only applies
 * while the token is unused and unexpired, and the next statement spends it with every other open
 * link of the account, so of two concurrent resets with one token exactly one succeeds. Every
 * session and API token of the account ends in the same batch; two-factor stays on, so the next
 * sign-in still asks for a code. The reset proves the address and unlinks Google.
 */
export async function resetPassword(db: DB, token: string, password: string, origin: SessionOrigin, now = Date.now()): Promise<void> {
  const hash = await sha256Hex(token);
  const row = await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.tokenHash, hash)).get();
  if (!row || row.usedAt || hasPassed(row.expiresAt.getTime(), now)) throw resetLinkInvalid();
  const account = await db
    .select({ id: users.id, username: users.username, email: users.email })
    .from(users)
    .where(eq(users.id, row.userId))
    .get();
  if (!account) throw resetLinkInvalid();
  const tokenStillGood = sql`EXISTS (SELECT 1 FROM ${passwordResetTokens} WHERE ${passwordResetTokens.id} = ${row.id} AND ${passwordResetTokens.usedAt} IS NULL AND ${passwordResetTokens.expiresAt} > ${now})`;
  await setPassword(
    db,
    {
      account,
      password,
      keep: {},
      event: 'password_reset',
      origin,
      when: tokenStillGood,
      alongside: (at) => [
        db
          .update(users)
          // The link came through the inbox, so the address is proven; a Google account linked before is
          // unlinked: whoever linked it may not be this person (they link it again, with proof).
          .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now})`, googleId: null, googleEmail: null })
          .where(and(eq(users.id, row.userId), tokenStillGood)),
        db
          .update(passwordResetTokens)
          .set({ usedAt: at })
          .where(and(eq(passwordResetTokens.userId, row.userId), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, at)))
          .returning({ id: passwordResetTokens.id }),
      ],
      confirm: ([, spent]) => {
        if (!(spent as { id: string }[]).some((t) => t.id === row.id)) throw resetLinkInvalid();
      },
    },
    now,
  );
}
