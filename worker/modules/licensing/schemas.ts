// The licensing API's requests (what licensed software sends), shared by the Worker and the CLI.
import { z } from 'zod';
import { idSchema } from '../../platform/schemas/ids';
import { EXPIRY_MODELS, KEY_STATUSES, LICENSE_CODES, LICENSE_MODELS, type LicenseCode } from '../../platform/vocabulary';
import { KEY_TAG_PATTERN, MAX_BORROW_HOURS } from '../catalog/schemas';
import { isoDate } from '../../platform/schemas/common';
import { cleanUnsafeText, refuseUnsafeText } from '../../platform/schemas/text';

const printable = /^[\x20-\x7E]+$/;

/**
 * The longest key the licensing API (and an import) takes: a vendor's signed key as it issued it.
 * Keygen's signed keys are `key/` + base64url(data) + `.` + base64url(signature): its Ed25519
 * signature alone is 86 characters and its RSA-2048 one 344, so a key carrying a few hundred bytes of
 * data runs to 500 to 900 characters. 1024 holds them, and stays far under any request limit.
 */
export const LICENSE_KEY_MAX_LENGTH = 1024;

export const licenseKeyField = z
  .string({ error: 'key is required' })
  .trim()
  .min(1, 'key is required')
  .max(LICENSE_KEY_MAX_LENGTH, `key must be at most ${LICENSE_KEY_MAX_LENGTH} characters`)
  // No key holds one; a value that does is refused like any text people type (platform/schemas/text.ts).
  .superRefine(refuseUnsafeText('key'))
  .transform((v) => v.toUpperCase());

export const deviceFingerprintField = z
  .string({ error: 'deviceFingerprint is required' })
  .min(8, 'deviceFingerprint must be at least 8 characters')
  .max(256, 'deviceFingerprint must be at most 256 characters')
  .regex(printable, 'deviceFingerprint must contain printable characters only');

/**
 * A text the device reports about itself: cleaned of control and bidirectional characters (C0, DEL,
 * C1, U+202E and kin; platform/schemas/text.ts) before it is stored, shown or signed, since the app
 * sends what its platform reports and cannot retype it.
 */
const deviceText = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .max(max, `${name} must be at most ${max} characters`)
    .transform(cleanUnsafeText);

const infoText = (name: string) => deviceText(`deviceInfo.${name}`, 200).optional();

export const deviceInfoSchema = z
  .object({
    manufacturer: infoText('manufacturer'),
    model: infoText('model'),
    device: infoText('device'),
    cpuAbi: infoText('cpuAbi'),
    fingerprint: infoText('fingerprint'),
  })
  .strict();

const nonceField = z
  .string({ error: 'nonce must be a string' })
  .min(1, 'nonce must not be empty')
  .max(128, 'nonce must be at most 128 characters')
  .regex(printable, 'nonce must contain printable characters only')
  .optional();

/** What every call about a key on a device sends. */
const licenseCallSchema = z.object({ key: licenseKeyField, deviceFingerprint: deviceFingerprintField, nonce: nonceField });

/** A release date: an ISO 8601 date (2026-03-01) or date and time (2026-03-01T12:00:00Z). */
const RELEASE_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const releaseDateField = z
  .string({ error: 'releaseDate must be a date' })
  .refine((v) => RELEASE_DATE.test(v) && !Number.isNaN(Date.parse(v)), 'releaseDate must be an ISO 8601 date, like 2026-03-01')
  .optional()
  .meta({
    description:
      "The release date of the calling app's version. A perpetual-fallback key past its expiry answers VALID (code UPDATES_ENDED) for a release dated before the expiry, and EXPIRED for a later one or none.",
  });

export const validateLicenseSchema = licenseCallSchema.extend({ releaseDate: releaseDateField });
export const deactivateLicenseSchema = licenseCallSchema;
export const activateLicenseSchema = licenseCallSchema.extend({ deviceInfo: deviceInfoSchema.optional() });

