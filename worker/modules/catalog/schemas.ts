// Products: the owner's product form, and the one price formula that the
// server charges and every screen shows.
import { z } from 'zod';
import { refuseUnsafeText, type TextOptions } from '../../platform/schemas/text';
import { EXPIRY_MODELS, LICENSE_MODELS, PRODUCT_TYPES } from '../../platform/vocabulary';
import { isoDate, nullableDate, productTypeSchema } from '../../platform/schemas/common';

export const KEY_TAG_PATTERN = /^[A-Z0-9]{2,10}$/;
/** Ten years: beyond that a "time-limited" key is not one, and expiry dates stay sane. */
export const MAX_DURATION_DAYS = 3650;
export const MAX_CREDIT_COST = 10_000_000;
export const MAX_PRODUCT_ACTIVATIONS = 100;
export const MAX_FEATURES = 50;
/** An offline token lives 1 hour to 30 days (default 24 hours): the longer, the longer a released device's slot stays held. */
export const MIN_OFFLINE_TOKEN_HOURS = 1;
export const MAX_OFFLINE_TOKEN_HOURS = 30 * 24;
export const DEFAULT_OFFLINE_TOKEN_HOURS = 24;
/** A floating seat's lease: 1 minute to 24 hours. */
export const MAX_LEASE_MINUTES = 24 * 60;
export const MAX_BORROW_HOURS = 30 * 24;
export const MAX_SWAP_LIMIT = 100;
export const MAX_SWAP_WINDOW_DAYS = 365;
export const MAX_TRIAL_DAYS = 365;
/** An entitlement's name: lowercase words joined by hyphens, like `pro` or `export-pdf`. */
export const ENTITLEMENT_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_ENTITLEMENT_LENGTH = 40;
export const MAX_ENTITLEMENTS = 50;
/** A key's uses: a product's allowance, a refill, a top-up or a debit is at most this many. */
export const MAX_USES = 1_000_000_000;
export const MAX_REFILL_DAYS = 365;

