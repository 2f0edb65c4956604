// What an import takes and answers (issue 34), the rows every record becomes, the field rules the
// mappings share, and how a line of KeyPanel's JSON lines export is checked. Each system's own
// records (KeyPanel's key rows, Keygen's, Lemon Squeezy's, Gumroad's, Polar's) are mapped in
// vendors/ (issue 45). A client reads the file into records with their line numbers (import-file.ts)
// and sends them a chunk at a time; the server maps and checks every record of a chunk before it
// writes any of it.
import { z } from 'zod';
import { stepUpFields } from '../../accounts/schemas/security';
import {
  EXPIRY_MODELS,
  GENERATION_METHODS,
  KEY_STATUSES,
  LICENSE_MODELS,
  PRODUCT_TYPES,
  ROLES,
  type ExpiryModel,
} from '../../../platform/vocabulary';
import { emailSchema } from '../../accounts/schemas/auth';
import { decimalInput } from '../../../platform/schemas/amounts';
import {
  entitlementsSchema,
  KEY_TAG_PATTERN,
  MAX_BORROW_HOURS,
  MAX_CREDIT_COST,
  MAX_DURATION_DAYS,
  MAX_FEATURES,
  MAX_LEASE_MINUTES,
  MAX_OFFLINE_TOKEN_HOURS,
  MAX_PRODUCT_ACTIVATIONS,
  MAX_REFILL_DAYS,
  MAX_SWAP_LIMIT,
  MAX_SWAP_WINDOW_DAYS,
  MAX_TRIAL_DAYS,
  MAX_USES,
} from '../../catalog/schemas';
import { MAX_BALANCE_USD, MAX_CREDITS } from '../../accounts/schemas/admin-users';
import { deviceFingerprintField, deviceInfoSchema, LICENSE_KEY_MAX_LENGTH } from '../../licensing/schemas';

