// One password policy for every new password (registration, change, reset and the owner's Create
// user), after NIST SP 800-63B: long enough, no composition rules, not one of the commonest
// passwords and not built from the account's own name or address. Shared by the API, the web
// forms and the CLI, so all three refuse the same passwords with the same words.
import { z } from 'zod';
import { PASSWORD_MAX, PASSWORD_MIN, PASSWORD_REQUIRED_MESSAGE } from './auth-rules';
import { isCommonPassword } from './common-passwords';

export const PASSWORD_TOO_SHORT_MESSAGE = `Password must be at least ${PASSWORD_MIN} characters`;
export const COMMON_PASSWORD_MESSAGE =
  'This password is one of the most common passwords, the first ones an attacker tries. Please choose another.';
export const PERSONAL_PASSWORD_MESSAGE = 'Password must not contain the username or email address';
export const PASSWORD_HINT = `At least ${PASSWORD_MIN} characters. A few unrelated words make a password that is strong and easy to remember.`;

/** A new password on its own; `tooShort` words the length rule as the form's spec does. */
export const newPasswordRule = (tooShort = PASSWORD_TOO_SHORT_MESSAGE) =>
  z
    .string({ error: PASSWORD_REQUIRED_MESSAGE })
    .min(1, PASSWORD_REQUIRED_MESSAGE)
    .min(PASSWORD_MIN, tooShort)
    .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`)
    .refine((v) => !isCommonPassword(v), COMMON_PASSWORD_MESSAGE);

export const newPasswordSchema = newPasswordRule();

export type PasswordOwner = { username?: string | null; email?: string | null };

/** True when the password contains the username, the email address or its part before the @. */
export function containsIdentity(password: string, owner: PasswordOwner): boolean {
  const lower = password.toLowerCase();
  const email = owner.email?.trim().toLowerCase() ?? '';
  const parts = [owner.username?.trim().toLowerCase() ?? '', email, email.split('@')[0]];
  // Three characters, the shortest username, so a two-letter mailbox does not ban every password.
  return parts.some((part) => part.length >= 3 && lower.includes(part));
}

/** What is wrong with a new password for this account, or null: the whole policy in one call. */
export function passwordProblem(password: string, owner: PasswordOwner): string | null {
  const parsed = newPasswordSchema.safeParse(password);
  if (!parsed.success) return parsed.error.issues[0].message;
  return containsIdentity(password, owner) ? PERSONAL_PASSWORD_MESSAGE : null;
}

/** The identity rule for a form that holds the username, email and password together. */
export const passwordNotPersonal = (v: { username?: string; email?: string; password: string }, ctx: z.RefinementCtx) => {
  if (containsIdentity(v.password, v)) ctx.addIssue({ code: 'custom', path: ['password'], message: PERSONAL_PASSWORD_MESSAGE });
};
