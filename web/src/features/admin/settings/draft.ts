// The Settings form's copy of the settings: numbers as typed, so a half-typed value is not rewritten
// under the cursor; the card top-up and key transfer sections' fields named within them
// (payments.minTopUpUsd, keyTransfers.maxPerKey, renewals.autoRenewDaysBefore), as their errors are; and back to the document the API's schema reads.
import type { PaymentSettings, Settings } from '../../../../../worker/modules/settings/schemas';

export type NumberField = { [K in keyof Settings]: Settings[K] extends number ? K : never }[keyof Settings];
export type FlagField = { [K in keyof Settings]: Settings[K] extends boolean ? K : never }[keyof Settings];
export type PaymentField = 'minTopUpUsd' | 'maxTopUpUsd' | 'quickTopUpAmounts' | 'firstTopUpHoldHours';

export type Draft = Record<NumberField, string> &
  Record<FlagField, boolean> &
  Record<`payments.${PaymentField}`, string> & { 'payments.cardTopUpsEnabled': boolean } & {
    'keyTransfers.enabled': boolean;
    'keyTransfers.maxPerKey': string;
    'renewals.autoRenewEnabled': boolean;
    'renewals.autoRenewDaysBefore': string;
  };

// Every number and every flag of the settings, the compiler checks (a new setting must be added here).
const NUMBERS: Record<NumberField, true> = {
  usdToCreditRate: true,
  maxKeysPerGeneration: true,
  maxActivationsPerKey: true,
  defaultDailyDiscount: true,
  apiRateLimit: true,
  lowBalanceThreshold: true,
  keyExpiryGracePeriod: true,
  sessionIdleDays: true,
};
const FLAGS: Record<FlagField, true> = {
  enableDirectPurchases: true,
  enableResellerPurchases: true,
  maintenanceMode: true,
  registrationEnabled: true,
  notifyLowBalance: true,
  emailNotificationsEnabled: true,
  autoCleanupExpiredKeys: true,
  resellersSellToOwnCustomersOnly: true,
};
const NUMBER_FIELDS = Object.keys(NUMBERS) as NumberField[];
const FLAG_FIELDS = Object.keys(FLAGS) as FlagField[];

export function toDraft(s: Settings): Draft {
  const p: PaymentSettings = s.payments;
  return {
    ...(Object.fromEntries(NUMBER_FIELDS.map((field) => [field, String(s[field])])) as Record<NumberField, string>),
    ...(Object.fromEntries(FLAG_FIELDS.map((field) => [field, s[field]])) as Record<FlagField, boolean>),
    'payments.cardTopUpsEnabled': p.cardTopUpsEnabled,
    'payments.minTopUpUsd': String(p.minTopUpUsd),
    'payments.maxTopUpUsd': String(p.maxTopUpUsd),
    // The quick amounts as one comma-separated text.
    'payments.quickTopUpAmounts': p.quickTopUpAmounts.join(', '),
    'payments.firstTopUpHoldHours': String(p.firstTopUpHoldHours),
    'keyTransfers.enabled': s.keyTransfers.enabled,
    'keyTransfers.maxPerKey': String(s.keyTransfers.maxPerKey),
    'renewals.autoRenewEnabled': s.renewals.autoRenewEnabled,
    'renewals.autoRenewDaysBefore': String(s.renewals.autoRenewDaysBefore),
  };
}

const amount = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** The document to check with the API's schema: an emptied number is left out, for the schema to name. */
export function fromDraft(d: Draft): unknown {
  return {
    ...Object.fromEntries(NUMBER_FIELDS.map((field) => [field, amount(d[field])])),
    ...Object.fromEntries(FLAG_FIELDS.map((field) => [field, d[field]])),
    payments: {
      cardTopUpsEnabled: d['payments.cardTopUpsEnabled'],
      minTopUpUsd: amount(d['payments.minTopUpUsd']),
      maxTopUpUsd: amount(d['payments.maxTopUpUsd']),
      quickTopUpAmounts: d['payments.quickTopUpAmounts']
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean)
        .map(Number),
      firstTopUpHoldHours: amount(d['payments.firstTopUpHoldHours']),
    },
    keyTransfers: { enabled: d['keyTransfers.enabled'], maxPerKey: amount(d['keyTransfers.maxPerKey']) },
    renewals: { autoRenewEnabled: d['renewals.autoRenewEnabled'], autoRenewDaysBefore: amount(d['renewals.autoRenewDaysBefore']) },
  };
}