export const IMPORT_FORMATS = ['keypanel', 'keygen', 'lemonsqueezy', 'gumroad', 'polar'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The most records one request carries (a client also keeps each request under the body limit). */
export const IMPORT_CHUNK_ROWS = 500;
/** A client's budget for one request's JSON body, under the API's 64 KB limit. */
export const IMPORT_CHUNK_BYTES = 40 * 1024;
/** The most days and devices an import may give a key when its file does not. */
export const IMPORT_MAX_DAYS = 36500;
export const IMPORT_MAX_DEVICES = 1000;

export const keyTagParam = z.string().trim().toUpperCase().regex(KEY_TAG_PATTERN, 'product must be a key tag (2 to 10 letters or digits)');

export const importRequestSchema = z
  .object({
    format: z.enum(IMPORT_FORMATS, { error: `format must be one of ${IMPORT_FORMATS.join(', ')}` }),
    /** Check and count only: nothing is written. */
    dryRun: z.boolean().default(false),
    /** The product (key tag) of rows that do not name one (Keygen's, Lemon Squeezy's and Gumroad's never do). */
    product: keyTagParam.optional(),
    /** A key's days when its row has no expiry (default: its product's shortest duration). */
    days: z.int().min(1).max(IMPORT_MAX_DAYS).optional(),
    /** A key's device limit when its row has none (default: its product's). */
    devices: z.int().min(1).max(IMPORT_MAX_DEVICES).optional(),
    /**
     * A dry run of a later chunk of a file: what the file's earlier chunks create that this chunk
     * refers to (products by key tag, keys by value, accounts by email), which a real run will have
     * written by then. Ignored by a real run.
     */
    inFile: z
      .object({
        products: z.array(z.string().max(20)).max(IMPORT_CHUNK_ROWS).default([]),
        keys: z
          .array(
            z
              .string()
              .max(LICENSE_KEY_MAX_LENGTH)
              .transform((v) => v.toUpperCase()),
          )
          .max(IMPORT_CHUNK_ROWS)
          .default([]),
        emails: z
          .array(z.string().max(254))
          .max(IMPORT_CHUNK_ROWS * 4)
          .default([]),
        /**
         * The keys of earlier chunks this chunk's devices go on: the device limit their rows give
         * (null: the request's or the product's) and the devices earlier chunks put on them.
         */
        slots: z
          .array(z.object({ key: z.string().max(1000), max: z.int().min(1).max(IMPORT_MAX_DEVICES).nullable(), taken: z.int().min(0) }))
          .max(IMPORT_CHUNK_ROWS)
          .default([]),
        /** What earlier chunks' ledger rows moved, per account this chunk's ledger rows name. */
        balances: z
          .array(z.object({ email: z.string().max(254), credits: z.int(), cents: z.int() }))
          .max(IMPORT_CHUNK_ROWS)
          .default([]),
      })
      .optional(),
    /** Mail each account the import creates how to sign in (it has no password). */
    notify: z.boolean().default(true),
    /**
     * The owner's proof (in a signed-in session), needed to import resellers or addresses as
     * verified; without it such accounts are made as unverified customers, and their outcomes say so.
     */
    ...stepUpFields,
    rows: z
      .array(z.object({ line: z.int().min(1), record: z.record(z.string(), z.unknown()) }))
      .min(1, 'rows must hold at least one record')
      .max(IMPORT_CHUNK_ROWS, `At most ${IMPORT_CHUNK_ROWS} records per request: send the file in chunks`),
  })
  .meta({ id: 'ImportRequest' });
export type ImportRequest = z.infer<typeof importRequestSchema>;

export const IMPORT_ACTIONS = ['create', 'match', 'skip'] as const;
export type ImportAction = (typeof IMPORT_ACTIONS)[number];
export const IMPORT_ROW_TYPES = ['key', 'user', 'product', 'device', 'ledger', 'other'] as const;
export type ImportRowType = (typeof IMPORT_ROW_TYPES)[number];

const countsSchema = z.object({ create: z.int(), match: z.int(), skip: z.int() });
export type ImportCounts = z.infer<typeof countsSchema>;

/** One record's outcome: its line, what it is (`subject`: the key, email, key tag, device or ledger id), what was done and why. */
export const outcomeSchema = z
  .object({
    line: z.int(),
    type: z.enum(IMPORT_ROW_TYPES),
    action: z.enum(IMPORT_ACTIONS),
    reason: z.string(),
    subject: z.string().optional(),
    /** A key's devices that come with it (its own fingerprints); for a device, the key it goes on. */
    devices: z.int().optional(),
    onKey: z.string().optional(),
    /** A key that never expires. */
    perpetual: z.boolean().optional(),
    /** The account this record makes (mailed how to sign in when the import mails). */
    newAccount: z.string().optional(),
  })
  .meta({ id: 'ImportOutcome' });
export type ImportOutcome = z.infer<typeof outcomeSchema>;
const storySchema = z.object({ devices: z.int(), perpetual: z.int(), accounts: z.int() });
export type ImportStory = z.infer<typeof storySchema>;

export const importResultSchema = z
  .object({
    dryRun: z.boolean(),
    /** Every record of the request, by what the import did (or would do) with it. */
    counts: countsSchema,
    /** Per type of row. */
    byType: z.partialRecord(z.enum(IMPORT_ROW_TYPES), countsSchema),
    /** Accounts created for customers (0 in a dry run). */
    accountsCreated: z.int(),
    /** Whether those accounts were (in a dry run: would be) mailed how to sign in. */
    signInMail: z.enum(['sent', 'off', 'not-configured']),
    /** What comes with the records: devices put on keys, keys that never expire, accounts made (or, in a dry run, to be made). */
    story: storySchema,
    /** Every record of the request, in file order: what the import did (or would do) with it, and why. */
    outcomes: z.array(outcomeSchema),
  })
  .meta({ id: 'ImportResult' });
export type ImportResult = z.infer<typeof importResultSchema>;

/** A 400's details when records are not valid: each with its line, nothing written. */
export type ImportProblem = { line: number; message: string };

// ---------------------------------------------------------------------------------------------
// Records, as each system writes them, mapped to KeyPanel's rows.

/** A key as the import writes it, whatever system it came from. */
export type KeyRow = {
  type: 'key';
  key: string;
  /** Key tag; absent: the request's product. */
  product?: string;
  email: string | null;
  status: (typeof KEY_STATUSES)[number];
  expiresAt: number | null;
  /** How the key ends; absent: its product's model (a perpetual product's key with an expiry: time-limited). */
  expiryModel?: ExpiryModel;
  days?: number;
  devices?: number;
  fingerprints: string[];
  /** Set: the row is skipped, for this reason. */
  skip?: string;
  /** What a KeyPanel export adds: the key as it was. */
  exported?: {
    id: string;
    ownerId: string | null;
    createdByEmail: string | null;
    createdById: string | null;
    paidByEmail: string | null;
    paidById: string | null;
    generationMethod: (typeof GENERATION_METHODS)[number];
    productName: string;
    productType: (typeof PRODUCT_TYPES)[number];
    purchasedAt: number | null;
    purchasePrice: number;
    revokeReason: string | null;
    revokedAt: number | null;
    firstUsedAt: number | null;
    transferCount: number;
    isTrial: boolean;
    /** Granted beyond the product's. */
    entitlements: string[];
    usageRemaining: number | null;
    usagePeriodStart: number | null;
    createdAt: number;
  };
};
export type UserRow = {
  type: 'user';
  id: string;
  email: string;
  username: string;
  role: (typeof ROLES)[number];
  isActive: boolean;
  emailVerifiedAt: number | null;
  resellerId: string | null;
  createdAt: number;
};
export type ProductRow = {
  type: 'product';
  id: string;
  name: string;
  description: string;
  productType: (typeof PRODUCT_TYPES)[number];
  keyTag: string;
  baseCreditCost: number;
  creditsPerDay: number;
  minDays: number;
  maxDays: number;
  maxActivations: number;
  isActive: boolean;
  features: string[];
  offlineTokenHours: number;
  licenseModel: (typeof LICENSE_MODELS)[number];
  leaseMinutes: number;
  borrowMaxHours: number;
  swapLimit: number | null;
  swapWindowDays: number;
  trialDays: number;
  entitlements: string[];
  usageAllowance: number | null;
  usageRefillAmount: number | null;
  usageRefillDays: number | null;
  expiryModel: ExpiryModel;
  createdAt: number;
};
export type DeviceRow = {
  type: 'device';
  id: string;
  key: string | null;
  keyId: string;
  fingerprint: string;
  deviceInfo: string | null;
  activatedAt: number;
  lastUsed: number | null;
  leaseExpiresAt: number | null;
  borrowedUntil: number | null;
};
export type LedgerRow = {
  type: 'ledger';
  id: string;
  userId: string;
  email: string | null;
  actorId: string | null;
  actorEmail: string | null;
  kind: string;
  creditsDelta: number;
  usdCentsDelta: number;
  reference: string | null;
  note: string | null;
  createdAt: number;
};
/** A record the import reads past (the export's first line, its payments and audit log). */
export type OtherRow = { type: 'other'; skip: string };
export type ImportRow = KeyRow | UserRow | ProductRow | DeviceRow | LedgerRow | OtherRow;

export const text = (max: number) => z.string().trim().max(max);
export const keyValue = z
  .string({ error: 'key is required' })
  .trim()
  .min(4, 'key must be at least 4 characters')
  // As long as the licensing API takes (a vendor's signed key as it issued it).
  .max(LICENSE_KEY_MAX_LENGTH, `key must be at most ${LICENSE_KEY_MAX_LENGTH} characters`)
  .regex(/^[\x21-\x7e]+$/, 'key must be printable characters without spaces')
  // In capitals, as the licensing API reads every key it is sent (a vendor's lower-case key still validates).
  .transform((v) => v.toUpperCase());
/** Empty cells (CSV), null and undefined are all "not given". */
export const blank = (v: unknown) => (v === '' || v === null || v === undefined ? undefined : v);
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema.optional());
export const email = optional(emailSchema);
/**
 * The times an import stores: from 1970 to the end of 9999, in whole milliseconds, so every screen
 * and every answer can write them as ISO 8601 (a `createdAt` of 1e300 once broke the Users tab).
 */
