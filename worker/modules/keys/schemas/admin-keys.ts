// The owner's and the reseller's key management: the admin key list,
// revocation, deletion, generation and the purchase for a customer. One schema per call, shared by
// the API and the admin screens, so both give the same messages.
import { z } from 'zod';
import { keyStatusFilter } from './keys';
import { emptyAsUndefined, pageQuery } from '../../../platform/schemas/paging';
import { refuseUnsafeText } from '../../../platform/schemas/text';
import { idSchema } from '../../../platform/schemas/ids';
import { entitlementsSchema, MAX_USES } from '../../catalog/schemas';

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

export const reason = (required: string) =>
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

/** PUT /api/admin/keys/{id}/entitlements: the entitlements granted to the key beyond its product's. */
export const keyEntitlementsSchema = z.object({ entitlements: entitlementsSchema });
/** POST /api/admin/keys/{id}/usage/top-up: uses to add. */
export const topUpSchema = z.object({
  amount: z
    .number({ error: 'amount must be a number' })
    .int('amount must be a whole number')
    .min(1, 'amount must be at least 1')
    .max(MAX_USES, `amount must be at most ${MAX_USES}`),
});
export const KEY_USAGE_PAGE_SIZE = 20;
export const keyUsageQuery = z.object({ ...pageQuery(KEY_USAGE_PAGE_SIZE) });
