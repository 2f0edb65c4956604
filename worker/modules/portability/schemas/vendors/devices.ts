// A vendor's machine or activation (Keygen's machines, Lemon Squeezy's license key instances,
// Polar's activations) as a device row on its key: the fingerprint the customer's software sends,
// so it validates on that device after the move with no new activation.
import { newId } from '../../../../platform/ids';
import { cleanUnsafeText } from '../../../../platform/schemas/text';
import type { Mapped } from '../import';

/** What the licensing API accepts as a deviceFingerprint (licensing/schemas.ts): a device with another can never be asked about. */
const FINGERPRINT = /^[\x20-\x7E]{8,256}$/;

export type VendorDevice = {
  /** The key's value, as the file reader found it from the device's licence; null: its licence is not in the file. */
  key: string | null;
  /** The vendor's id of the licence (named when the licence is not in the file). */
  licenceId: string;
  fingerprint: string;
  /** What the panel shows for the device: its platform and name. */
  platform?: string;
  name?: string;
  activatedAt?: number;
  lastUsed?: number;
};

const info = (v: string | undefined) => (v ? cleanUnsafeText(v.slice(0, 200)) : undefined);

export function deviceRow(device: VendorDevice, what: string, now = Date.now()): Mapped {
  if (!FINGERPRINT.test(device.fingerprint))
    return {
      ok: true,
      row: {
        type: 'other',
        skip: `a ${what} whose identifier is not 8 to 256 printable characters, which the licensing API cannot be sent: it activates again`,
      },
    };
  const deviceInfo = { manufacturer: info(device.platform), model: info(device.name) };
  return {
    ok: true,
    row: {
      type: 'device',
      id: newId(now),
      key: device.key === null ? null : device.key.trim().toUpperCase(),
      keyId: device.licenceId,
      fingerprint: device.fingerprint,
      deviceInfo: deviceInfo.manufacturer || deviceInfo.model ? JSON.stringify(deviceInfo) : null,
      activatedAt: device.activatedAt ?? now,
      lastUsed: device.lastUsed ?? null,
      leaseExpiresAt: null,
      borrowedUntil: null,
    },
  };
}