export const IMPORT_EARLIEST = 0;
export const IMPORT_LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** A time as milliseconds: an ISO 8601 text, or a number of milliseconds. */
export const instant = (name: string, error?: string) =>
  z.union([z.string(), z.number()], error ? { error } : undefined).transform((v, ctx) => {
    const ms = typeof v === 'number' ? v : /^\d{4}-\d{2}-\d{2}/.test(v.trim()) ? Date.parse(v.trim()) : NaN;
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a date (ISO 8601)` });
      return z.NEVER;
    }
    if (!Number.isInteger(ms) || ms < IMPORT_EARLIEST || ms > IMPORT_LATEST) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a date from 1970 to 9999, in whole milliseconds` });
      return z.NEVER;
    }
    return ms;
  });
export const when = (name: string) => optional(instant(name));
/** A whole number: a JSON number, or a CSV cell of plain digits (the API's rule for amounts: no `0x10`, `1e3` or ` 5`). */
export const whole = (name: string, min: number, max: number) =>
  optional(
    decimalInput(
      z
        .number({ error: `${name} must be a whole number` })
        .int(`${name} must be a whole number`)
        .min(min, `${name} must be at least ${min}`)
        .max(max, `${name} must be at most ${max}`),
    ),
  );
export const flag = (name: string) =>
  optional(
    z
      .union([z.boolean(), z.enum(['true', 'false', 'TRUE', 'FALSE', '1', '0'], { error: `${name} must be true or false` })])
      .transform((v) => (typeof v === 'boolean' ? v : v === 'true' || v === 'TRUE' || v === '1')),
  ).transform((v) => v ?? false);
