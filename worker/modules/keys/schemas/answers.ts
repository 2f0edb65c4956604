// The shapes the keys module answers with: a license key with its devices and held slots, a
// purchase's receipt, the key lists and the owner's key changes.
import { z } from 'zod';
import { usageSchema } from '../../licensing/schemas';
import { EXPIRY_MODELS } from '../../../platform/vocabulary';
import { isoDate, keyStatusSchema, keyUserRefSchema, nullableDate, paged, productTypeSchema } from '../../../platform/schemas/common';

export const activationSchema = z
  .object({
    _id: z.string(),
    activatedAt: isoDate,
    lastUsed: nullableDate,
    deviceFingerprint: z.string(),
    deviceInfo: z
      .object({
        manufacturer: z.string().optional(),
        model: z.string().optional(),
        device: z.string().optional(),
        cpuAbi: z.string().optional(),
        fingerprint: z.string().optional(),
      })
      .nullable(),
    leaseExpiresAt: nullableDate.meta({ description: 'A floating seat: until when this device holds it (past: the seat is free).' }),
    borrowedUntil: nullableDate.meta({ description: 'A floating seat borrowed for offline use: until when.' }),
    replacePendingAt: nullableDate.meta({
      description: 'Its customer asked to replace it: the next new device to activate the key takes its place.',
    }),
  })
  .meta({ id: 'Activation' });

export type Activation = z.infer<typeof activationSchema>;

export const heldSlotSchema = z
  .object({ _id: z.string(), deviceFingerprint: z.string(), releasedAt: isoDate, freesAt: isoDate })
  .meta({ id: 'HeldSlot' });

export type HeldSlot = z.infer<typeof heldSlotSchema>;

export const licenseKeySchema = z
  .object({
    _id: z.string(),
    key: z.string(),
    status: keyStatusSchema.meta({ description: "'expired' as soon as expiresAt has passed, even before the cron job marks the row." }),
    product: z.object({
      _id: z.string(),
      name: z.string(),
      keyTag: z.string(),
      productType: productTypeSchema,
      duration: z.number(),
      maxActivations: z.number(),
    }),
    purchasedAt: nullableDate,
    purchasedBy: keyUserRefSchema.nullable(),
    createdBy: keyUserRefSchema.nullable(),
    duration: z.number(),
    purchasePrice: z.number(),
    revokeReason: z.string().nullable(),
    firstUsedAt: nullableDate,
    createdAt: isoDate,
    expiresAt: nullableDate.meta({ description: 'Null while a generated key is unactivated: its clock starts at the first activation.' }),
    metadata: z.object({ generationMethod: z.enum(['automatic', 'purchase', 'reseller', 'direct']) }),
    maxActivations: z.number(),
    trial: z.boolean().meta({ description: 'A trial a device started (POST /api/v1/licenses/trial), not sold.' }),
    entitlements: z.array(z.string()).meta({ description: "The key's entitlements: its product's and those the owner granted it." }),
    usage: usageSchema.nullable().meta({ description: "A metered key's uses now (null: its product is not metered)." }),
    expiryModel: z.enum(EXPIRY_MODELS).meta({
      description:
        "How the key ends, its product's licence model when it was made: time-limited, perpetual (expiresAt stays null) or perpetual-fallback (releases dated before expiresAt keep validating).",
    }),
    autoRenewDays: z
      .number()
      .nullable()
      .meta({ description: "Auto-renewal from its customer's credits: the days each renewal adds (null: off)." }),
    autoRenewFailedAt: nullableDate.meta({
      description: 'When auto-renewal last failed for the current expiry (the balance did not cover it): the key runs out unless renewed.',
    }),
    activations: z.array(activationSchema),
    heldSlots: z.array(heldSlotSchema).meta({
      description:
        'Slots of devices that left the key but may still hold an offline token: each stays taken until `freesAt`. The owner can release one at once.',
    }),
  })
  .meta({ id: 'LicenseKey' });

export type LicenseKey = z.infer<typeof licenseKeySchema>;

/** The receipt a purchase answers with: `product` is the product's name, as the success card shows it. */
export const purchaseReceiptSchema = z
  .object({
    _id: z.string(),
    key: z.string(),
    product: z.string(),
    productId: z.string(),
    duration: z.number(),
    expiryDate: nullableDate.meta({ description: 'Null for a perpetual key: it never expires.' }),
    cost: z.number(),
  })
  .meta({ id: 'PurchaseReceipt' });

export type PurchaseReceipt = z.infer<typeof purchaseReceiptSchema>;

