// The owner's user management: one schema per call, shared by the API
// and the User Management forms so both give the same messages.
import { z } from 'zod';
import { emailSchema, usernameSchema } from './auth';
import { newPasswordRule, PASSWORD_TOO_SHORT_MESSAGE, passwordNotPersonal } from './password-policy';
import { stepUpFields } from './security';
import { emptyAsUndefined, pageQuery } from '../../../platform/schemas/paging';
import { ROLES } from '../../../platform/vocabulary';

export const FUND_TYPES = ['balance', 'credits'] as const;
export type FundType = (typeof FUND_TYPES)[number];

/** Upper bounds that keep every amount an exact integer in JavaScript and SQLite. */
export const MAX_CREDITS = 1_000_000_000;
export const MAX_BALANCE_USD = 10_000_000;
export const USERS_PAGE_SIZE = 10;

const hasAtMostTwoDecimals = (v: number) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6;

/** Dollars with at most two decimals, within [min, MAX_BALANCE_USD]; read as cents by the server. */
export const usdAmount = (name: string, min: number) =>
  z
    .number({ error: `${name} must be a number` })
    .min(min, `${name} must be at least ${min}`)
    .max(MAX_BALANCE_USD, `${name} must be at most ${MAX_BALANCE_USD}`)
    .refine(hasAtMostTwoDecimals, `${name} must have at most two decimals`);

export const creditAmount = (name: string, min: number) =>
  z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(MAX_CREDITS, `${name} must be at most ${MAX_CREDITS}`);

export const toCents = (usd: number) => Math.round(usd * 100);

const roleSchema = z.enum(ROLES, { error: 'Role must be user, reseller or owner' });

// Query strings carry text: an empty value means "not given".

export const listUsersQuery = z.object({
  ...pageQuery(USERS_PAGE_SIZE),
  search: z.preprocess(emptyAsUndefined, z.string().trim().max(100, 'search must be at most 100 characters').optional()),
  role: z.preprocess(emptyAsUndefined, roleSchema.optional()),
});
export type ListUsersQuery = z.infer<typeof listUsersQuery>;

export const createUserSchema = z
  .object({
    username: usernameSchema,
    email: emailSchema,
    password: newPasswordRule(`${PASSWORD_TOO_SHORT_MESSAGE} long`),
    role: roleSchema.default('user'),
    balance: usdAmount('Balance', 0).default(0),
    credits: creditAmount('Credits', 0).default(0),
    isActive: z.boolean({ error: 'isActive must be true or false' }).default(true),
    // Proof, when the account created is a reseller or an owner (the operation's conditional step-up).
    ...stepUpFields,
    /** The owner vouches for the address; otherwise a verification link is sent to it. */
    emailVerified: z.boolean({ error: 'emailVerified must be true or false' }).default(false),
  })
  .superRefine(passwordNotPersonal);
export type CreateUserInput = z.input<typeof createUserSchema>;

/**
 * PUT /api/admin/users/{id}: every field optional, so a form that sends only what changed cannot
 * overwrite a balance that moved since it was loaded. Balance and credits are absolute values.
 */
export const updateUserSchema = z
  .object({
    username: usernameSchema,
    email: emailSchema,
    role: roleSchema,
    balance: usdAmount('Balance', 0),
    credits: creditAmount('Credits', 0),
    isActive: z.boolean({ error: 'isActive must be true or false' }),
    // Proof, when the change raises the role or changes the address (the operation's conditional step-up).
    ...stepUpFields,
  })
  .partial()
  .refine((v) => Object.entries(v).some(([field, x]) => !(field in stepUpFields) && x !== undefined), { message: 'Nothing to update' });
export type UpdateUserInput = z.input<typeof updateUserSchema>;

/** POST /api/admin/users/{id}/balance: adds funds (USD at least 0.01 in steps of 0.01; credits whole, at least 1). */
export const addFundsSchema = z
  .object({
    amount: z.number({ error: 'Amount is required' }),
    type: z.enum(FUND_TYPES, { error: 'Type must be balance or credits' }),
  })
  .superRefine((v, ctx) => {
    const rule = v.type === 'credits' ? creditAmount('Amount', 1) : usdAmount('Amount', 0.01);
    const result = rule.safeParse(v.amount);
    if (!result.success) ctx.addIssue({ code: 'custom', message: result.error.issues[0].message, path: ['amount'] });
  });
export type AddFundsInput = z.infer<typeof addFundsSchema>;

export const userIdParam = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/, 'Invalid user id') });
