// Step-up for sensitive actions (ASVS 5.0 7.5.1): a stolen session alone must not be enough to
// mint an API token, change two-factor or unlink Google. The proof comes in the call's body: the
// current password or a current two-factor code; an account without a password (Google only) may
// instead have signed in within the last few minutes. Checked before anything changes.
import type { DB } from '../../platform/db/client';
import type { Env } from '../../platform/env';
import { AppError } from '../../platform/errors';
import { verifyPassword } from '../../platform/password';
import type { CallerSession } from '../../platform/context';
import { STEP_UP_RECENT_MS, type StepUpProof } from './schemas/security';
import { passwordAttempt, refund, secondFactorAttempt } from '../../platform/throttle';
import { spendTwoFactorCode } from './two-factor';
import type { UserRow } from './users';

export type StepUpMethod = 'currentPassword' | 'code' | 'recentSignIn';

/** The proofs this account can give, so a client knows what to ask for. */
export function stepUpMethods(user: Pick<UserRow, 'passwordHash' | 'twoFactorEnabled'>): StepUpMethod[] {
  const methods: StepUpMethod[] = [];
  if (user.passwordHash) methods.push('currentPassword');
  if (user.twoFactorEnabled) methods.push('code');
  if (!user.passwordHash) methods.push('recentSignIn');
  return methods;
}

const reauthRequired = (user: UserRow, message: string) =>
  new AppError('REAUTH_REQUIRED', message, { details: { methods: stepUpMethods(user) } });

function missingProofMessage(user: UserRow): string {
  if (user.passwordHash)
    return user.twoFactorEnabled ? 'Confirm with your current password or a two-factor code.' : 'Confirm with your current password.';
  return user.twoFactorEnabled
    ? 'Confirm with a two-factor code, or sign in again and retry within 5 minutes.'
    : 'For your security, sign in again and retry within 5 minutes.';
}

/**
 * Throws 403 REAUTH_REQUIRED unless the proof holds. Wrong passwords and codes count against the
 * same limits as at sign-in, so a stolen session cannot guess its way through.
 */
export async function confirmStepUp(
  env: Pick<Env, 'TOTP_ENCRYPTION_KEY'>,
  db: DB,
  user: UserRow,
  session: CallerSession,
  proof: StepUpProof,
  ipAddress: string | null,
  now = Date.now(),
): Promise<void> {
  if (proof.code !== undefined) {
    if (!user.twoFactorEnabled)
      throw reauthRequired(user, 'Two-factor authentication is off for this account: confirm with your password instead.');
    const attempts = await secondFactorAttempt(db, user.id, now);
    const check = await spendTwoFactorCode(env, db, user, proof.code, now);
    if (check !== 'ok') {
      throw reauthRequired(
        user,
        check === 'reused' ? 'This code was already used. Wait for the next code and try again.' : 'Invalid two-factor code',
      );
    }
    await Promise.all(attempts.map((a) => refund(db, a)));
    return;
  }
  if (proof.currentPassword !== undefined) {
    if (!user.passwordHash) throw reauthRequired(user, 'This account has no password. ' + missingProofMessage(user));
    const attempt = await passwordAttempt(db, user.email, ipAddress, now);
    if (!(await verifyPassword(proof.currentPassword, user.passwordHash))) throw reauthRequired(user, 'Password is incorrect');
    await refund(db, attempt);
    return;
  }
  if (!user.passwordHash && now - session.createdAt <= STEP_UP_RECENT_MS) return;
  throw reauthRequired(user, missingProofMessage(user));
}
