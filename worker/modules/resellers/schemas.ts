// A reseller's purchase for a customer (and the owner's direct purchase): its input, what its
// screen needs from the settings, and the price a reseller pays, which the server and every screen share.
import { z } from 'zod';
import { idSchema } from '../../platform/schemas/ids';
import { purchaseReceiptSchema } from '../keys/schemas/answers';
import { keyUserRefSchema } from '../../platform/schemas/common';

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

/** What the direct purchase screen needs from the settings (GET /api/admin/purchase-terms). */
export const purchaseTermsSchema = z
  .object({ defaultDailyDiscount: z.number(), enableDirectPurchases: z.boolean(), enableResellerPurchases: z.boolean() })
  .meta({ id: 'PurchaseTerms' });
export type PurchaseTerms = z.infer<typeof purchaseTermsSchema>;

export type ResellerQuote = { days: number; baseCost: number; durationCost: number; total: number; discountPercent: number };

/**
 * What a reseller pays: the base cost, plus the per-day part less the discount in the settings,
 * rounded up to a whole credit: `baseCreditCost + ceil(days x creditsPerDay x (100 - discount) / 100)`.
 * Integer arithmetic, so the server and every screen agree to the credit.
 */
export function resellerQuote(
  product: { baseCreditCost: number; creditsPerDay: number },
  days: number,
  discountPercent: number,
): ResellerQuote {
  const fullDays = days * product.creditsPerDay * (100 - discountPercent);
  const durationCost = Math.ceil(fullDays / 100);
  return { days, baseCost: product.baseCreditCost, durationCost, total: product.baseCreditCost + durationCost, discountPercent };
}

export const purchaseForUserResponseSchema = z
  .object({
    licenseKey: purchaseReceiptSchema.extend({ purchasedBy: keyUserRefSchema }),
    resellerCredits: z.number().meta({ description: "The caller's own credits after the purchase." }),
    remainingCredits: z.number().nullable().meta({ description: "What is left to whoever paid; null for the owner's free purchase." }),
    message: z.string(),
  })
  .meta({ id: 'PurchaseForUserResponse' });

export type PurchaseForUserResponse = z.infer<typeof purchaseForUserResponseSchema>;