export const purchaseResponseSchema = z
  .object({ licenseKey: purchaseReceiptSchema, remainingCredits: z.number() })
  .meta({ id: 'PurchaseResponse' });

export type PurchaseResponse = z.infer<typeof purchaseResponseSchema>;

export const purchaseShortfallSchema = z
  .object({ requiredCredits: z.number(), availableCredits: z.number(), baseCost: z.number(), durationCost: z.number(), days: z.number() })
  .meta({ id: 'PurchaseShortfall' });

export type PurchaseShortfall = z.infer<typeof purchaseShortfallSchema>;

export const myKeysResponseSchema = z.object(paged('keys', licenseKeySchema)).meta({ id: 'MyKeysResponse' });

export type MyKeysResponse = { keys: LicenseKey[]; totalPages: number; total: number };

// Key management (issue 4, second half): the admin key list, generation and purchases for a customer.
export const adminKeysResponseSchema = z.object(paged('keys', licenseKeySchema)).meta({ id: 'AdminKeysResponse' });

export type AdminKeysResponse = { keys: LicenseKey[]; totalPages: number; total: number };

export const keyChangeResponseSchema = z
  .object({ success: z.literal(true), message: z.string(), licenseKey: licenseKeySchema })
  .meta({ id: 'KeyChangeResponse' });

export type KeyChangeResponse = z.infer<typeof keyChangeResponseSchema>;

export const bulkDeleteResponseSchema = z
  .object({ success: z.literal(true), deleted: z.number(), notFound: z.array(z.string()), message: z.string() })
  .meta({ id: 'BulkDeleteResponse' });

export type BulkDeleteResponse = z.infer<typeof bulkDeleteResponseSchema>;

export const generateKeysResponseSchema = z
  .object({ keys: z.array(licenseKeySchema), generated: z.number(), message: z.string() })
  .meta({ id: 'GenerateKeysResponse' });

export type GenerateKeysResponse = z.infer<typeof generateKeysResponseSchema>;

// A key's care by its holder (modules/keys/key-care.ts).
export const keyTransferSchema = z
  .object({
    _id: z.string(),
    /** The key's value when it changed hands (a later regeneration gives it another). */
    key: z.string(),
    product: z.string(),
    direction: z.enum(['given', 'received']),
    valueKept: z.boolean().meta({
      description: 'Whether the giver kept the value (and so still knows it); by default a transfer gives the key a new value.',
    }),
    from: z.string().nullable().meta({ description: "The giver's username; null once that account is deleted." }),
    to: z.string().nullable().meta({ description: "The recipient's username; null once that account is deleted." }),
    at: isoDate,
  })
  .meta({ id: 'KeyTransfer' });

export type KeyTransfer = z.infer<typeof keyTransferSchema>;

export const keyTransfersResponseSchema = z.object(paged('transfers', keyTransferSchema)).meta({ id: 'KeyTransfersResponse' });

export type KeyTransfersResponse = { transfers: KeyTransfer[]; totalPages: number; total: number };

export const keyTransferredResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    key: z.string().meta({ description: 'The value given: unless valueKept, the key now has a new value only its new holder sees.' }),
    product: z.string(),
    to: z.string(),
    valueKept: z.boolean(),
  })
  .meta({ id: 'KeyTransferredResponse' });

export type KeyTransferredResponse = z.infer<typeof keyTransferredResponseSchema>;

/** GET /api/admin/keys/{id}/usage: a key's entitlements, its uses now and its usage history, newest first. */
export const keyUsageResponseSchema = z
  .object({
    key: z.string(),
    entitlements: z.array(z.string()).meta({ description: "Its product's and those granted to it." }),
    grantedEntitlements: z.array(z.string()).meta({ description: 'Those the owner granted this key beyond its product.' }),
    usage: usageSchema.nullable(),
    consumed: z.number().meta({ description: 'Every use its apps debited, ever.' }),
    toppedUp: z.number().meta({ description: 'Every use the owner added, ever.' }),
    history: z.array(
      z.object({
        _id: z.string(),
        kind: z.enum(['consume', 'top_up']),
        amount: z.number(),
        remaining: z.number().meta({ description: 'The uses left after it.' }),
        at: isoDate,
        by: keyUserRefSchema.nullable().meta({ description: 'The owner who topped up (null: a debit by its app).' }),
      }),
    ),
    totalPages: z.number(),
    total: z.number(),
  })
  .meta({ id: 'KeyUsage' });
export type KeyUsageResponse = z.infer<typeof keyUsageResponseSchema>;
