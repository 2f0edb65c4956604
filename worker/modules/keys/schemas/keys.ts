// License key requests: a purchase, and the customer's own key list.
import { z } from 'zod';
import { emptyAsUndefined, MAX_PAGE_SIZE, pageQuery } from '../../../platform/schemas/paging';
import { KEY_STATUSES } from '../../../platform/vocabulary';

export { MAX_PAGE_SIZE };

export const DEFAULT_PAGE_SIZE = 10;

export const idSchema = (what: string) =>
  z
    .string({ error: `${what} is required` })
    .trim()
    .min(1, `${what} is required`)
    .max(64, `${what} is not valid`);

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

/** An Idempotency-Key header: what Stripe and the IETF draft accept, printable ASCII up to 255. */
export const idempotencyKeySchema = z
  .string()
  .min(1, 'Idempotency-Key must not be empty')
  .max(255, 'Idempotency-Key must be at most 255 characters')
  .regex(/^[\x21-\x7e]+$/, 'Idempotency-Key must be printable ASCII without spaces');

export const ownDeviceParams = z.object({ keyId: idSchema('Key id'), activationId: idSchema('Activation id') });
