// Polar (polar.sh): its license keys as its API lists them (`GET /v1/license-keys`: {items: [...]},
// each with its customer; one key read alone also lists its `activations`). Status granted, revoked
// or disabled; `limit_activations` the device limit; `expires_at` null for a key that never expires.
// An activation's `id` is what Polar's activate answered the app with and its validate is sent
// (`activation_id`): the device's fingerprint here.
import { z } from 'zod';
import { email, failed, IMPORT_MAX_DAYS, IMPORT_MAX_DEVICES, keyValue, text, when, whole, type KeyRow, type Mapped } from '../import';
import { deviceRow } from './devices';
import { daysBetween, neverExpires, renameFields, type VendorFormat } from './fields';

/** The type the file reader gives each of a key's `activations`. */
export const POLAR_ACTIVATION = 'license-key-activations';
const POLAR_STATUSES = ['granted', 'revoked', 'disabled'] as const;

const keyNames = {
  key: ['License Key'],
  customer_email: ['Customer Email', 'Email'],
  status: [],
  limit_activations: ['Activation Limit'],
  expires_at: ['Expires'],
  created_at: [],
  devicesInFile: [],
};

const licenceKey = z
  .object({
    key: keyValue,
    customer_email: email,
    status: z.preprocess(
      (v) => (typeof v === 'string' && v ? v.trim().toLowerCase() : undefined),
      z.enum(POLAR_STATUSES, { error: `status must be one of ${POLAR_STATUSES.join(', ')}` }).optional(),
    ),
    limit_activations: whole('limit_activations', 1, IMPORT_MAX_DEVICES),
    expires_at: when('expires_at'),
    created_at: when('created_at'),
    devicesInFile: z.number().int().min(0).optional(),
  })
  .transform((r): KeyRow => {
    const revoked = r.status === 'revoked' || r.status === 'disabled';
    // Polar keeps a key granted past its expiry: it is expired here.
    const expired = !revoked && r.expires_at !== undefined && r.expires_at <= Date.now();
    return {
      type: 'key',
      key: r.key,
      email: r.customer_email ?? null,
      status: revoked ? 'revoked' : expired ? 'expired' : r.expires_at !== undefined || r.devicesInFile ? 'used' : 'available',
      expiresAt: r.expires_at ?? null,
      ...neverExpires(r.expires_at, revoked),
      days: daysBetween(r.created_at, r.expires_at, IMPORT_MAX_DAYS),
      devices: r.limit_activations,
      fingerprints: [],
    };
  });

const activationNames = { id: [], label: [], created_at: [], license_key_id: [], licenseKey: [] };

const activation = z.object({
  id: z.string({ error: 'id is required' }),
  label: z.string().optional().catch(undefined),
  created_at: when('created_at'),
  license_key_id: text(200).optional(),
  licenseKey: z.string().optional(),
});

/** A key's customer's email beside its fields, as a CSV would give it. */
function view(record: Record<string, unknown>): Record<string, unknown> {
  const customer = record.customer;
  if (typeof customer !== 'object' || customer === null || Array.isArray(customer)) return record;
  const { customer: _customer, ...rest } = record;
  return { ...rest, customer_email: (customer as Record<string, unknown>).email };
}

export const polar: VendorFormat = {
  deviceTypes: [POLAR_ACTIVATION],
  names: (record) => (record.type === POLAR_ACTIVATION ? activationNames : keyNames),
  view: (record) => (record.type === POLAR_ACTIVATION ? record : view(record)),
  map(record): Mapped {
    if (record.type === POLAR_ACTIVATION) {
      const parsed = activation.safeParse(renameFields(record, activationNames));
      if (!parsed.success) return failed(parsed.error);
      const a = parsed.data;
      return deviceRow(
        {
          key: a.licenseKey ?? null,
          licenceId: a.license_key_id ?? 'unknown',
          fingerprint: a.id,
          name: a.label,
          activatedAt: a.created_at,
        },
        'Polar activation',
      );
    }
    const parsed = licenceKey.safeParse(renameFields(view(record), keyNames));
    return parsed.success ? { ok: true, row: parsed.data } : failed(parsed.error);
  },
};
