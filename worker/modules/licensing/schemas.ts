// The licensing API's requests (what licensed software sends), shared by the Worker and the CLI.
import { z } from 'zod';
import { idSchema } from '../../platform/schemas/ids';
import { KEY_STATUSES, LICENSE_CODES } from '../../platform/vocabulary';
import { isoDate } from '../../platform/schemas/common';

const printable = /^[\x20-\x7E]+$/;

export const licenseKeyField = z
  .string({ error: 'key is required' })
  .trim()
  .min(1, 'key is required')
  .max(100, 'key must be at most 100 characters')
  .transform((v) => v.toUpperCase());

export const deviceFingerprintField = z
  .string({ error: 'deviceFingerprint is required' })
  .min(8, 'deviceFingerprint must be at least 8 characters')
  .max(256, 'deviceFingerprint must be at most 256 characters')
  .regex(printable, 'deviceFingerprint must contain printable characters only');

const infoText = (name: string) =>
  z
    .string({ error: `deviceInfo.${name} must be a string` })
    .max(200, `deviceInfo.${name} must be at most 200 characters`)
    .optional();

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

export const validateLicenseSchema = z.object({ key: licenseKeyField, deviceFingerprint: deviceFingerprintField, nonce: nonceField });
export const deactivateLicenseSchema = validateLicenseSchema;
export const activateLicenseSchema = validateLicenseSchema.extend({ deviceInfo: deviceInfoSchema.optional() });

export type ActivateLicenseInput = z.infer<typeof activateLicenseSchema>;
export type ValidateLicenseInput = z.infer<typeof validateLicenseSchema>;

export const licenseAnswerSchema = z
  .object({
    valid: z.boolean(),
    code: z.enum(LICENSE_CODES),
    detail: z.string(),
    nonce: z.string().nullable(),
    ts: z.string(),
    slotFreesAt: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Deactivations, and activations refused for slots that released devices still hold: when a slot frees.' }),
    license: z
      .object({
        key: z.string(),
        status: z.enum(KEY_STATUSES),
        product: z.object({ name: z.string(), keyTag: z.string(), productType: z.string() }),
        expiresAt: z.string().nullable(),
        maxActivations: z.number(),
        activationCount: z.number(),
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
