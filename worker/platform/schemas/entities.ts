// The shapes the API returns, shared by the web app and the CLI. Each is a zod schema, so the
// OpenAPI document (worker/platform/openapi.ts) describes exactly these; the types are inferred from them.
// `.meta({ id })` names a shape in the document's components.
import { z } from 'zod';
import { KEY_STATUSES, PRODUCT_TYPES, ROLES } from '../vocabulary';

const isoDate = z.string().meta({ format: 'date-time' });
const nullableDate = isoDate.nullable();

export const roleSchema = z.enum(ROLES).meta({ id: 'Role' });

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

export const dashboardStatsSchema = z
  .object({
    totalKeys: z.number(),
    availableKeys: z.number(),
    usedKeys: z.number(),
    expiredKeys: z.number(),
    revokedKeys: z.number(),
    totalProducts: z.number(),
    expiringSoonKeys: z.number().meta({ description: 'Active keys that expire within 7 days.' }),
    creditsSpent: z.number().meta({ description: 'Credits this user has paid for keys.' }),
  })
  .meta({ id: 'DashboardStats' });
export type DashboardStats = z.infer<typeof dashboardStatsSchema>;

// The shop (issue 3): products, license keys, purchases and the exchange.
export const productTypeSchema = z.enum(PRODUCT_TYPES).meta({ id: 'ProductType' });