export const heartbeatLicenseSchema = licenseCallSchema;
// The longest borrow any product may allow; the key's own product maximum is checked with the key.
export const borrowSeatSchema = licenseCallSchema.extend({
  hours: z
    .number({ error: 'hours must be a number' })
    .int('hours must be a whole number')
    .min(1, 'hours must be at least 1')
    .max(MAX_BORROW_HOURS, `hours must be at most ${MAX_BORROW_HOURS}`),
});
export const replaceDeviceSchema = activateLicenseSchema.extend({
  replaceDeviceId: idSchema('replaceDeviceId').meta({
    description: 'The device to replace: its id, as a refused activation lists the devices (`devices[].id`).',
  }),
});
/** The most uses one debit (or top-up) may move. */
export const MAX_USES_PER_CALL = 1_000_000_000;
export const consumeLicenseSchema = licenseCallSchema.extend({
  amount: z
    .number({ error: 'amount must be a number' })
    .int('amount must be a whole number')
    .min(1, 'amount must be at least 1')
    .max(MAX_USES_PER_CALL, `amount must be at most ${MAX_USES_PER_CALL}`)
    .default(1),
});
export const startTrialSchema = z.object({
  keyTag: z
    .string({ error: 'keyTag is required' })
    .trim()
    .transform((v) => v.toUpperCase())
    .pipe(z.string().regex(KEY_TAG_PATTERN, 'keyTag must be 2 to 10 letters or digits')),
  deviceFingerprint: deviceFingerprintField,
  deviceInfo: deviceInfoSchema.optional(),
  nonce: nonceField,
});

export type ActivateLicenseInput = z.infer<typeof activateLicenseSchema>;
export type ValidateLicenseInput = z.infer<typeof validateLicenseSchema>;

/** What each licensing answer's code means: the OpenAPI document lists them with the answer. */
export const LICENSE_CODE_MEANINGS: Record<LicenseCode, string> = {
  VALID: 'The key works on this device (activated, validated, heartbeat, borrowed); `license.token` is its offline token.',
  NOT_FOUND: 'No license key (or, for a trial, no product) matches.',
  REVOKED: 'The key was revoked.',
  EXPIRED: 'The key expired (and its grace period ended).',
  NOT_ACTIVATED: 'This device is not activated on the key (or the device to replace holds no slot).',
  DEVICE_LIMIT_REACHED:
    'A node-locked key is on all its devices: `devices` lists them, to offer replacing one; `slotFreesAt` when a held slot frees.',
  PRODUCT_INACTIVE: 'The product is no longer available, and the key was never activated.',
  DEACTIVATED: 'The device was removed; `slotFreesAt` is when its slot frees (its offline tokens expire).',
  KEY_REGENERATED: "The key's holder (or the owner) replaced this value with a new one: ask the customer for the new key.",
  NO_SEAT_AVAILABLE:
    'Every seat of a floating key is leased: `devices` lists them; `slotFreesAt` is when the next lease ends unless renewed.',
  LEASE_EXPIRED: "This device's seat lease ran out (no heartbeat in time) and it could not take a seat again.",
  SEAT_RELEASED: 'A floating device checked its seat in; `slotFreesAt` is when it is free (now, or when a borrow ends).',
  BORROW_NOT_ALLOWED: "The product's seats cannot be borrowed, or not for that long.",
  DEVICE_REPLACED: 'The device took the slot of the device it replaces (valid); `license.token` is its offline token.',
  SWAP_BUDGET_EXHAUSTED: "The key's device swaps for the window are spent: `nextSwapAt` is when the next is allowed (null: never).",
  TRIAL_STARTED: 'A trial key was made and activated on this device (valid): `license.key` is the trial key.',
  TRIAL_ALREADY_USED: 'This device already had a trial of the product; `license` is that trial key when it still exists.',
  TRIAL_NOT_OFFERED: 'The product offers no trial, or is no longer available.',
  CONSUMED:
    'The uses were debited (valid), or this Idempotency-Key already debited them and the answer is repeated: `license.usage.remaining` is what is left after that debit.',
  USAGE_EXHAUSTED:
    'The key has fewer uses left than asked for: nothing was debited; `license.usage` says what is left and when it refills.',
  USAGE_NOT_METERED: "The key's product gives its keys no usage allowance, so there is nothing to debit.",
  OFFLINE_ACTIVATED:
    "An air-gapped device's request was turned into a signed activation response (valid): `license.token` is its offline token.",
  NONCE_ALREADY_USED: 'This air-gapped request was turned into a response before: its nonce is accepted once. Write a new request.',
  UPDATES_ENDED:
    'A perpetual-fallback key past its expiry, validated by a release dated before it (`releaseDate`): the release keeps working (valid), but updates have ended; releases dated from `license.expiresAt` on need the key renewed.',
};

const isoOrNull = (description: string) => z.string().nullable().optional().meta({ description });

export const boundDeviceSchema = z
  .object({
    id: z.string().meta({ description: 'Pass as `replaceDeviceId` to POST /api/v1/licenses/replace-device.' }),
    name: z.string().nullable(),
    model: z.string().nullable(),
    lastSeenAt: z.string().nullable(),
    leaseExpiresAt: z.string().nullable(),
  })
  .meta({ id: 'BoundDevice' });

