// The owner's and the reseller's key management: the admin key list,
// revocation, deletion, generation and the purchase for a customer. One schema per call, shared by
// the API and the admin screens, so both give the same messages.
import { z } from 'zod';
import { keyStatusFilter } from './keys';
import { emptyAsUndefined, pageQuery } from '../../../platform/schemas/paging';
import { refuseUnsafeText } from '../../../platform/schemas/text';
import { idSchema } from '../../../platform/schemas/ids';

export const ADMIN_KEYS_PAGE_SIZE = 15;
export const REVOKE_REASON_REQUIRED = 'Please provide a reason for revoking this key';
export const DELETE_REASON_REQUIRED = 'Please provide a reason for deleting these keys';
export const NO_KEYS_SELECTED = 'Please select at least one key to delete';
export const MAX_REASON_LENGTH = 500;
/** Far above a page of keys (100), far below the 64 KB body limit. */
export const MAX_BULK_DELETE = 500;

export const adminKeysQuery = z.object({
  ...pageQuery(ADMIN_KEYS_PAGE_SIZE),
  search: z.preprocess(emptyAsUndefined, z.string().trim().max(100, 'search must be at most 100 characters').optional()),
  status: keyStatusFilter,
  /** A product id. */
  product: z.preprocess(emptyAsUndefined, z.string().trim().max(64, 'product is not valid').optional()),
});
export type AdminKeysQuery = z.output<typeof adminKeysQuery>;

const reason = (required: string) =>
  z
    .string({ error: required })
    .trim()
    .min(1, required)
    .max(MAX_REASON_LENGTH, `The reason must be at most ${MAX_REASON_LENGTH} characters`)
    // Typed in a multi-line box: line breaks are the one control character it keeps.
    .superRefine(refuseUnsafeText('The reason', { lineBreaks: true }));

export const revokeKeySchema = z.object({ reason: reason(REVOKE_REASON_REQUIRED) });
export type RevokeKeyInput = z.input<typeof revokeKeySchema>;

export const bulkDeleteSchema = z.object({
  keyIds: z
    .array(idSchema('Key id'), { error: NO_KEYS_SELECTED })
    .min(1, NO_KEYS_SELECTED)
    .max(MAX_BULK_DELETE, `At most ${MAX_BULK_DELETE} keys can be deleted at once`)
    .transform((ids) => [...new Set(ids)]),
  reason: reason(DELETE_REASON_REQUIRED),
});
export type BulkDeleteInput = z.input<typeof bulkDeleteSchema>;

export const keyIdParam = z.object({ id: idSchema('Key id') });
export const activationParams = z.object({ id: idSchema('Key id'), activationId: idSchema('Activation id') });
export const heldSlotParams = z.object({ id: idSchema('Key id'), slotId: idSchema('Held slot id') });

/** The owner's generation limit lives in the settings; this is the spec's message beyond it. */
export const generationLimitMessage = (limit: number) => `Maximum ${limit} keys per generation allowed. Please adjust the quantity.`;

export const generateKeysSchema = z.object({
  productId: idSchema('Product'),
  quantity: z.number({ error: 'Quantity must be a number' }).int('Quantity must be a whole number').min(1, 'Quantity must be at least 1'),
  /** Days each key runs once activated; the product's minDays when absent. */
  duration: z
    .number({ error: 'Duration must be a number of days' })
    .int('Duration must be a whole number of days')
    .min(1, 'Duration must be at least 1 day')
    .optional(),
});
export type GenerateKeysInput = z.input<typeof generateKeysSchema>;

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
