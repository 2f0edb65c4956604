// Proving an email address (issue 33): registration sends a link; until it is opened the account may
// browse and spend credits it was given, but not pay by card nor connect Google (a stranger could
// otherwise register someone else's address and wait for its owner's money). The link's token is
// stored only as a hash, for the address it was sent to, works once and for 24 hours; it travels
// after '#', so it never reaches a server log or a Referer header.
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { emailVerificationTokens, users } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { newId, randomToken, sha256Hex } from '../../platform/ids';
import { assertMailAvailable, mailTransport, type MailEnv } from '../../platform/mail';
import { queueMails } from '../mail';
import { enforce, RULES } from '../../platform/throttle';
import { findUserById, type UserRow } from './users';
import { DAY_MS, hasPassed } from '../../platform/vocabulary';
import { auditStatement } from '../audit';

export const VERIFY_TOKEN_TTL_MS = DAY_MS;

export const verifyLinkInvalid = () =>
  new AppError(
    'VALIDATION_ERROR',
    'This verification link is invalid, has expired or was already used. Please send a new one from your account.',
  );

/** Mails a verification link to the account's current address (by the mail queue). The caller checks mail and APP_URL first. */
export async function sendVerificationLink(
  env: MailEnv,
  db: DB,
  user: Pick<UserRow, 'id' | 'email' | 'username'>,
  appUrl: string,
  now = Date.now(),
) {
  const token = randomToken(32);
  // The token and its mail commit together; the mail goes by the queue, after the answer.
  await queueMails(
    db,
    [
      {
        kind: 'verification',
        userId: user.id,
        toEmail: user.email,
        data: { url: `${appUrl.replace(/\/$/, '')}/verify-email#token=${token}` },
      },
    ],
    now,
    [
      db.insert(emailVerificationTokens).values({
        id: newId(now),
        userId: user.id,
        email: user.email,
        tokenHash: await sha256Hex(token),
        expiresAt: new Date(now + VERIFY_TOKEN_TTL_MS),
        createdAt: new Date(now),
      }),
    ],
  );
}

/**
 * Marks the address verified with a link's token: one batch that spends the token and marks the
 * account only while the token is unused, unexpired and for the account's current address (an
 * address changed since needs a new link). Returns the account id.
 */
export async function verifyEmail(db: DB, token: string, now = Date.now()): Promise<string> {
  const row = await db
    .select()
    .from(emailVerificationTokens)
    .where(eq(emailVerificationTokens.tokenHash, await sha256Hex(token)))
    .get();
  if (!row || row.usedAt || hasPassed(row.expiresAt.getTime(), now)) throw verifyLinkInvalid();
  // Spent by this batch's first statement (and so by this call) exactly when its used_at is now.
  const spentHere = sql`EXISTS (SELECT 1 FROM ${emailVerificationTokens} WHERE ${emailVerificationTokens.id} = ${row.id} AND ${emailVerificationTokens.usedAt} = ${now})`;
  const [spent, marked] = await db.batch([
    db
      .update(emailVerificationTokens)
      .set({ usedAt: new Date(now) })
      .where(
        and(
          eq(emailVerificationTokens.id, row.id),
          isNull(emailVerificationTokens.usedAt),
          gt(emailVerificationTokens.expiresAt, new Date(now)),
        ),
      )
      .returning({ id: emailVerificationTokens.id }),
    db
      .update(users)
      .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now})` })
      .where(and(eq(users.id, row.userId), eq(users.email, row.email), spentHere))
      .returning({ id: users.id }),
    auditStatement(db, { id: row.userId }, 'user.email_verified', { type: 'user', id: row.userId }, { email: row.email }, null, spentHere),
  ]);
  if (!spent.length || !marked.length) throw verifyLinkInvalid();
  return row.userId;
}

export const emailAlreadyVerified = () => new AppError('CONFLICT', 'Your email address is already verified.');

/** Sends the link when this server can (mail and APP_URL): true when sent. Never throws. */
export async function sendVerificationIfPossible(env: MailEnv, db: DB, user: UserRow, appUrl: string | undefined): Promise<boolean> {
  const base = appUrl?.trim();
  if (mailTransport(env) === 'none' || !base) return false;
  try {
    await sendVerificationLink(env, db, user, base);
    return true;
  } catch (err) {
    console.error('Verification email failed', err instanceof Error ? err.message : 'unknown error');
    return false;
  }
}

/**
 * Sends the verification link again to the signed-in account: mail must be available and the app's
 * address known (`link` throws otherwise), a few mails per account every few minutes. Answers the address.
 */
export async function resendVerification(env: MailEnv, db: DB, userId: string, link: () => string): Promise<string> {
  assertMailAvailable(env);
  const appUrl = link();
  const user = await findUserById(db, userId);
  if (!user) throw notFound('User');
  if (user.emailVerifiedAt) throw emailAlreadyVerified();
  await enforce(db, `verify-mail:${user.id}`, RULES.resetEmails, 'Too many verification emails. Please wait a few minutes.');
  await sendVerificationLink(env, db, user, appUrl);
  return user.email;
}