export const usageSchema = z
  .object({
    allowance: z.number().meta({ description: 'The uses a key of the product starts with.' }),
    remaining: z.number().meta({ description: 'The uses left now (for CONSUMED: after its debit).' }),
    refillAmount: z.number().nullable().meta({ description: 'Every refillDays the uses left are raised to this many (null: no refill).' }),
    refillDays: z.number().nullable(),
    nextRefillAt: z.string().nullable().meta({ description: 'When the next refill falls due (null: none, or no use yet).' }),
  })
  .meta({ id: 'LicenseUsage' });

export const licenseAnswerSchema = z
  .object({
    valid: z.boolean(),
    code: z.enum(LICENSE_CODES).meta({
      description: `What the answer means; one of:\n${LICENSE_CODES.map((c) => `- \`${c}\`: ${LICENSE_CODE_MEANINGS[c]}`).join('\n')}`,
    }),
    detail: z.string(),
    nonce: z.string().nullable(),
    ts: z.string(),
    slotFreesAt: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Deactivations, and activations refused for slots that released devices still hold: when a slot frees.' }),
    leaseExpiresAt: isoOrNull('A floating seat: until when this device holds it (a heartbeat renews it).'),
    borrowedUntil: isoOrNull('A borrowed floating seat: until when it is borrowed (the offline token lives as long).'),
    nextSwapAt: isoOrNull('SWAP_BUDGET_EXHAUSTED: when the next device swap is allowed (null: the product allows none).'),
    devices: z.array(boundDeviceSchema).optional().meta({ description: 'A refusal because the key is full: the devices holding it.' }),
    license: z
      .object({
        key: z.string(),
        status: z.enum(KEY_STATUSES),
        product: z.object({ name: z.string(), keyTag: z.string(), productType: z.string() }),
        expiresAt: z.string().nullable(),
        maxActivations: z.number().meta({ description: 'Devices (node-locked) or seats (floating).' }),
        activationCount: z.number().meta({ description: 'Devices holding a slot now (floating: live leases).' }),
        licenseModel: z.enum(LICENSE_MODELS),
        expiryModel: z.enum(EXPIRY_MODELS).meta({
          description:
            'How the key ends: time-limited (at expiresAt), perpetual (never; expiresAt is null) or perpetual-fallback (at expiresAt, but releases dated before it keep validating with UPDATES_ENDED).',
        }),
        trial: z.boolean(),
        entitlements: z
          .array(z.string())
          .meta({ description: "The key's entitlements: its product's and those granted to it (the offline token's `ent`)." }),
        usage: usageSchema.nullable().meta({ description: 'A metered key: its uses (null: the product is not metered).' }),
        token: z.string().nullable().meta({ description: 'The signed offline token (a JWT), when the answer is valid.' }),
      })
      .nullable(),
  })
  .meta({ id: 'LicenseAnswer' });
export type LicenseAnswer = z.infer<typeof licenseAnswerSchema>;

export const licensingPublicKeySchema = z
  .object({ jwk: z.record(z.string(), z.unknown()), pem: z.string() })
  .meta({ id: 'LicensingPublicKey', description: 'The Ed25519 public key that signs answers and offline tokens.' });

/** A customer's device on one of their keys (DELETE /api/users/my-keys/{keyId}/activations/{activationId}). */
export const ownDeviceParams = z.object({ keyId: idSchema('Key id'), activationId: idSchema('Activation id') });

export const deviceRemovedSchema = z
  .object({ success: z.literal(true), message: z.string(), slotFreesAt: isoDate })
  .meta({ id: 'DeviceRemoved', description: 'The slot stays held while an offline token the device may hold is still valid.' });

/** A customer's key's swap budget (GET /api/users/my-keys/{keyId}/swaps), and the answer to a replacement request. */
export const ownKeySwapsSchema = z
  .object({
    swapLimit: z.number().nullable().meta({ description: 'Device removals and swaps per window; null: no budget.' }),
    swapWindowDays: z.number(),
    swapsLeft: z.number().nullable(),
    nextSwapAt: z
      .string()
      .nullable()
      .meta({ description: 'When none are left: when the next is allowed (null: never, or swaps are left).' }),
  })
  .meta({ id: 'KeySwaps' });
export const ownKeyParams = z.object({ keyId: idSchema('Key id') });

/**
 * Air-gapped activation: the files an offline device and the key's holder pass by hand. The SDK
 * writes the request (unsigned: the device holds no secret of the server's) and the deactivation
 * proof (signed with the device's own key, whose public half the request carried); the server
 * answers each with a signed file, its `answer` the JSON text that `signature` signs.
 */
export const OFFLINE_REQUEST_TYPE = 'keypanel.offline-activation-request';
export const OFFLINE_RESPONSE_TYPE = 'keypanel.offline-activation-response';
export const OFFLINE_PROOF_TYPE = 'keypanel.offline-deactivation-proof';
export const OFFLINE_RECEIPT_TYPE = 'keypanel.offline-deactivation-receipt';

const fileType = <T extends string>(type: T, what: string) =>
  z.literal(type, { error: `This is not ${what} (its type must be "${type}")` }).meta({ description: `Always \`${type}\`.` });