/** Device fingerprints: a JSON list, or a CSV cell of them separated by ";". */
export const fingerprints = optional(
  z.union([
    z.array(z.string()),
    z.string().transform((v) =>
      v
        .split(';')
        .map((f) => f.trim())
        .filter(Boolean),
    ),
  ]),
)
  .transform((v) => v ?? [])
  // Each as the licensing API takes it, so the device validates as it is.
  .pipe(z.array(deviceFingerprintField).max(IMPORT_MAX_DEVICES, `at most ${IMPORT_MAX_DEVICES} devices`));

// A line of KeyPanel's JSON lines export ({"table", "row"}), with the references the file reader
// resolved (an account's email, a key's value) beside the row's ids.
const id = z.string().trim().min(1, 'id is required').max(100);
const ms = (name: string) => when(name).transform((v) => v ?? null);
const required = (name: string) => z.preprocess(blank, instant(name, `${name} is required`));
const nullableText = (max: number) => optional(text(max)).transform((v) => v ?? null);

/** A whole number within the bounds the API keeps for the same value. */
const bounded = (name: string, min: number, max: number) =>
  z
    .int({ error: `${name} must be a whole number` })
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);
/** The most a key may have been transferred, and the most a ledger row moves of USD (in cents). */
const MAX_TRANSFERS = 10_000;
const MAX_LEDGER_CENTS = MAX_BALANCE_USD * 100;

