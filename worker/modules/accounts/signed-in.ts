// What several signed-in routes build from the request before they call the domain: the caller's
// account, the password and step-up checks, and the key-admin context.
import type { Context } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { confirmStepUp } from './step-up';
import { passwordAttempt, refund } from '../../platform/throttle';
import { findUserById, type UserRow } from './users';
import { sessionOf } from './identify';
import type { StepUpProof } from './schemas/security';
import { forbidden, notFound } from '../../platform/errors';
import { verifyPassword } from '../../platform/password';
import { requestOrigin } from '../../platform/request';

/** The caller's own account row; 404 when it was deleted under a live session. */
export async function currentUser(c: Context<SignedInEnv>) {
  const user = await findUserById(c.var.db, c.var.caller.id);
  if (!user) throw notFound('User');
  return user;
}

/** Checks the signed-in user's password, counting failures like sign-in does (5 a minute). */
export async function confirmPassword(
  c: Context<SignedInEnv>,
  user: { email: string; passwordHash: string | null },
  password: string,
): Promise<boolean> {
  const origin = requestOrigin(c);
  const attempt = await passwordAttempt(c.var.db, user.email, origin.ipAddress);
  if (!(await verifyPassword(password, user.passwordHash))) return false;
  await refund(c.var.db, attempt);
  return true;
}

/** Step-up for a sensitive action (modules/accounts/step-up.ts): 403 REAUTH_REQUIRED before anything changes. */
export const stepUp = (c: Context<SignedInEnv>, user: UserRow, proof: StepUpProof) =>
  confirmStepUp(c.env, c.var.db, user, sessionOf(c.var.caller), proof, requestOrigin(c).ipAddress);

/**
 * Step-up for an operation whose declaration says proof is `conditional`, when this call's change
 * grants power: a person signed in, with proof; never an API token (403, nothing changed). Answers
 * the caller's account, as read for the proof.
 */
export async function proveCaller(c: Context<SignedInEnv>, proof: StepUpProof, what: string): Promise<UserRow> {
  if (c.var.caller.via !== 'session') {
    throw forbidden(`API tokens cannot ${what}: it needs proof of who you are. Sign in to KeyPanel to do this.`);
  }
  const me = await currentUser(c);
  await stepUp(c, me, proof);
  return me;
}