// The length is in the pattern too, so the document states it where a generator of examples reads it.
const offlineNonceField = z
  .string({ error: 'nonce is required' })
  .min(16, 'nonce must be at least 16 characters')
  .max(128, 'nonce must be at most 128 characters')
  .regex(/^[\x20-\x7E]{16,128}$/, 'nonce must contain printable characters only');

/** An Ed25519 public key's 32 bytes, base64url (a JWK's `x`). */
const deviceKeyField = z
  .string({ error: 'deviceKey is required' })
  .regex(/^[A-Za-z0-9_-]{43}$/, "deviceKey must be the device's Ed25519 public key (43 base64url characters)");

export const offlineRequestSchema = z
  .object({
    type: fileType(OFFLINE_REQUEST_TYPE, 'an offline activation request'),
    key: licenseKeyField,
    deviceFingerprint: deviceFingerprintField,
    nonce: offlineNonceField,
    deviceKey: deviceKeyField,
    deviceInfo: deviceInfoSchema.optional(),
    createdAt: deviceText('createdAt', 40)
      .optional()
      .meta({ description: "When the device wrote it, by the device's clock (not trusted)." }),
  })
  .meta({ id: 'OfflineActivationRequest', description: 'Written by the SDK on the offline device (createOfflineRequest).' });
export type OfflineRequest = z.infer<typeof offlineRequestSchema>;

const signatureField = z
  .string({ error: 'signature is required' })
  .max(200, 'signature is too long')
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'signature must be base64');

export const offlineProofSchema = z
  .object({
    type: fileType(OFFLINE_PROOF_TYPE, 'a deactivation proof'),
    proof: z
      .string({ error: 'proof is required' })
      .max(2000, 'proof is too long')
      .meta({ description: 'JSON text: `{ type, key, deviceFingerprint, nonce, deactivatedAt }`, signed by the device key.' }),
    signature: signatureField.meta({ description: "Ed25519 over the proof's UTF-8 bytes, by the device key of the activation's request." }),
  })
  .meta({ id: 'OfflineDeactivationProof', description: 'Written by the SDK on the offline device (createDeactivationProof).' });

/** What the signed proof text says. */
export const offlineProofBodySchema = z.object({
  type: z.literal(OFFLINE_PROOF_TYPE),
  key: licenseKeyField,
  deviceFingerprint: deviceFingerprintField,
  nonce: offlineNonceField,
});

export const offlineActivationAnswerSchema = licenseAnswerSchema
  .extend({
    deviceFingerprint: z.string(),
    deviceKey: z.string().meta({ description: "The device key from the request: the proof's signature is checked with it." }),
    tokenExpiresAt: z
      .string()
      .nullable()
      .meta({ description: "Until when the offline token lives (its signed issue time plus the product's token life)." }),
  })
  .meta({ id: 'OfflineActivationAnswer' });
export type OfflineActivationAnswer = z.infer<typeof offlineActivationAnswerSchema>;

const signedFile = <T extends string>(type: T, id: string, description: string) =>
  z
    .object({
      type: z.literal(type),
      answer: z.string().meta({ description: 'The answer as JSON text; `signature` signs its exact UTF-8 bytes.' }),
      signature: z.string().meta({ description: 'Ed25519, base64, by the licensing key (GET /api/v1/licenses/public-key).' }),
    })
    .meta({ id, description });

export const offlineResponseFileSchema = signedFile(
  OFFLINE_RESPONSE_TYPE,
  'OfflineActivationResponse',
  'The file to carry back to the offline device (applyOfflineResponse). `answer` is an OfflineActivationAnswer: `code` OFFLINE_ACTIVATED with the offline token, or why not (DEVICE_LIMIT_REACHED, NONCE_ALREADY_USED, REVOKED, EXPIRED, PRODUCT_INACTIVE).',
);
export const offlineReceiptFileSchema = signedFile(
  OFFLINE_RECEIPT_TYPE,
  'OfflineDeactivationReceipt',
  '`answer` is a LicenseAnswer: `code` DEACTIVATED when the proof freed the slot, NOT_ACTIVATED when it was freed before, SWAP_BUDGET_EXHAUSTED when the key has no device swaps left now.',
);
