// How the admin screens read a key's status and time left.
import type { Schemas } from '../../../../../worker/platform/api-client';
import type { BadgeTone } from '../../../components/ui/badge';
import { DAYS_DANGER, DAYS_WARNING } from '../../../lib/constants';
import { daysUntil } from '../../../lib/format';
import type { MessageId } from '../../../lib/i18n';
import { DAY_MS, hasPassed } from '../../../../../worker/platform/vocabulary';

type LicenseKey = Schemas['LicenseKey'];
type KeyStatus = Schemas['KeyStatus'];

export const KEY_STATUS_LABELS: Record<KeyStatus, MessageId> = {
  used: 'admin.keys.status.used',
  available: 'admin.keys.status.available',
  expired: 'admin.keys.status.expired',
  revoked: 'admin.keys.status.revoked',
};
export const KEY_STATUS_TONES: Record<KeyStatus, BadgeTone> = { used: 'green', available: 'blue', expired: 'gray', revoked: 'red' };
export const KEY_STATUS_OPTIONS: KeyStatus[] = ['used', 'available', 'expired', 'revoked'];

/** When the key stops working: the server's expiry, else purchase date + duration (unused generated keys: never yet). */
export function keyEndsAt(k: LicenseKey): number | null {
  if (k.expiresAt) return new Date(k.expiresAt).getTime();
  if (k.purchasedAt) return new Date(k.purchasedAt).getTime() + k.duration * DAY_MS;
  return null;
}

/**
 * The status to show. The server already answers with each key's status as it is now; the list
 * may have been loaded a while ago, so a key whose time ran out since reads as expired here too.
 */
export function shownStatus(k: LicenseKey, now = Date.now()): KeyStatus {
  if (k.status === 'expired' || k.status === 'revoked') return k.status;
  const end = keyEndsAt(k);
  return hasPassed(end, now) ? 'expired' : k.status;
}

/** Whole days left for a running key, or null when it has no end yet or no longer runs. */
export function daysLeft(k: LicenseKey, now = Date.now()): number | null {
  const status = shownStatus(k, now);
  const end = keyEndsAt(k);
  if (end === null || (status !== 'used' && status !== 'available')) return null;
  return Math.max(0, daysUntil(end, now));
}

/** The details modal's colour for the days remaining: red at 3 or fewer, yellow at 7 or fewer, else green. */
export function daysTone(days: number): 'red' | 'yellow' | 'green' {
  if (days <= DAYS_DANGER) return 'red';
  if (days <= DAYS_WARNING) return 'yellow';
  return 'green';
}
