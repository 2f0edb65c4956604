// Credentials of an account as a whole: a new password, whoever sets it (the person with the old one,
// or a reset link), is one function, and it ends what the old password made. Kept apart from
// users.ts, which the Node scripts (npm start's owner, the seed) load too.
import { and, eq, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { DB } from '../../platform/db/client';
import { users } from '../../platform/db/schema';
import { AppError } from '../../platform/errors';
import { hashPassword, verifyPassword } from '../../platform/password';
import type { SessionOrigin } from '../../platform/request';
import { passwordAttempt, refund } from '../../platform/throttle';
import { containsIdentity, PERSONAL_PASSWORD_MESSAGE } from './schemas/password-policy';
import { recordSecurityEvent, type SecurityEvent } from './security-log';
import { endCredentialsStatements } from './sessions';
import type { UserRow } from './users';

/** What survives a new password: the session that set it, and the API tokens when the person says so. */
export type KeptCredentials = { sessionId?: string; apiTokens?: boolean };

/**
 * The statements of a new password: the hash, and every session and API token made with the old
 * password ends in the same batch, but for what `keep` names. `when` is a further condition for the
 * whole change (a reset link still good).
 */
function setPasswordStatements(db: DB, userId: string, passwordHash: string, at: Date, keep: KeptCredentials, when?: SQL) {
  return [
    db
      .update(users)
      .set({ passwordHash, passwordChangedAt: at })
      .where(and(eq(users.id, userId), when)),
    ...endCredentialsStatements(db, userId, keep, when),
  ] as const;
}

type NewPassword = {
  account: Pick<UserRow, 'id' | 'username' | 'email'>;
  password: string;
  keep: KeptCredentials;
  /** The security log's name for it (`password_changed`, `password_reset`). */
  event: SecurityEvent;
  origin: SessionOrigin;
  /** A condition the whole change is under, and statements that go in the same batch (a reset link's). */
  when?: SQL;
  alongside?: (at: Date) => BatchItem<'sqlite'>[];
  /** Reads what `alongside` answered, and throws when the change did not apply (a link spent meanwhile). */
  confirm?: (alongside: unknown[]) => void;
};

/**
 * Sets a new password, for a change and for a reset alike: the policy's one rule the schema cannot
 * see (the account's own name and address), the hash, the end of the old credentials and whatever
 * goes with it in one batch, then the security log.
 */
export async function setPassword(db: DB, change: NewPassword, now = Date.now()): Promise<void> {
  const { account, password, keep, when } = change;
  if (containsIdentity(password, account)) throw new AppError('VALIDATION_ERROR', PERSONAL_PASSWORD_MESSAGE);
  const at = new Date(now);
  const passwordHash = await hashPassword(password);
  const own = setPasswordStatements(db, account.id, passwordHash, at, keep, when);
  const results = await db.batch([...own, ...(change.alongside?.(at) ?? [])]);
  change.confirm?.(results.slice(own.length));
  await recordSecurityEvent(db, account.id, change.event, change.origin);
}

/** Checks an account's password, counting failures like sign-in does (5 a minute per address and account). */
export async function checkPassword(
  db: DB,
  user: Pick<UserRow, 'email' | 'passwordHash'>,
  password: string,
  ipAddress: string | null,
): Promise<boolean> {
  const attempt = await passwordAttempt(db, user.email, ipAddress);
  if (!(await verifyPassword(password, user.passwordHash))) return false;
  await refund(db, attempt);
  return true;
}

/**
 * The signed-in person changes their password: they prove the current one, and whoever else was
 * signed in with it is signed out, and the tokens made with it end unless they keep them; this
 * device stays in. Answers the message for them.
 */
export async function changePassword(
  db: DB,
  user: UserRow,
  input: { currentPassword: string; newPassword: string; keepApiTokens: boolean },
  from: { sessionId: string; origin: SessionOrigin },
): Promise<string> {
  const { currentPassword, newPassword, keepApiTokens } = input;
  if (!user.passwordHash) {
    throw new AppError('VALIDATION_ERROR', 'This account has no password yet. Use "Forgot password" on the sign-in page to set one.');
  }
  if (containsIdentity(newPassword, user)) throw new AppError('VALIDATION_ERROR', PERSONAL_PASSWORD_MESSAGE);
  if (!(await checkPassword(db, user, currentPassword, from.origin.ipAddress))) {
    throw new AppError('VALIDATION_ERROR', 'Current password is incorrect');
  }
  if (currentPassword === newPassword) throw new AppError('VALIDATION_ERROR', 'New password must be different from the current password');
  await setPassword(db, {
    account: user,
    password: newPassword,
    keep: { sessionId: from.sessionId, apiTokens: keepApiTokens },
    event: 'password_changed',
    origin: from.origin,
  });
  const ended = keepApiTokens ? 'Other sessions have been signed out.' : 'Other sessions have been signed out and your API tokens revoked.';
  return `Password changed successfully. ${ended}`;
}
