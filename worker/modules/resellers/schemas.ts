// Resellers: a reseller's purchase for a customer (and the owner's direct purchase) with what its
// screen needs and the price a reseller pays, which the server and every screen share; the owner's
// reseller tiers; a reseller's statistics and customers.
import { z } from 'zod';
import { idSchema } from '../../platform/schemas/ids';
import { purchaseReceiptSchema } from '../keys/schemas/answers';
import { isoDate, keyUserRefSchema, paged } from '../../platform/schemas/common';
import { decimalInput } from '../../platform/schemas/amounts';
import { emptyAsUndefined, pageQuery } from '../../platform/schemas/paging';
import { refuseUnsafeText } from '../../platform/schemas/text';

export const purchaseForUserParams = z.object({ userId: idSchema('User'), productId: idSchema('Product') });

export const purchaseForUserSchema = z.object({
  /** Owner only: the key is free and nobody is charged. Ignored for a reseller. */
  bypassBalance: z.boolean({ error: 'bypassBalance must be true or false' }).default(false),
  duration: z
    .number({ error: 'Duration must be a number of days' })
    .int('Duration must be a whole number of days')
    .min(1, 'Duration must be at least 1 day'),
  /** Sent by the original client for a reseller; a reseller always pays with their own credits. */
  useResellerCredits: z.boolean({ error: 'useResellerCredits must be true or false' }).default(false),
});
export type PurchaseForUserInput = z.input<typeof purchaseForUserSchema>;

/** A reseller's tier as the API shows it. `productIds` null: every product; `dailyKeyCap` null: no cap. */
export const resellerTierSchema = z
  .object({
    _id: z.string(),
    name: z.string(),
    discountPercent: z.number().meta({ description: 'Wholesale discount on the list price of a key bought for a customer.' }),
    commissionPercent: z.number().meta({ description: "Commission on a referred customer's own purchase, in credits (rounded down)." }),
    productIds: z.array(z.string()).nullable().meta({ description: 'The products the tier may sell; null: all of them.' }),
    dailyKeyCap: z.number().nullable().meta({ description: 'Keys a reseller may buy for customers per UTC day; null: no cap.' }),
    isDefault: z.boolean().meta({ description: 'The tier of every reseller the owner has put in no other.' }),
    resellers: z.number().meta({ description: 'Resellers in the tier (those in it by default included).' }),
    createdAt: isoDate,
    updatedAt: isoDate.nullable(),
  })
  .meta({ id: 'ResellerTier' });
export type ResellerTier = z.infer<typeof resellerTierSchema>;
export const resellerTiersResponseSchema = z.object({ tiers: z.array(resellerTierSchema) }).meta({ id: 'ResellerTiersResponse' });

export const TIER_NAME_MAX = 40;
const percent = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(0, `${name} must be at least 0`)
    .max(90, `${name} must be at most 90`);

/** The owner's tier form: the same rules in the API and the form. */
export const resellerTierInputSchema = z.object({
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(TIER_NAME_MAX, `Name must be at most ${TIER_NAME_MAX} characters`)
    .superRefine(refuseUnsafeText('Name')),
  discountPercent: percent('discountPercent'),
  commissionPercent: percent('commissionPercent'),
  productIds: z
    .array(idSchema('Product'), { error: 'productIds must be a list of product ids, or null for every product' })
    .min(1, 'Choose at least one product, or every product')
    .max(500, 'At most 500 products')
    .transform((ids) => [...new Set(ids)])
    .nullable()
    .default(null),
  dailyKeyCap: z
    .number({ error: 'dailyKeyCap must be a number' })
    .int('dailyKeyCap must be a whole number')
    .min(1, 'dailyKeyCap must be at least 1')
    .max(100_000, 'dailyKeyCap must be at most 100000')
    .nullable()
    .default(null),
  isDefault: z.boolean({ error: 'isDefault must be true or false' }).default(false),
});
export type ResellerTierInput = z.input<typeof resellerTierInputSchema>;
export type ResellerTierParsed = z.output<typeof resellerTierInputSchema>;

export const tierIdParam = z.object({ id: idSchema('Tier') });
export const resellerIdParam = z.object({ id: idSchema('Reseller') });
export const customerIdParam = z.object({ id: idSchema('User') });

/** Puts a reseller in a tier; null: the default tier. */
export const setResellerTierSchema = z.object({
  tierId: idSchema('Tier').nullable(),
});
/** Gives a customer to a reseller; null: to none. */
export const setCustomerResellerSchema = z.object({
  resellerId: idSchema('Reseller').nullable(),
});