const exportedUser = z.object({
  id,
  email: emailSchema,
  username: text(30).min(1),
  role: z.enum(ROLES),
  isActive: flag('isActive'),
  emailVerifiedAt: ms('emailVerifiedAt'),
  resellerId: nullableText(100),
  createdAt: required('createdAt'),
});
// A product as the product form bounds it (catalog/schemas.ts), minDays at most maxDays.
const exportedProduct = z
  .object({
    id,
    name: text(100).min(1),
    description: optional(text(2000)).transform((v) => v ?? ''),
    productType: z.enum(PRODUCT_TYPES),
    keyTag: keyTagParam,
    baseCreditCost: bounded('baseCreditCost', 0, MAX_CREDIT_COST),
    creditsPerDay: bounded('creditsPerDay', 0, MAX_CREDIT_COST),
    minDays: bounded('minDays', 1, MAX_DURATION_DAYS),
    maxDays: bounded('maxDays', 1, MAX_DURATION_DAYS),
    maxActivations: bounded('maxActivations', 1, MAX_PRODUCT_ACTIVATIONS),
    isActive: z.boolean(),
    features: z.array(text(200)).max(MAX_FEATURES, `features: at most ${MAX_FEATURES}`).default([]),
    offlineTokenHours: bounded('offlineTokenHours', 1, MAX_OFFLINE_TOKEN_HOURS).default(24),
    licenseModel: z.enum(LICENSE_MODELS).default('node-locked'),
    leaseMinutes: bounded('leaseMinutes', 1, MAX_LEASE_MINUTES).default(60),
    borrowMaxHours: bounded('borrowMaxHours', 0, MAX_BORROW_HOURS).default(0),
    swapLimit: bounded('swapLimit', 0, MAX_SWAP_LIMIT).nullable().default(null),
    swapWindowDays: bounded('swapWindowDays', 1, MAX_SWAP_WINDOW_DAYS).default(30),
    trialDays: bounded('trialDays', 0, MAX_TRIAL_DAYS).default(0),
    entitlements: entitlementsSchema.default([]),
    usageAllowance: bounded('usageAllowance', 0, MAX_USES).nullable().default(null),
    usageRefillAmount: bounded('usageRefillAmount', 1, MAX_USES).nullable().default(null),
    usageRefillDays: bounded('usageRefillDays', 1, MAX_REFILL_DAYS).nullable().default(null),
    expiryModel: z.enum(EXPIRY_MODELS).default('time-limited'),
    createdAt: required('createdAt'),
  })
  .refine((p) => p.minDays <= p.maxDays, { error: 'minDays must be at most maxDays', path: ['minDays'] })
  .refine((p) => (p.usageRefillAmount === null) === (p.usageRefillDays === null), {
    error: 'usageRefillAmount and usageRefillDays are given together or not at all',
  });
const exportedKey = z.object({
  id,
  key: keyValue,
  status: z.enum(KEY_STATUSES),
  productName: text(200).min(1),
  productKeyTag: keyTagParam,
  productType: z.enum(PRODUCT_TYPES),
  duration: bounded('duration', 1, IMPORT_MAX_DAYS),
  maxActivations: bounded('maxActivations', 1, IMPORT_MAX_DEVICES),
  purchasedAt: ms('purchasedAt'),
  purchasedBy: nullableText(100),
  purchasedByEmail: email,
  createdBy: nullableText(100),
  createdByEmail: email,
  purchasePrice: bounded('purchasePrice', 0, MAX_CREDITS).default(0),
  paidBy: nullableText(100),
  paidByEmail: email,
  revokeReason: nullableText(500),
  revokedAt: ms('revokedAt'),
  firstUsedAt: ms('firstUsedAt'),
  expiresAt: ms('expiresAt'),
  generationMethod: z.enum(GENERATION_METHODS).default('automatic'),
  transferCount: bounded('transferCount', 0, MAX_TRANSFERS).default(0),
  isTrial: z.boolean().default(false),
  entitlements: entitlementsSchema.default([]),
  usageRemaining: bounded('usageRemaining', 0, MAX_USES).nullable().default(null),
  usagePeriodStart: ms('usagePeriodStart'),
  expiryModel: z.enum(EXPIRY_MODELS).default('time-limited'),
  createdAt: required('createdAt'),
});
// A device as the licensing API takes it: a fingerprint the licensed software can send, its own details.
const exportedDevice = z.object({
  id,
  keyId: id,
  key: optional(keyValue).transform((v) => v ?? null),
  deviceFingerprint: deviceFingerprintField,
  deviceInfo: deviceInfoSchema.nullable().default(null),
  activatedAt: required('activatedAt'),
  lastUsed: ms('lastUsed'),
  leaseExpiresAt: ms('leaseExpiresAt'),
  borrowedUntil: ms('borrowedUntil'),
});
// A ledger row moves at most what an owner's adjustment may (accounts/schemas/admin-users.ts).
const exportedLedger = z.object({
  id,
  userId: id,
  email,
  actorId: nullableText(100),
  actorEmail: email,
  kind: text(40).min(1),
  creditsDelta: bounded('creditsDelta', -MAX_CREDITS, MAX_CREDITS),
  usdCentsDelta: bounded('usdCentsDelta', -MAX_LEDGER_CENTS, MAX_LEDGER_CENTS),
  reference: nullableText(500),
  note: nullableText(2000),
  createdAt: required('createdAt'),
});

