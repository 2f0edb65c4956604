// The settings document: every field, default and bound, in one schema
// shared by the API, the owner's settings screen and the CLI.
import { z } from 'zod';

const int = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const usd = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .min(1, `${name} must be at least $1`)
    .max(10_000, `${name} must be at most $10,000`)
    .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, { message: `${name} must have at most two decimals` });

/** Card top-ups through Stripe Checkout (they also need STRIPE_SECRET_KEY in the environment). */
export const paymentSettingsSchema = z
  .object({
    cardTopUpsEnabled: z.boolean(),
    minTopUpUsd: usd('minTopUpUsd'),
    maxTopUpUsd: usd('maxTopUpUsd'),
    quickTopUpAmounts: z.array(usd('A quick amount')).max(6, 'At most 6 quick amounts'),
    /**
     * Hours a first-time payer's card top-ups are held before they can be exchanged for credits
     * (0: never held). Guards against a stolen card spent before its owner disputes it.
     */
    firstTopUpHoldHours: int('firstTopUpHoldHours', 0, 720).default(0),
  })
  .strict()
  .refine((p) => p.minTopUpUsd <= p.maxTopUpUsd, { message: 'minTopUpUsd must not exceed maxTopUpUsd', path: ['minTopUpUsd'] })
  .refine((p) => p.quickTopUpAmounts.every((a) => a >= p.minTopUpUsd && a <= p.maxTopUpUsd), {
    message: 'Quick amounts must lie between the minimum and the maximum',
    path: ['quickTopUpAmounts'],
  });
export type PaymentSettings = z.infer<typeof paymentSettingsSchema>;

export const DEFAULT_PAYMENT_SETTINGS: PaymentSettings = {
  cardTopUpsEnabled: true,
  minTopUpUsd: 5,
  maxTopUpUsd: 500,
  quickTopUpAmounts: [10, 25, 50, 100],
  firstTopUpHoldHours: 0,
};

/** Key transfers between accounts (My Keys' Transfer, a reseller's for their customers). */
export const keyTransferSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** How many times one key may be transferred in its life; 0: no limit. */
    maxPerKey: int('maxPerKey', 0, 100),
  })
  .strict();
export type KeyTransferSettings = z.infer<typeof keyTransferSettingsSchema>;
export const DEFAULT_KEY_TRANSFER_SETTINGS: KeyTransferSettings = { enabled: true, maxPerKey: 0 };

/** Renewals (issue 43): whether customers may switch auto-renewal on, and how many days before expiry the cron renews. */
export const renewalSettingsSchema = z
  .object({
    autoRenewEnabled: z.boolean({ error: 'autoRenewEnabled must be true or false' }),
    /** The cron renews an auto-renewing key this many days before it expires. */
    autoRenewDaysBefore: int('autoRenewDaysBefore', 1, 30),
  })
  .strict();
export type RenewalSettings = z.infer<typeof renewalSettingsSchema>;
export const DEFAULT_RENEWAL_SETTINGS: RenewalSettings = { autoRenewEnabled: true, autoRenewDaysBefore: 3 };

