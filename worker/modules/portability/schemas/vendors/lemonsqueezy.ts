// Lemon Squeezy: its license keys (the API's `license-keys` attributes, or a CSV with the same
// fields under its dashboard's words) and its license key instances (`license-key-instances`: the
// activations, each with the `identifier` its licence API answered the app with as `instance.id`).
import { z } from 'zod';
import { email, failed, IMPORT_MAX_DAYS, IMPORT_MAX_DEVICES, keyValue, text, when, whole, type KeyRow, type Mapped } from '../import';
import { deviceRow } from './devices';
import { daysBetween, neverExpires, renameFields, yesNo, type VendorFormat } from './fields';

const LEMON_STATUSES = ['inactive', 'active', 'expired', 'disabled'] as const;

const keyNames = {
  key: ['License Key', 'license_key'],
  user_email: ['Customer Email', 'Email', 'customer_email'],
  status: ['status_formatted'],
  activation_limit: ['Activation Limit', 'limit'],
  expires_at: ['Expires', 'expiry'],
  disabled: [],
  created_at: ['Created', 'Date'],
  devicesInFile: [],
};

const licenceKey = z
  .object({
    key: keyValue,
    user_email: email,
    status: z.preprocess(
      (v) => (typeof v === 'string' && v ? v.trim().toLowerCase() : undefined),
      z.enum(LEMON_STATUSES, { error: `status must be one of ${LEMON_STATUSES.join(', ')}` }).optional(),
    ),
    activation_limit: whole('activation_limit', 1, IMPORT_MAX_DEVICES),
    expires_at: when('expires_at'),
    disabled: yesNo('disabled'),
    created_at: when('created_at'),
    devicesInFile: z.number().int().min(0).optional(),
  })
  .transform((r): KeyRow => {
    const status =
      r.disabled || r.status === 'disabled'
        ? 'revoked'
        : r.status === 'expired'
          ? 'expired'
          : r.expires_at !== undefined || r.devicesInFile
            ? 'used'
            : 'available';
    return {
      type: 'key',
      key: r.key,
      email: r.user_email ?? null,
      status,
      expiresAt: r.expires_at ?? null,
      ...neverExpires(r.expires_at, status === 'revoked' || status === 'expired'),
      days: daysBetween(r.created_at, r.expires_at, IMPORT_MAX_DAYS),
      devices: r.activation_limit,
      fingerprints: [],
    };
  });

const instanceNames = { identifier: ['Instance ID', 'instance_id'], name: [], created_at: [], license_key_id: [], licenseKey: [] };

const instance = z.object({
  identifier: z.string({ error: 'identifier is required' }),
  name: z.string().optional().catch(undefined),
  created_at: when('created_at'),
  license_key_id: z.union([z.string(), z.number()]).transform(String).pipe(text(200)).optional(),
  licenseKey: z.string().optional(),
});

export const lemonsqueezy: VendorFormat = {
  deviceTypes: ['license-key-instances'],
  names: (record) => (record.type === 'license-key-instances' ? instanceNames : keyNames),
  map(record): Mapped {
    if (record.type === 'license-key-instances') {
      const parsed = instance.safeParse(renameFields(record, instanceNames));
      if (!parsed.success) return failed(parsed.error);
      const i = parsed.data;
      return deviceRow(
        {
          key: i.licenseKey ?? null,
          licenceId: i.license_key_id ?? 'unknown',
          fingerprint: i.identifier,
          name: i.name,
          activatedAt: i.created_at,
        },
        'Lemon Squeezy instance',
      );
    }
    const parsed = licenceKey.safeParse(renameFields(record, keyNames));
    return parsed.success ? { ok: true, row: parsed.data } : failed(parsed.error);
  },
};