export type Mapped = { ok: true; row: ImportRow } | { ok: false; message: string };
export const failed = (error: z.ZodError): Mapped => ({ ok: false, message: recordProblem(error) });

/** A line of the export: its table's row, checked by that table's schema. */
export function exportLine(table: unknown, row: unknown): Mapped {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return { ok: false, message: 'row must be an object' };
  const parse = <T>(schema: z.ZodType<T>) => schema.safeParse(row);
  switch (table) {
    case 'users': {
      const r = parse(exportedUser);
      return r.success ? { ok: true, row: { type: 'user', ...r.data } } : failed(r.error);
    }
    case 'products': {
      const r = parse(exportedProduct);
      return r.success ? { ok: true, row: { type: 'product', ...r.data } } : failed(r.error);
    }
    case 'keys': {
      const r = parse(exportedKey);
      if (!r.success) return failed(r.error);
      const k = r.data;
      return {
        ok: true,
        row: {
          type: 'key',
          key: k.key,
          product: k.productKeyTag,
          email: k.purchasedByEmail ?? null,
          status: k.status,
          expiresAt: k.expiresAt,
          expiryModel: k.expiryModel,
          days: k.duration,
          devices: k.maxActivations,
          fingerprints: [],
          exported: {
            id: k.id,
            ownerId: k.purchasedBy,
            createdByEmail: k.createdByEmail ?? null,
            createdById: k.createdBy,
            paidByEmail: k.paidByEmail ?? null,
            paidById: k.paidBy,
            generationMethod: k.generationMethod,
            productName: k.productName,
            productType: k.productType,
            purchasedAt: k.purchasedAt,
            purchasePrice: k.purchasePrice,
            revokeReason: k.revokeReason,
            revokedAt: k.revokedAt,
            firstUsedAt: k.firstUsedAt,
            transferCount: k.transferCount,
            isTrial: k.isTrial,
            entitlements: k.entitlements,
            usageRemaining: k.usageRemaining,
            usagePeriodStart: k.usagePeriodStart,
            createdAt: k.createdAt,
          },
        },
      };
    }
    case 'devices': {
      const r = parse(exportedDevice);
      if (!r.success) return failed(r.error);
      const d = r.data;
      return {
        ok: true,
        row: {
          type: 'device',
          id: d.id,
          key: d.key,
          keyId: d.keyId,
          fingerprint: d.deviceFingerprint,
          deviceInfo: d.deviceInfo ? JSON.stringify(d.deviceInfo) : null,
          activatedAt: d.activatedAt,
          lastUsed: d.lastUsed,
          leaseExpiresAt: d.leaseExpiresAt,
          borrowedUntil: d.borrowedUntil,
        },
      };
    }
    case 'ledger': {
      const r = parse(exportedLedger);
      return r.success
        ? { ok: true, row: { type: 'ledger', ...r.data, email: r.data.email ?? null, actorEmail: r.data.actorEmail ?? null } }
        : failed(r.error);
    }
    case 'export':
      return { ok: true, row: { type: 'other', skip: "the export's first line" } };
    case 'payments':
    case 'audit':
      return { ok: true, row: { type: 'other', skip: `${table} are not imported (the ledger carries the balances)` } };
    default:
      return { ok: false, message: `table: unknown table "${String(table)}"` };
  }
}

/** A record's first problem, as one line: `field: message`. */
export function recordProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue.path.filter((p) => p !== 'row').join('.');
  return field && !issue.message.startsWith(field) ? `${field}: ${issue.message}` : issue.message;
}
