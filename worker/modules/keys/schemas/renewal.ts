// Renewing a key and its auto-renewal: the requests and answers, shared by the API, My Keys, the
// admin panel's key details and the CLI, so all of them give the same messages.
import { z } from 'zod';
import { idSchema } from '../../../platform/schemas/ids';
import { isoDate, nullableDate } from '../../../platform/schemas/common';
import { RENEWAL_SOURCES } from '../../../platform/vocabulary';
import { MAX_DURATION_DAYS } from '../../catalog/schemas';

/** Days of a renewal: within the product's minimum and maximum, checked with the key (a 400 saying which). */
const renewalDays = z
  .number({ error: 'Days must be a number of days' })
  .int('Days must be a whole number of days')
  .min(1, 'Days must be at least 1')
  .max(MAX_DURATION_DAYS, `Days must be at most ${MAX_DURATION_DAYS}`);

/** POST /api/users/my-keys/{id}/renew: the customer pays the product's price for `days` with their credits. */
export const renewKeySchema = z.object({ days: renewalDays });
export type RenewKeyInput = z.input<typeof renewKeySchema>;

/**
 * POST /api/admin/keys/{id}/renew: a reseller renews a key they bought for a customer, at their tier's
 * price, with their credits; the owner extends any key, free, or at the product's price charged to
 * the account `chargeTo` names.
 */
export const adminRenewKeySchema = z.object({
  days: renewalDays,
  chargeTo: idSchema('chargeTo').nullable().optional().meta({
    description: "The owner only: the account whose credits pay the product's price (absent or null: the extension is free).",
  }),
});
export type AdminRenewKeyInput = z.input<typeof adminRenewKeySchema>;

/** PUT /api/users/my-keys/{id}/auto-renew: renew by `days` from my credits before each expiry (null: off). */
export const autoRenewSchema = z.object({
  days: renewalDays.nullable().meta({ description: 'The days each auto-renewal adds (within the product offer); null turns it off.' }),
});
export type AutoRenewInput = z.input<typeof autoRenewSchema>;

export const renewalReceiptSchema = z
  .object({
    _id: z.string(),
    licenseKeyId: z.string(),
    key: z.string().meta({ description: 'The same key value as before: a renewal never changes it.' }),
    product: z.string(),
    source: z.enum(RENEWAL_SOURCES),
    days: z.number(),
    credits: z.number().meta({ description: 'What it cost its payer (0: the owner extended it free).' }),
    previousExpiresAt: isoDate,
    expiresAt: isoDate.meta({
      description: 'The new expiry: from the old one while the key was live, from the renewal once it had passed.',
    }),
    renewedAt: isoDate,
  })
  .meta({ id: 'RenewalReceipt' });
export type RenewalReceipt = z.infer<typeof renewalReceiptSchema>;

export const renewalResponseSchema = z
  .object({
    renewal: renewalReceiptSchema,
    remainingCredits: z.number().nullable().meta({ description: "The payer's credits right after (null: nobody paid)." }),
  })
  .meta({ id: 'RenewalResponse' });
export type RenewalResponse = z.infer<typeof renewalResponseSchema>;

export const autoRenewResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    autoRenewDays: z.number().nullable(),
    autoRenewFailedAt: nullableDate,
  })
  .meta({ id: 'AutoRenewResponse' });
export type AutoRenewResponse = z.infer<typeof autoRenewResponseSchema>;
