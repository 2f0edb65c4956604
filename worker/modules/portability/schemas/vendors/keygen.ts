// Keygen (keygen.sh): its license objects and machine objects, as its API answers them (JSON:API
// pages; the reader flattens each resource to its id, type and attributes, adds a licence's user's
// email from `included`, and a machine's licence key from the licences in the file).
import { z } from 'zod';
import { email, failed, IMPORT_MAX_DAYS, IMPORT_MAX_DEVICES, keyValue, text, when, whole, type KeyRow, type Mapped } from '../import';
import { deviceRow } from './devices';
import { daysBetween, neverExpires, renameFields, yesNo, type VendorFormat } from './fields';

const licenceNames = {
  key: ['License Key', 'license_key'],
  expiry: ['Expires', 'expires_at', 'expiresAt'],
  status: [],
  maxMachines: ['Max Machines', 'max_machines'],
  suspended: [],
  userEmail: ['Email', 'user_email', 'User Email'],
  created: ['createdAt', 'created_at'],
  devicesInFile: [],
};

// Its status is read only: ACTIVE, INACTIVE, EXPIRING, EXPIRED, SUSPENDED, BANNED.
const licence = z
  .object({
    key: keyValue,
    expiry: when('expiry'),
    status: z.preprocess((v) => (typeof v === 'string' && v ? v.toUpperCase() : undefined), z.string().optional()),
    maxMachines: whole('maxMachines', 1, IMPORT_MAX_DEVICES),
    suspended: yesNo('suspended'),
    userEmail: email,
    created: when('created'),
    devicesInFile: z.number().int().min(0).optional(),
  })
  .transform((r): KeyRow => {
    const banned = r.suspended || r.status === 'SUSPENDED' || r.status === 'BANNED';
    const expired = r.status === 'EXPIRED';
    return {
      type: 'key',
      key: r.key,
      email: r.userEmail ?? null,
      // In use when it has an expiry, or machines in the file.
      status: banned ? 'revoked' : expired ? 'expired' : r.expiry !== undefined || r.devicesInFile ? 'used' : 'available',
      expiresAt: r.expiry ?? null,
      ...neverExpires(r.expiry, banned || expired),
      days: daysBetween(r.created, r.expiry, IMPORT_MAX_DAYS),
      devices: r.maxMachines,
      fingerprints: [],
    };
  });

const machineNames = {
  fingerprint: [],
  name: [],
  platform: [],
  created: ['createdAt', 'created_at'],
  lastHeartbeat: [],
  licenseKey: [],
  licenseId: [],
};

const machine = z.object({
  fingerprint: z.string({ error: 'fingerprint is required' }),
  name: z.string().optional().catch(undefined),
  platform: z.string().optional().catch(undefined),
  created: when('created'),
  lastHeartbeat: when('lastHeartbeat'),
  licenseKey: z.string().optional(),
  licenseId: text(200).optional(),
});

export const keygen: VendorFormat = {
  deviceTypes: ['machines'],
  names: (record) => (record.type === 'machines' ? machineNames : licenceNames),
  map(record): Mapped {
    if (record.type === 'machines') {
      const parsed = machine.safeParse(renameFields(record, machineNames));
      if (!parsed.success) return failed(parsed.error);
      const m = parsed.data;
      return deviceRow(
        {
          key: m.licenseKey ?? null,
          licenceId: m.licenseId ?? 'unknown',
          fingerprint: m.fingerprint,
          platform: m.platform,
          name: m.name,
          activatedAt: m.created,
          lastUsed: m.lastHeartbeat,
        },
        'Keygen machine',
      );
    }
    const parsed = licence.safeParse(renameFields(record, licenceNames));
    return parsed.success ? { ok: true, row: parsed.data } : failed(parsed.error);
  },
};
