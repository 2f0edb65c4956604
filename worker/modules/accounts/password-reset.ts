// Forgotten passwords: a single-use link, valid one hour, whose token is stored only as a hash.
// The link carries the token after '#', so it never reaches a server log or a Referer header.
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { passwordResetTokens, users } from '../../platform/db/schema';
import { AppError } from '../../platform/errors';
import { newId, randomToken, sha256Hex } from '../../platform/ids';
import { sendMail, type MailEnv } from '../../platform/mail';
import { hashPassword } from '../../platform/password';
import { containsIdentity, PERSONAL_PASSWORD_MESSAGE } from './schemas/password-policy';
import { setPasswordStatements } from './credentials';
import { findUserByEmail } from './users';
import { HOUR_MS } from '../../platform/vocabulary';

export const RESET_TOKEN_TTL_MS = HOUR_MS;

export const resetLinkInvalid = () =>
  new AppError('VALIDATION_ERROR', 'This reset link is invalid, has expired or was already used. Please request a new one.');

type ResetEnv = MailEnv;

/**
 * Emails a reset link when an active account has this address (returning its id), and does nothing
 * otherwise; the caller answers the same either way and runs this after the response, so timing
 * tells nothing.
 */
export async function sendPasswordReset(env: ResetEnv, db: DB, email: string, appUrl: string, now = Date.now()): Promise<string | null> {
  const user = await findUserByEmail(db, email);
  if (!user || !user.isActive) return null;
  const token = randomToken(32);
  await db.insert(passwordResetTokens).values({
    id: newId(now),
    userId: user.id,
    tokenHash: await sha256Hex(token),
    expiresAt: new Date(now + RESET_TOKEN_TTL_MS),
    createdAt: new Date(now),
  });
  const app = env.APP_NAME || 'KeyPanel';
  const link = `${appUrl.replace(/\/$/, '')}/reset-password#token=${token}`;
  await sendMail(env, {
    to: user.email,
    subject: `Reset your ${app} password`,
    text: [
      `Hello ${user.username},`,
      '',
      `Someone (hopefully you) asked to reset the password of your ${app} account.`,
      'Open this link within one hour to choose a new password:',
      '',
      link,
      '',
      'If you did not ask for this, ignore this email: your password stays as it is.',
    ].join('\n'),
  });
  return user.id;
}

/**
 * Sets a new password with a reset token. The password change and the spending of the token are
 * one batch (one transaction): the UPDATE of the password only applies while the token is unused
 * and unexpired, and the next statement spends it with every other open link of the account, so
 * of two concurrent resets with one token exactly one succeeds. Every session and API token of the
 * account ends in the same batch (setPasswordStatements). The reset proves the address and unlinks
 * Google. Returns the account id.
 */
export async function resetPassword(db: DB, token: string, password: string, now = Date.now()): Promise<string> {
  const hash = await sha256Hex(token);
  const row = await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.tokenHash, hash)).get();
  if (!row || row.usedAt || row.expiresAt.getTime() <= now) throw resetLinkInvalid();
  // The policy's one rule the schema cannot see; the link stays good for a better password.
  const owner = await db.select({ username: users.username, email: users.email }).from(users).where(eq(users.id, row.userId)).get();
  if (owner && containsIdentity(password, owner)) throw new AppError('VALIDATION_ERROR', PERSONAL_PASSWORD_MESSAGE);
  const passwordHash = await hashPassword(password);
  const at = new Date(now);
  const tokenStillGood = sql`EXISTS (SELECT 1 FROM ${passwordResetTokens} WHERE ${passwordResetTokens.id} = ${row.id} AND ${passwordResetTokens.usedAt} IS NULL AND ${passwordResetTokens.expiresAt} > ${now})`;
  const results = await db.batch([
    ...setPasswordStatements(db, row.userId, passwordHash, at, {}, tokenStillGood),
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
  ]);
  const spent = results[results.length - 1] as { id: string }[];
  if (!spent.some((t) => t.id === row.id)) throw resetLinkInvalid();
  return row.userId;
}