const wholeNumber = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const requiredText = (name: string, max: number, options: TextOptions = {}) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`)
    .max(max, `${name} must be at most ${max} characters`)
    .superRefine(refuseUnsafeText(name, options));

/** A list of features, or the form's comma-separated text: trimmed, empties dropped. */
const featuresSchema = z
  .union([z.array(z.string({ error: 'Each feature must be text' })), z.string()], { error: 'Features must be a list of text' })
  .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((f) => f.trim()).filter(Boolean))
  .pipe(
    z
      .array(z.string().max(200, 'Each feature must be at most 200 characters').superRefine(refuseUnsafeText('A feature')))
      .max(MAX_FEATURES, `A product may list at most ${MAX_FEATURES} features`),
  );

/** A list of entitlement names, or the form's comma-separated text: trimmed, empties and repeats dropped, in order. */
export const entitlementsSchema = z
  .union([z.array(z.string({ error: 'Each entitlement must be text' })), z.string()], { error: 'Entitlements must be a list of names' })
  .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((e) => e.trim()).filter(Boolean))
  .pipe(
    z
      .array(
        z
          .string()
          .max(MAX_ENTITLEMENT_LENGTH, `Each entitlement must be at most ${MAX_ENTITLEMENT_LENGTH} characters`)
          .regex(ENTITLEMENT_PATTERN, 'Each entitlement must be lowercase letters or digits, words joined by hyphens (like export-pdf)'),
      )
      .max(MAX_ENTITLEMENTS, `At most ${MAX_ENTITLEMENTS} entitlements`),
  )
  .transform((names) => [...new Set(names)].sort());

/**
 * The body of POST and PUT /api/products. Unknown fields (the original client sends `stats`, `_id`,
 * `createdAt`) are dropped: stats are counted by the server, never set by a client.
 */
export const productInputSchema = z
  .object({
    name: requiredText('Name', 100),
    // Typed in a multi-line box: line breaks are the one control character it keeps.
    description: requiredText('Description', 2000, { lineBreaks: true }),
    productType: z.enum(PRODUCT_TYPES, { error: `Product type must be one of ${PRODUCT_TYPES.join(', ')}` }).default('software'),
    keyTag: z
      .string({ error: 'Key tag is required' })
      .trim()
      .min(1, 'Key tag is required')
      .transform((v) => v.toUpperCase())
      .pipe(z.string().regex(KEY_TAG_PATTERN, 'Key tag must be 2 to 10 letters or digits')),
    baseCreditCost: wholeNumber('Base credit cost', 0, MAX_CREDIT_COST),
    creditsPerDay: wholeNumber('Credits per day', 0, MAX_CREDIT_COST).default(10),
    minDays: wholeNumber('Minimum days', 1, MAX_DURATION_DAYS).default(1),
    maxDays: wholeNumber('Maximum days', 1, MAX_DURATION_DAYS).default(365),
    maxActivations: wholeNumber('Maximum activations', 1, MAX_PRODUCT_ACTIVATIONS).default(1),
    offlineTokenHours: wholeNumber('Offline token lifetime (hours)', MIN_OFFLINE_TOKEN_HOURS, MAX_OFFLINE_TOKEN_HOURS).default(
      DEFAULT_OFFLINE_TOKEN_HOURS,
    ),
    isActive: z.boolean({ error: 'isActive must be true or false' }).default(true),
    features: featuresSchema.default([]),
    licenseModel: z.enum(LICENSE_MODELS, { error: `License model must be one of ${LICENSE_MODELS.join(', ')}` }).default('node-locked'),
    leaseMinutes: wholeNumber('Seat lease (minutes)', 1, MAX_LEASE_MINUTES).default(60),
    borrowMaxHours: wholeNumber('Borrow maximum (hours)', 0, MAX_BORROW_HOURS).default(0),
    swapLimit: wholeNumber('Device swaps', 0, MAX_SWAP_LIMIT).nullable().default(null),
    swapWindowDays: wholeNumber('Swap window (days)', 1, MAX_SWAP_WINDOW_DAYS).default(30),
    trialDays: wholeNumber('Trial days', 0, MAX_TRIAL_DAYS).default(0),
    entitlements: entitlementsSchema.default([]),
    usageAllowance: wholeNumber('Usage allowance', 0, MAX_USES).nullable().default(null),
    usageRefillAmount: wholeNumber('Refill amount', 1, MAX_USES).nullable().default(null),
    usageRefillDays: wholeNumber('Refill period (days)', 1, MAX_REFILL_DAYS).nullable().default(null),
    // A trial key's uses (issue 42): none unless the owner gives some, and never more than a key's.
    trialUsageAllowance: wholeNumber('Trial usage allowance', 0, MAX_USES).default(0),
    expiryModel: z.enum(EXPIRY_MODELS, { error: `Licence model must be one of ${EXPIRY_MODELS.join(', ')}` }).default('time-limited'),
  })
  .refine((p) => p.minDays <= p.maxDays, { message: 'Minimum days cannot be more than maximum days', path: ['maxDays'] })
  .refine((p) => (p.usageRefillAmount === null) === (p.usageRefillDays === null), {
    message: 'A refill needs both an amount and a period (days), or neither',
    path: ['usageRefillDays'],
  })
  .refine((p) => p.usageRefillAmount === null || p.usageAllowance !== null, {
    message: 'A refill needs a usage allowance',
    path: ['usageRefillAmount'],
  });

export type ProductInput = z.output<typeof productInputSchema>;

export type Priced = { baseCreditCost: number; creditsPerDay: number };

export type Quote = { days: number; baseCost: number; durationCost: number; total: number };

/** Price = baseCreditCost + days x creditsPerDay, in whole credits. */
export function quote(product: Priced, days: number): Quote {
  const durationCost = days * product.creditsPerDay;
  return { days, baseCost: product.baseCreditCost, durationCost, total: product.baseCreditCost + durationCost };
}

export const isOfferedDuration = (product: { minDays: number; maxDays: number }, days: number) =>
  Number.isInteger(days) && days >= product.minDays && days <= product.maxDays;

/** The cheapest key of a product: what a customer needs at least to buy one. */
export const cheapestPrice = (product: Priced & { minDays: number }) => quote(product, product.minDays).total;

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
    licenseModel: z.enum(LICENSE_MODELS).meta({
      description:
        'node-locked: a key holds up to maxActivations devices until removed; floating: maxActivations seats, each held by a lease its heartbeat renews.',
    }),
    leaseMinutes: z.number().meta({ description: "A floating seat's lease, 1 to 1440 minutes." }),
    borrowMaxHours: z.number().meta({ description: 'How long a floating seat may be borrowed for offline use (0: never).' }),
    swapLimit: z.number().nullable().meta({ description: 'Device removals and swaps a key may make per swap window (null: no budget).' }),
    swapWindowDays: z.number(),
    trialDays: z.number().meta({ description: 'A trial of this many days per device (0: no trial).' }),
    entitlements: z.array(z.string()).meta({ description: 'The named entitlements every key of the product has.' }),
    usageAllowance: z.number().nullable().meta({ description: 'The uses each key starts with (null: not metered).' }),
    usageRefillAmount: z
      .number()
      .nullable()
      .meta({ description: "Every usageRefillDays, a key's remaining uses are raised to this many (null: no refill)." }),
    usageRefillDays: z.number().nullable(),
    trialUsageAllowance: z.number().meta({
      description: "The uses a trial key of a metered product carries (at most usageAllowance; 0: none). A trial key's uses never refill.",
    }),
    expiryModel: z.enum(EXPIRY_MODELS).meta({
      description:
        "How the product's keys end (its licence model): time-limited keys expire after their days; perpetual keys never expire (the days only price them); perpetual-fallback keys expire, but releases dated before the expiry keep validating (code UPDATES_ENDED). Each key keeps the model it was made with.",
    }),
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
