// The shapes the accounts module answers with: an account, a session, sign-in's answers, account
// security and API tokens. The OpenAPI document describes exactly these; the types are inferred from them.
import { z } from 'zod';
import { isoDate, languageSchema, nullableDate, paged, roleSchema } from '../../../platform/schemas/common';

export const userSchema = z
  .object({
    _id: z.string(),
    username: z.string(),
    email: z.string(),
    role: roleSchema,
    balance: z.number().meta({ description: 'USD, two decimals.' }),
    credits: z.number(),
    isActive: z.boolean(),
    createdAt: isoDate,
    lastLogin: nullableDate,
    twoFactorEnabled: z.boolean(),
    googleConnected: z.boolean(),
    emailVerified: z.boolean().meta({ description: 'The address is proven; card top-ups and connecting Google need it.' }),
    language: languageSchema.nullable().meta({ description: "The web app's language the user chose; null: their browser's." }),
  })
  .meta({ id: 'User' });

export type User = z.infer<typeof userSchema>;

export const sessionAnswerSchema = z.object({ token: z.string(), user: userSchema }).meta({ id: 'SessionAnswer' });

export const twoFactorChallengeSchema = z
  .object({ requires2FA: z.literal(true), challenge: z.string() })
  .meta({ id: 'TwoFactorChallenge', description: 'Two-factor is on: finish with POST /api/auth/login/2fa.' });

export const loginResponseSchema = z.union([sessionAnswerSchema, twoFactorChallengeSchema]).meta({ id: 'LoginResponse' });

export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const registerResponseSchema = z
  .object({ success: z.boolean(), token: z.string(), user: userSchema, message: z.string() })
  .meta({ id: 'RegisterResponse' });

export type RegisterResponse = z.infer<typeof registerResponseSchema>;

// Administration (issue 4): user management, the audit log and the admin stats.
/** What a reseller may see of a user, to pick a customer. */
export const userSummarySchema = userSchema.pick({ _id: true, username: true, email: true, role: true }).meta({ id: 'UserSummary' });

export type UserSummary = z.infer<typeof userSummarySchema>;

export type AdminUsersResponse<T = User> = { users: T[]; totalPages: number; total: number };

export const adminUsersResponseSchema = z
  .object(paged('users', z.union([userSchema, userSummarySchema])))
  .meta({ id: 'AdminUsersResponse', description: 'Full users for the owner; a summary of each for a reseller.' });

export const adminUserResponseSchema = z.object({ user: userSchema, message: z.string().optional() }).meta({ id: 'AdminUserResponse' });

export type AdminUserResponse = z.infer<typeof adminUserResponseSchema>;

// Account security.
export const securityInfoSchema = z
  .object({
    twoFactorEnabled: z.boolean(),
    googleConnected: z.boolean(),
    recoveryTokens: z
      .number()
      .meta({ description: 'How many unused recovery tokens are left; the tokens themselves are shown only once.' }),
    googleEmail: z.string().nullable(),
    hasPassword: z.boolean().meta({ description: 'False for an account made through Google that has not set a password yet.' }),
    googleAvailable: z.boolean(),
  })
  .meta({ id: 'SecurityInfo' });

export type SecurityInfo = z.infer<typeof securityInfoSchema>;

export const sessionInfoSchema = z
  .object({
    id: z.string(),
    device: z.string(),
    browser: z.string(),
    location: z.string().nullable(),
    ipAddress: z.string().nullable(),
    lastActive: isoDate,
    createdAt: isoDate,
    current: z.boolean(),
  })
  .meta({ id: 'SessionInfo' });

export type SessionInfo = z.infer<typeof sessionInfoSchema>;

export const securityLogEntrySchema = z
  .object({ _id: z.string(), event: z.string(), ipAddress: z.string().nullable(), timestamp: isoDate })
  .meta({ id: 'SecurityLogEntry' });

export type SecurityLogEntry = z.infer<typeof securityLogEntrySchema>;

export const twoFactorSetupResponseSchema = z
  .object({ qrCodeUrl: z.string(), secret: z.string(), otpauthUrl: z.string() })
  .meta({ id: 'TwoFactorSetupResponse' });

export type TwoFactorSetupResponse = z.infer<typeof twoFactorSetupResponseSchema>;

export const recoveryTokensResponseSchema = z.object({ tokens: z.array(z.string()) }).meta({ id: 'RecoveryTokensResponse' });

export type RecoveryTokensResponse = z.infer<typeof recoveryTokensResponseSchema>;

/** What the Google sign-in hands the app after its redirect (POST /api/auth/google/complete). */
export const googleCompletionSchema = z
  .union([sessionAnswerSchema, twoFactorChallengeSchema, z.object({ connected: z.literal(true), message: z.string() })])
  .meta({ id: 'GoogleCompletion' });

export type GoogleCompletion = z.infer<typeof googleCompletionSchema>;

// API tokens (issue 7): the secret itself is in `CreatedApiToken.token`, shown once.
export const apiTokenSchema = z
  .object({ _id: z.string(), name: z.string(), role: roleSchema, readOnly: z.boolean(), createdAt: isoDate, lastUsedAt: nullableDate })
  .meta({ id: 'ApiToken' });

export type ApiToken = z.infer<typeof apiTokenSchema>;

export const createdApiTokenSchema = z
  .object({ token: z.string(), apiToken: apiTokenSchema, message: z.string() })
  .meta({ id: 'CreatedApiToken' });

export type CreatedApiToken = z.infer<typeof createdApiTokenSchema>;

// Smaller answers, named so the document and its generated types can refer to them.
export const googleUrlSchema = z
  .object({ url: z.string() })
  .meta({ id: 'GoogleUrl', description: "Google's authorization address to go to." });

export const sessionsResponseSchema = z.object({ sessions: z.array(sessionInfoSchema) }).meta({ id: 'SessionsResponse' });

export const securityLogResponseSchema = z.object({ logs: z.array(securityLogEntrySchema) }).meta({ id: 'SecurityLogResponse' });

export const apiTokensResponseSchema = z.object({ tokens: z.array(apiTokenSchema) }).meta({ id: 'ApiTokensResponse' });
