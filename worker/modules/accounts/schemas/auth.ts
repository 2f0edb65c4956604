// Sign-in and registration rules, shared by the API and the web forms.
import { z } from 'zod';
import {
  EMAIL_REQUIRED_MESSAGE,
  looksLikeToken,
  PASSWORD_MAX,
  PASSWORD_REQUIRED_MESSAGE,
  TOKEN_AS_EMAIL_MESSAGE,
  USERNAME_MAX,
  USERNAME_MIN,
} from './auth-rules';
import { refuseUnsafeText } from '../../../platform/schemas/text';
import { newPasswordSchema, passwordNotPersonal } from './password-policy';

export * from './auth-rules';
export { newPasswordSchema } from './password-policy';

export const usernameSchema = z
  .string({ error: 'Username is required' })
  .trim()
  .min(1, 'Username is required')
  .min(USERNAME_MIN, `Username must be at least ${USERNAME_MIN} characters`)
  .max(USERNAME_MAX, `Username must be at most ${USERNAME_MAX} characters`)
  .superRefine(refuseUnsafeText('Username'))
  .regex(/^[A-Za-z0-9_.-]+$/, 'Username may contain only letters, numbers, dots, dashes and underscores');

export const emailSchema = z
  .string({ error: EMAIL_REQUIRED_MESSAGE })
  .trim()
  .min(1, EMAIL_REQUIRED_MESSAGE)
  .max(254, 'Email is too long')
  .refine((v) => !looksLikeToken(v), TOKEN_AS_EMAIL_MESSAGE)
  // The HTML5 rule, as browsers apply it to type=email inputs (it allows hosts like localhost).
  .pipe(z.email({ pattern: z.regexes.html5Email, error: 'Please enter a valid email address' }))
  .transform((v) => v.toLowerCase());

export const REFERRAL_CODE_INVALID = 'This referral code is not valid: check the link, or register without it';
export const referralCodeSchema = z.preprocess(
  (v) => (v === '' || v === null ? undefined : v),
  z
    .string({ error: REFERRAL_CODE_INVALID })
    .trim()
    .toUpperCase()
    .regex(/^[A-Z0-9]{4,32}$/, REFERRAL_CODE_INVALID)
    .optional(),
);

export const registerSchema = z
  .object({
    username: usernameSchema,
    email: emailSchema,
    password: newPasswordSchema,
    confirmPassword: z.string().optional(),
    /** A reseller's referral code (`/register?ref=CODE`): the new account becomes their customer. */
    ref: referralCodeSchema.optional(),
  })
  .refine((v) => v.confirmPassword === undefined || v.confirmPassword === v.password, {
    message: 'Passwords do not match',
    path: ['confirmPassword'],
  })
  .superRefine(passwordNotPersonal);

export const loginSchema = z.object({
  email: emailSchema,
  password: z.string({ error: PASSWORD_REQUIRED_MESSAGE }).min(1, PASSWORD_REQUIRED_MESSAGE).max(PASSWORD_MAX, 'Invalid email or password'),
  rememberMe: z.boolean().optional().default(false),
});

export type RegisterInput = z.input<typeof registerSchema>;
export type LoginInput = z.input<typeof loginSchema>;