/** What the direct purchase screen needs to show the price (GET /api/admin/purchase-terms). */
export const purchaseTermsSchema = z
  .object({
    defaultDailyDiscount: z.number(),
    enableDirectPurchases: z.boolean(),
    enableResellerPurchases: z.boolean(),
    resellersSellToOwnCustomersOnly: z.boolean().meta({ description: 'A reseller may buy only for customers who belong to them.' }),
    tier: resellerTierSchema
      .omit({ resellers: true, createdAt: true, updatedAt: true })
      .extend({ keysBoughtToday: z.number().meta({ description: 'Keys the caller bought for customers this UTC day.' }) })
      .nullable()
      .meta({ description: "The calling reseller's tier (null: none, the settings' daily discount applies; and for an owner)." }),
  })
  .meta({ id: 'PurchaseTerms' });
export type PurchaseTerms = z.infer<typeof purchaseTermsSchema>;

export type ResellerQuote = {
  days: number;
  baseCost: number;
  durationCost: number;
  total: number;
  discountPercent: number;
  /** Where the discount applies: the list price (a tier's), or the per-day part (the settings' default). */
  discountOn: 'list' | 'days';
  /** The list price, and the credits the discount takes off it. */
  listPrice: number;
  discount: number;
};

/**
 * What a reseller pays without a tier: the base cost, plus the per-day part less the discount in the
 * settings, rounded up to a whole credit: `baseCreditCost + ceil(days x creditsPerDay x (100 - discount) / 100)`.
 * Integer arithmetic, so the server and every screen agree to the credit.
 */
export function resellerQuote(
  product: { baseCreditCost: number; creditsPerDay: number },
  days: number,
  discountPercent: number,
): ResellerQuote {
  const fullDays = days * product.creditsPerDay * (100 - discountPercent);
  const durationCost = Math.ceil(fullDays / 100);
  const listPrice = product.baseCreditCost + days * product.creditsPerDay;
  const total = product.baseCreditCost + durationCost;
  return {
    days,
    baseCost: product.baseCreditCost,
    durationCost,
    total,
    discountPercent,
    discountOn: 'days',
    listPrice,
    discount: listPrice - total,
  };
}

/**
 * What a reseller in a tier pays: the list price less the tier's wholesale discount, the discount
 * rounded down to a whole credit: `list - floor(list x discount / 100)`.
 */
export function tierQuote(
  product: { baseCreditCost: number; creditsPerDay: number },
  days: number,
  discountPercent: number,
): ResellerQuote {
  const durationCost = days * product.creditsPerDay;
  const listPrice = product.baseCreditCost + durationCost;
  const discount = Math.floor((listPrice * discountPercent) / 100);
  return {
    days,
    baseCost: product.baseCreditCost,
    durationCost,
    total: listPrice - discount,
    discountPercent,
    discountOn: 'list',
    listPrice,
    discount,
  };
}

/** The reseller price under these terms: the tier's when the reseller is in one, else the settings' daily discount. */
export const priceForReseller = (
  product: { baseCreditCost: number; creditsPerDay: number },
  days: number,
  terms: { tier: { discountPercent: number } | null; defaultDailyDiscount: number },
): ResellerQuote =>
  terms.tier ? tierQuote(product, days, terms.tier.discountPercent) : resellerQuote(product, days, terms.defaultDailyDiscount);

/** Whether a tier sells a product (null: all of them). */
export const tierSells = (tier: { productIds: string[] | null }, productId: string) =>
  tier.productIds === null || tier.productIds.includes(productId);

// ---- the reseller's statistics ----------------------------------------------------------------

export const RESELLER_STATS_PERIODS = [7, 30, 90] as const;
export const DEFAULT_RESELLER_STATS_PERIOD = 30;
export const resellerStatsQuery = z.object({
  days: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    decimalInput(
      z
        .number({ error: 'days must be 7, 30 or 90' })
        .refine((d) => (RESELLER_STATS_PERIODS as readonly number[]).includes(d), 'days must be 7, 30 or 90')
        .default(DEFAULT_RESELLER_STATS_PERIOD),
    ),
  ),
});

const resellerDaySchema = z.object({
  date: z.string(),
  earned: z.number().meta({ description: 'Credits earned in commissions that UTC day.' }),
  spent: z.number().meta({ description: 'Credits spent on keys that UTC day.' }),
});
export type ResellerDay = z.infer<typeof resellerDaySchema>;
const resellerProductSchema = z.object({
  productId: z.string().nullable().meta({ description: 'Null for keys deleted since (their credits still count).' }),
  name: z.string(),
  keyTag: z.string().nullable(),
  earned: z.number(),
  spent: z.number(),
  keysForCustomers: z.number(),
  customerPurchases: z.number().meta({ description: "Referred customers' own purchases that paid a commission." }),
});
export type ResellerProduct = z.infer<typeof resellerProductSchema>;

