// Sign-in and registration rules (SPEC section 5), shared by the API and the web forms.
import { z } from 'zod';

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 30;
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 128;

// A pasted session token (a JWT starts with eyJ) is not an email address.
export const looksLikeToken = (value: string) => value.startsWith('eyJ') && value.includes('.');
export const TOKEN_AS_EMAIL_MESSAGE = 'Invalid email format. Please enter a valid email address.';

export const usernameSchema = z
  .string({ error: 'Username is required' })
  .trim()
  .min(1, 'Username is required')
  .min(USERNAME_MIN, `Username must be at least ${USERNAME_MIN} characters`)
  .max(USERNAME_MAX, `Username must be at most ${USERNAME_MAX} characters`)
  .regex(/^[A-Za-z0-9_.-]+$/, 'Username may contain only letters, numbers, dots, dashes and underscores');

export const emailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(254, 'Email is too long')
  .refine((v) => !looksLikeToken(v), TOKEN_AS_EMAIL_MESSAGE)
  // The HTML5 rule, as browsers apply it to type=email inputs (it allows hosts like localhost).
  .pipe(z.email({ pattern: z.regexes.html5Email, error: 'Please enter a valid email address' }))
  .transform((v) => v.toLowerCase());

export const newPasswordSchema = z
  .string({ error: 'Password is required' })
  .min(1, 'Password is required')
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

export const registerSchema = z
  .object({
    username: usernameSchema,
    email: emailSchema,
    password: newPasswordSchema,
    confirmPassword: z.string().optional(),
  })
  .refine((v) => v.confirmPassword === undefined || v.confirmPassword === v.password, {
    message: 'Passwords do not match',
    path: ['confirmPassword'],
  });

export const loginSchema = z.object({
  email: emailSchema,
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(PASSWORD_MAX, 'Invalid email or password'),
  rememberMe: z.boolean().optional().default(false),
});

export type RegisterInput = z.input<typeof registerSchema>;
export type LoginInput = z.input<typeof loginSchema>;