export const settingsSchema = z
  .object({
    usdToCreditRate: int('usdToCreditRate', 1, 1000),
    maxKeysPerGeneration: int('maxKeysPerGeneration', 1, 1000),
    maxActivationsPerKey: int('maxActivationsPerKey', 1, 100),
    enableDirectPurchases: z.boolean(),
    enableResellerPurchases: z.boolean(),
    defaultDailyDiscount: int('defaultDailyDiscount', 0, 90),
    maintenanceMode: z.boolean(),
    registrationEnabled: z.boolean(),
    apiRateLimit: int('apiRateLimit', 10, 10000),
    notifyLowBalance: z.boolean(),
    emailNotificationsEnabled: z.boolean(),
    lowBalanceThreshold: z
      .number({ error: 'lowBalanceThreshold must be a number' })
      .min(0, 'lowBalanceThreshold must be at least 0')
      .max(1_000_000, 'lowBalanceThreshold must be at most 1000000')
      .refine((v) => Number.isInteger(Math.round(v * 100)) && Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, {
        message: 'lowBalanceThreshold must have at most two decimals',
      }),
    keyExpiryGracePeriod: int('keyExpiryGracePeriod', 0, 365),
    autoCleanupExpiredKeys: z.boolean(),
    /**
     * A session with no call for this many days ends, whatever its lifetime. Not one of the original
     * client's fields: a document without it keeps the default.
     */
    sessionIdleDays: int('sessionIdleDays', 1, 90).default(7),
    /** A reseller may buy keys only for the customers who belong to them (else for any customer). Optional in a PUT. */
    resellersSellToOwnCustomersOnly: z.boolean({ error: 'resellersSellToOwnCustomersOnly must be true or false' }).default(false),
    // Optional in a PUT, so clients written before card top-ups keep working.
    payments: paymentSettingsSchema.default(DEFAULT_PAYMENT_SETTINGS),
    /** Whether customers may give a key to another account, and how often one key may change hands (0: no limit). */
    keyTransfers: keyTransferSettingsSchema.default(DEFAULT_KEY_TRANSFER_SETTINGS),
    /** With email notifications on: the days before a key expires on which its holder is reminded. Optional in a PUT. */
    expiryReminderDays: z
      .array(int('expiryReminderDays', 1, 365), { error: 'expiryReminderDays must be a list of days' })
      .max(5, 'expiryReminderDays holds at most 5 days')
      .default([14, 3, 1]),
    /** Auto-renewal from customers' credits: on for the shop or not, and how early (optional in a PUT). */
    renewals: renewalSettingsSchema.default(DEFAULT_RENEWAL_SETTINGS),
  })
  .strict()
  .meta({ id: 'Settings' });

export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  keyTransfers: DEFAULT_KEY_TRANSFER_SETTINGS,
  renewals: DEFAULT_RENEWAL_SETTINGS,
  usdToCreditRate: 10,
  maxKeysPerGeneration: 100,
  maxActivationsPerKey: 1,
  enableDirectPurchases: true,
  enableResellerPurchases: true,
  defaultDailyDiscount: 25,
  maintenanceMode: false,
  registrationEnabled: true,
  apiRateLimit: 100,
  notifyLowBalance: true,
  emailNotificationsEnabled: false,
  lowBalanceThreshold: 10,
  keyExpiryGracePeriod: 0,
  autoCleanupExpiredKeys: false,
  sessionIdleDays: 7,
  resellersSellToOwnCustomersOnly: false,
  payments: DEFAULT_PAYMENT_SETTINGS,
  expiryReminderDays: [14, 3, 1],
};

/** What any signed-in user's app needs to know (GET /api/settings/public). */
export const publicSettingsSchema = settingsSchema
  .pick({
    usdToCreditRate: true,
    registrationEnabled: true,
    maintenanceMode: true,
    notifyLowBalance: true,
    lowBalanceThreshold: true,
    keyExpiryGracePeriod: true,
    keyTransfers: true,
    renewals: true,
  })
  .meta({ id: 'PublicSettings' });
export type PublicSettings = Pick<
  Settings,
  | 'usdToCreditRate'
  | 'registrationEnabled'
  | 'maintenanceMode'
  | 'notifyLowBalance'
  | 'lowBalanceThreshold'
  | 'keyExpiryGracePeriod'
  | 'keyTransfers'
  | 'renewals'
>;

export function publicSettings(s: Settings): PublicSettings {
  return {
    usdToCreditRate: s.usdToCreditRate,
    registrationEnabled: s.registrationEnabled,
    maintenanceMode: s.maintenanceMode,
    notifyLowBalance: s.notifyLowBalance,
    lowBalanceThreshold: s.lowBalanceThreshold,
    // Screens show an expired key's grace end (the licensing API still accepts it until then).
    keyExpiryGracePeriod: s.keyExpiryGracePeriod,
    // My Keys offers Transfer only where the owner allows it.
    keyTransfers: s.keyTransfers,
    // My Keys offers auto-renewal only where the owner allows it.
    renewals: s.renewals,
  };
}

/** What the server's own configuration allows, for the owner's Settings (GET /api/settings/server). */
export const serverStatusSchema = z
  .object({
    mail: z.object({
      transport: z.enum(['api', 'local-outbox', 'none']).meta({
        description: 'api: a mail service; local-outbox: local development only; none: no reset or verification link can be sent.',
      }),
      message: z.string().nullable().meta({ description: 'Why links cannot be sent, and what to set (null when they can).' }),
    }),
  })
  .meta({ id: 'ServerStatus' });
export type ServerStatus = z.infer<typeof serverStatusSchema>;