export const productSchema = z
  .object({
    _id: z.string(),
    name: z.string(),
    description: z.string(),
    productType: productTypeSchema,
    keyTag: z.string(),
    baseCreditCost: z.number(),
    creditsPerDay: z.number(),
    minDays: z.number(),
    maxDays: z.number(),
    maxActivations: z.number(),
    offlineTokenHours: z.number().meta({ description: 'How long an offline token of this product lives, 1 to 720 hours.' }),
    isActive: z.boolean(),
    features: z.array(z.string()),
    stats: z
      .object({
        totalGenerated: z.number(),
        totalSold: z.number().optional(),
        revenue: z.number().optional(),
        totalActivations: z.number(),
      })
      .meta({
        description:
          "Counted by the server: every key made (generated or bought), keys sold, credits earned. Keys sold and revenue are the owner's business: everyone else's answer leaves them out.",
      }),
    createdAt: isoDate,
    updatedAt: nullableDate,
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof productSchema>;

export const keyStatusSchema = z.enum(KEY_STATUSES).meta({ id: 'KeyStatus' });

/** A user a key points at; `username` reads 'Deleted user' once the account is gone. */
export const keyUserRefSchema = z.object({ _id: z.string(), username: z.string() }).meta({ id: 'KeyUserRef' });
export type KeyUserRef = z.infer<typeof keyUserRefSchema>;

export const activationSchema = z
  .object({
    _id: z.string(),
    activatedAt: isoDate,
    lastUsed: nullableDate,
    deviceFingerprint: z.string(),
    deviceInfo: z
      .object({
        manufacturer: z.string().optional(),
        model: z.string().optional(),
        device: z.string().optional(),
        cpuAbi: z.string().optional(),
        fingerprint: z.string().optional(),
      })
      .nullable(),
  })
  .meta({ id: 'Activation' });
export type Activation = z.infer<typeof activationSchema>;

export const heldSlotSchema = z
  .object({ _id: z.string(), deviceFingerprint: z.string(), releasedAt: isoDate, freesAt: isoDate })
  .meta({ id: 'HeldSlot' });
export type HeldSlot = z.infer<typeof heldSlotSchema>;

export const licenseKeySchema = z
  .object({
    _id: z.string(),
    key: z.string(),
    status: keyStatusSchema.meta({ description: "'expired' as soon as expiresAt has passed, even before the cron job marks the row." }),
    product: z.object({
      _id: z.string(),
      name: z.string(),
      keyTag: z.string(),
      productType: productTypeSchema,
      duration: z.number(),
      maxActivations: z.number(),
    }),
    purchasedAt: nullableDate,
    purchasedBy: keyUserRefSchema.nullable(),
    createdBy: keyUserRefSchema.nullable(),
    duration: z.number(),
    purchasePrice: z.number(),
    revokeReason: z.string().nullable(),
    firstUsedAt: nullableDate,
    createdAt: isoDate,
    expiresAt: nullableDate.meta({ description: 'Null while a generated key is unactivated: its clock starts at the first activation.' }),
    metadata: z.object({ generationMethod: z.enum(['automatic', 'purchase', 'reseller', 'direct']) }),
    maxActivations: z.number(),
    activations: z.array(activationSchema),
    heldSlots: z.array(heldSlotSchema).meta({
      description:
        'Slots of devices that left the key but may still hold an offline token: each stays taken until `freesAt`. The owner can release one at once.',
    }),
  })
  .meta({ id: 'LicenseKey' });
export type LicenseKey = z.infer<typeof licenseKeySchema>;

/** The receipt a purchase answers with: `product` is the product's name, as the success card shows it. */
export const purchaseReceiptSchema = z
  .object({
    _id: z.string(),
    key: z.string(),
    product: z.string(),
    productId: z.string(),
    duration: z.number(),
    expiryDate: isoDate,
    cost: z.number(),
  })
  .meta({ id: 'PurchaseReceipt' });
export type PurchaseReceipt = z.infer<typeof purchaseReceiptSchema>;

export const purchaseResponseSchema = z
  .object({ licenseKey: purchaseReceiptSchema, remainingCredits: z.number() })
  .meta({ id: 'PurchaseResponse' });
export type PurchaseResponse = z.infer<typeof purchaseResponseSchema>;

export const purchaseShortfallSchema = z
  .object({ requiredCredits: z.number(), availableCredits: z.number(), baseCost: z.number(), durationCost: z.number(), days: z.number() })
  .meta({ id: 'PurchaseShortfall' });
export type PurchaseShortfall = z.infer<typeof purchaseShortfallSchema>;

const paged = <T extends z.ZodType>(name: string, item: T) => ({ [name]: z.array(item), totalPages: z.number(), total: z.number() });

export const myKeysResponseSchema = z.object(paged('keys', licenseKeySchema)).meta({ id: 'MyKeysResponse' });
export type MyKeysResponse = { keys: LicenseKey[]; totalPages: number; total: number };

export const exchangeRateResponseSchema = z.object({ rate: z.number() }).meta({ id: 'ExchangeRateResponse' });
export type ExchangeRateResponse = z.infer<typeof exchangeRateResponseSchema>;
export const exchangeResponseSchema = z
  .object({ user: userSchema, balances: z.object({ usd: z.number(), credits: z.number() }) })
  .meta({ id: 'ExchangeResponse' });
export type ExchangeResponse = z.infer<typeof exchangeResponseSchema>;

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

export const auditEntrySchema = z
  .object({
    _id: z.string(),
    action: z.string(),
    actor: z
      .object({ _id: z.string(), username: z.string().nullable() })
      .nullable()
      .meta({ description: "Null for the system; `username` null once the actor's account is deleted." }),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
    ipAddress: z.string().nullable(),
    createdAt: isoDate,
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export const auditLogResponseSchema = z.object(paged('entries', auditEntrySchema)).meta({ id: 'AuditLogResponse' });
export type AuditLogResponse = { entries: AuditEntry[]; totalPages: number; total: number };

export const recentUserSchema = userSchema.pick({ _id: true, username: true, email: true, role: true, createdAt: true });
export type RecentUser = z.infer<typeof recentUserSchema>;

export const adminStatsSchema = z
  .object({
    totalUsers: z.number(),
    totalKeys: z.number(),
    totalProducts: z.number(),
    totalRevenue: z.number().meta({ description: 'Credits.' }),
    usersByRole: z.object({ user: z.number(), reseller: z.number(), owner: z.number() }),
    keysByStatus: z.object({ available: z.number(), used: z.number(), revoked: z.number(), expired: z.number() }),
    recentActivity: z.object({ users: z.array(recentUserSchema), keys: z.array(licenseKeySchema) }),
  })
  .meta({ id: 'AdminStats' });
export type AdminStats = z.infer<typeof adminStatsSchema>;

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

// Key management (issue 4, second half): the admin key list, generation and purchases for a customer.
export const adminKeysResponseSchema = z.object(paged('keys', licenseKeySchema)).meta({ id: 'AdminKeysResponse' });
export type AdminKeysResponse = { keys: LicenseKey[]; totalPages: number; total: number };
export const keyChangeResponseSchema = z
  .object({ success: z.literal(true), message: z.string(), licenseKey: licenseKeySchema })
  .meta({ id: 'KeyChangeResponse' });
export type KeyChangeResponse = z.infer<typeof keyChangeResponseSchema>;
export const bulkDeleteResponseSchema = z
  .object({ success: z.literal(true), deleted: z.number(), notFound: z.array(z.string()), message: z.string() })
  .meta({ id: 'BulkDeleteResponse' });
export type BulkDeleteResponse = z.infer<typeof bulkDeleteResponseSchema>;
export const generateKeysResponseSchema = z
  .object({ keys: z.array(licenseKeySchema), generated: z.number(), message: z.string() })
  .meta({ id: 'GenerateKeysResponse' });
export type GenerateKeysResponse = z.infer<typeof generateKeysResponseSchema>;
export const purchaseForUserResponseSchema = z
  .object({
    licenseKey: purchaseReceiptSchema.extend({ purchasedBy: keyUserRefSchema }),
    resellerCredits: z.number().meta({ description: "The caller's own credits after the purchase." }),
    remainingCredits: z.number().nullable().meta({ description: "What is left to whoever paid; null for the owner's free purchase." }),
    message: z.string(),
  })
  .meta({ id: 'PurchaseForUserResponse' });
export type PurchaseForUserResponse = z.infer<typeof purchaseForUserResponseSchema>;

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
export const deviceRemovedSchema = z
  .object({ success: z.literal(true), message: z.string(), slotFreesAt: isoDate })
  .meta({ id: 'DeviceRemoved', description: 'The slot stays held while an offline token the device may hold is still valid.' });
export const sessionsResponseSchema = z.object({ sessions: z.array(sessionInfoSchema) }).meta({ id: 'SessionsResponse' });
export const securityLogResponseSchema = z.object({ logs: z.array(securityLogEntrySchema) }).meta({ id: 'SecurityLogResponse' });
export const apiTokensResponseSchema = z.object({ tokens: z.array(apiTokenSchema) }).meta({ id: 'ApiTokensResponse' });
export const productListSchema = z.array(productSchema).meta({ id: 'ProductList' });
export const productRemovedSchema = z
  .union([
    z.object({ success: z.literal(true), deleted: z.literal(true), message: z.string() }),
    z.object({
      success: z.literal(true),
      deleted: z.literal(false),
      deactivated: z.literal(true),
      message: z.string(),
      product: productSchema,
    }),
  ])
  .meta({ id: 'ProductRemoved', description: 'Deleted, or deactivated when it has license keys (kept with its sales history).' });
/** What a verified Stripe event did; `parked`: a refund or dispute kept until its payment's credit arrives. */
export const STRIPE_EVENT_OUTCOMES = [
  'credited',
  'refunded',
  'disputed',
  'dispute_won',
  'dispute_lost',
  'parked',
  'expired',
  'failed',
  'duplicate',
  'ignored',
] as const;
export type StripeEventOutcome = (typeof STRIPE_EVENT_OUTCOMES)[number];
export const stripeWebhookAnswerSchema = z
  .object({ received: z.literal(true), outcome: z.enum(STRIPE_EVENT_OUTCOMES) })
  .meta({ id: 'StripeWebhookAnswer' });
export const healthSchema = z.object({ ok: z.literal(true) }).meta({ id: 'Health' });
