// Account security inputs, shared by the API and the web forms.
import { z } from 'zod';
import { emailSchema, PASSWORD_MAX } from './auth';
import { newPasswordSchema } from './password-policy';

export const TWO_FACTOR_DIGITS = 6;
export const RECOVERY_TOKEN_COUNT = 10;
export { PASSWORD_HINT } from './password-policy';

export const changePasswordSchema = z.object({
  currentPassword: z
    .string({ error: 'Current password is required' })
    .min(1, 'Current password is required')
    .max(PASSWORD_MAX, 'Current password is incorrect'),
  newPassword: newPasswordSchema,
  /** API tokens end with the old password unless the user keeps them (sessions other than this one always end). */
  keepApiTokens: z.boolean({ error: 'keepApiTokens must be true or false' }).default(false),
});

/** Exactly six digits; spaces an authenticator app shows ("123 456") are ignored. */
export const twoFactorCodeSchema = z
  .string({ error: 'Enter the 6-digit code from your authenticator app' })
  .transform((v) => v.replace(/\s+/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app'));

export const recoveryTokenSchema = z
  .string({ error: 'Enter a recovery token' })
  .trim()
  .min(1, 'Enter a recovery token')
  .max(64, 'That is not a recovery token');

export const verifyTwoFactorSchema = z.object({ code: twoFactorCodeSchema });

/**
 * Step-up (ASVS 5.0 7.5.1): proof beyond the session for a sensitive action, in the call's body.
 * Either the current password or a current two-factor code; an account without a password that
 * signed in within STEP_UP_RECENT_MS may send neither.
 */
export const STEP_UP_RECENT_MS = 5 * 60 * 1000;
export const stepUpFields = {
  currentPassword: z
    .string({ error: 'Current password must be text' })
    .min(1, 'Enter your current password')
    .max(PASSWORD_MAX, 'Password is incorrect')
    .optional(),
  code: twoFactorCodeSchema.optional(),
};
export const stepUpSchema = z.object(stepUpFields);
export type StepUpProof = z.output<typeof stepUpSchema>;

/** Turning two-factor off: step-up proof; `password` is the older name of `currentPassword`. */
export const disableTwoFactorSchema = z
  .object({ ...stepUpFields, password: stepUpFields.currentPassword })
  .transform(({ password, currentPassword, code }) => ({ currentPassword: currentPassword ?? password, code }));

export const loginTwoFactorSchema = z
  .object({
    challenge: z.string({ error: 'The sign-in has expired. Please sign in again.' }).min(1).max(4096),
    code: twoFactorCodeSchema.optional(),
    recoveryToken: recoveryTokenSchema.optional(),
  })
  .refine((v) => (v.code === undefined) !== (v.recoveryToken === undefined), {
    message: 'Enter the 6-digit code from your authenticator app or a recovery token',
  });

export const forgotPasswordSchema = z.object({ email: emailSchema });

export const resetPasswordSchema = z.object({
  token: z.string({ error: 'This reset link is invalid' }).min(16, 'This reset link is invalid').max(200, 'This reset link is invalid'),
  password: newPasswordSchema,
});

export const verifyEmailSchema = z.object({
  token: z
    .string({ error: 'This verification link is invalid' })
    .min(16, 'This verification link is invalid')
    .max(200, 'This verification link is invalid'),
});

export const sessionIdSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{10,64}$/, 'Session not found') });

export type ChangePasswordInput = z.input<typeof changePasswordSchema>;
export type LoginTwoFactorInput = z.input<typeof loginTwoFactorSchema>;

/** Every event of the security log; the web app has a label for each. */
export const SECURITY_EVENTS = [
  'login',
  'login_failed',
  'logout',
  'register',
  'password_changed',
  'password_reset_requested',
  'password_reset',
  '2fa_enabled',
  '2fa_disabled',
  '2fa_failed',
  'recovery_token_used',
  'recovery_tokens_generated',
  'google_connected',
  'google_disconnected',
  'session_terminated',
  'account_deactivated',
  'api_token_created',
  'api_token_revoked',
] as const;
export type SecurityEvent = (typeof SECURITY_EVENTS)[number];