export const resellerStatsSchema = z
  .object({
    reseller: z.object({
      _id: z.string(),
      username: z.string(),
      referralCode: z.string().nullable(),
      referralPath: z.string().nullable().meta({ description: 'The referral link, relative to the web app (`/register?ref=CODE`).' }),
      tier: z.object({ _id: z.string(), name: z.string(), discountPercent: z.number(), commissionPercent: z.number() }).nullable(),
      credits: z.number(),
    }),
    days: z.number(),
    from: z.string(),
    to: z.string(),
    daily: z.array(resellerDaySchema),
    byProduct: z.array(resellerProductSchema).meta({ description: 'The period, by product.' }),
    totals: z
      .object({ earned: z.number(), spent: z.number(), keysForCustomers: z.number(), customerPurchases: z.number() })
      .meta({ description: 'The period.' }),
    allTime: z.object({
      earned: z.number(),
      spent: z.number(),
      customers: z.number(),
      customerPurchases: z.number(),
      keysForCustomers: z.number(),
    }),
    keysForCustomersByStatus: z.object({ available: z.number(), used: z.number(), revoked: z.number(), expired: z.number() }),
  })
  .meta({ id: 'ResellerStats' });
export type ResellerStats = z.infer<typeof resellerStatsSchema>;

export const CUSTOMERS_PAGE_DEFAULT = 20;
export const resellerCustomersQuery = z.object({
  ...pageQuery(CUSTOMERS_PAGE_DEFAULT),
  search: z.preprocess(emptyAsUndefined, z.string().trim().max(100, 'search must be at most 100 characters').optional()),
});
export type ResellerCustomersQuery = z.output<typeof resellerCustomersQuery>;

export const resellerCustomerSchema = z
  .object({
    _id: z.string(),
    username: z.string(),
    email: z.string(),
    createdAt: isoDate,
    purchases: z.number().meta({ description: "Keys they bought with their own credits while they were this reseller's customer." }),
    creditsSpent: z.number(),
    commissionEarned: z.number().meta({ description: 'What their purchases earned the reseller.' }),
    keysFromReseller: z.number().meta({ description: 'Keys the reseller bought for them.' }),
    lastPurchaseAt: isoDate.nullable(),
    customerUntil: isoDate.nullable().meta({
      description:
        "When they stopped being this reseller's customer (moved to another reseller, or to none); null while they are. The figures count what they bought while they were this reseller's.",
    }),
  })
  .meta({ id: 'ResellerCustomer' });
export type ResellerCustomer = z.infer<typeof resellerCustomerSchema>;
export const resellerCustomersResponseSchema = z
  .object(paged('customers', resellerCustomerSchema))
  .meta({ id: 'ResellerCustomersResponse' });
export type ResellerCustomersResponse = z.infer<typeof resellerCustomersResponseSchema>;

export const RESELLERS_PAGE_DEFAULT = 20;
export const resellersQuery = z.object({ ...pageQuery(RESELLERS_PAGE_DEFAULT) });

/** A reseller's figures beside the others' (the owner's comparison), all time. */
export const resellerFiguresSchema = z
  .object({
    _id: z.string(),
    username: z.string(),
    email: z.string(),
    isActive: z.boolean(),
    referralCode: z.string().nullable(),
    tier: z.object({ _id: z.string(), name: z.string(), byDefault: z.boolean() }).nullable(),
    credits: z.number(),
    customers: z.number(),
    earned: z.number(),
    spent: z.number(),
    keysForCustomers: z.number(),
    customerPurchases: z.number(),
  })
  .meta({ id: 'ResellerFigures' });
export type ResellerFigures = z.infer<typeof resellerFiguresSchema>;
export const resellersResponseSchema = z.object(paged('resellers', resellerFiguresSchema)).meta({ id: 'ResellersResponse' });
export type ResellersResponse = z.infer<typeof resellersResponseSchema>;

export const purchaseForUserResponseSchema = z
  .object({
    licenseKey: purchaseReceiptSchema.extend({ purchasedBy: keyUserRefSchema }),
    resellerCredits: z.number().meta({ description: "The caller's own credits after the purchase." }),
    remainingCredits: z.number().nullable().meta({ description: "What is left to whoever paid; null for the owner's free purchase." }),
    message: z.string(),
  })
  .meta({ id: 'PurchaseForUserResponse' });

export type PurchaseForUserResponse = z.infer<typeof purchaseForUserResponseSchema>;
