// License key requests: a purchase, and the customer's own key list.
import { z } from 'zod';
import { emptyAsUndefined, pageQuery } from '../../../platform/schemas/paging';
import { idSchema } from '../../../platform/schemas/ids';
import { KEY_STATUSES } from '../../../platform/vocabulary';

export const DEFAULT_PAGE_SIZE = 10;

export const purchaseSchema = z.object({
  productId: idSchema('Product'),
  duration: z
    .number({ error: 'Duration must be a number of days' })
    .int('Duration must be a whole number of days')
    .min(1, 'Duration must be at least 1 day'),
});

export type PurchaseInput = z.input<typeof purchaseSchema>;

export const keyStatusFilter = z.preprocess(
  (v) => (v === 'all' ? undefined : emptyAsUndefined(v)),
  z.enum(KEY_STATUSES, { error: `status must be one of ${KEY_STATUSES.join(', ')}` }).optional(),
);

export const myKeysQuerySchema = z.object({
  ...pageQuery(DEFAULT_PAGE_SIZE),
  search: z.preprocess(emptyAsUndefined, z.string().trim().max(100, 'search must be at most 100 characters').optional()),
  status: keyStatusFilter,
});

export type MyKeysQuery = z.output<typeof myKeysQuerySchema>;
