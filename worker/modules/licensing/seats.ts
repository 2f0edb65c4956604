// A floating key's seats, kept by their devices: the heartbeat renews a device's lease, and a borrow
// takes the seat for offline use until the borrow ends. Each is one round trip: a conditional UPDATE
// that renews only a live lease, or takes a free seat again for a device whose lease ran out (the
// live seats counted in the same statement, so the key never has more than its seats), and the key
// as the UPDATE left it.
import { rawSql, runBatch } from '../../platform/db/client';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../platform/vocabulary';
import type { Settings } from '../settings';
import {
  describe,
  isFloating,
  iso,
  keyStatement,
  leaseExpired,
  LIVE,
  mayTakeDevice,
  notActivated,
  standing,
  unknownKey,
  valid,
  type KeyRow,
  type LicenseResult,
} from './licensing';
import { assertRowsUnderLimit, missesStatement, underLimitParams, underLimitSql, type AddressGuard } from './throttle';

type SeatInput = { key: string; deviceFingerprint: string };

/**
 * The UPDATE both share: `set` (SQL) applies to device ?1 of key ?2 at ?3 (grace ?4) while the key may
 * hold devices and the device's seat is live, or, its lease over, while a seat is free for it (live
 * leases and held slots of other devices counted in this statement). `extra` adds conditions.
 */
function seatUpdate(
  set: string,
  input: SeatInput,
  now: number,
  graceMs: number,
  extra: string,
  guard?: AddressGuard,
  more: unknown[] = [],
) {
  const underLimit = guard ? `AND ${underLimitSql(5 + more.length)}` : '';
  return rawSql(
    `UPDATE activations SET ${set}, last_used = ?3
      WHERE device_fingerprint = ?1
        AND key_id = (SELECT k.id FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
                       WHERE k.key = ?2 AND ${mayTakeDevice('?3', '?4')} ${extra} ${underLimit})
        AND (${LIVE('activations', '?3')}
             OR (SELECT count(*) FROM activations c WHERE c.key_id = activations.key_id AND c.device_fingerprint != ?1 AND ${LIVE('c', '?3')})
              + (SELECT count(*) FROM held_slots h WHERE h.key_id = activations.key_id AND h.frees_at > ?3 AND h.device_fingerprint != ?1)
              < (SELECT max_activations FROM license_keys WHERE id = activations.key_id))
      RETURNING id`,
    input.deviceFingerprint,
    input.key,
    now,
    graceMs,
    ...more,
    ...(guard ? underLimitParams(guard) : []),
  );
}

const LEASE_OF_KEY = `(SELECT p.lease_minutes FROM license_keys k JOIN products p ON p.id = k.product_id WHERE k.id = activations.key_id) * ${MINUTE_MS}`;

async function seatBatch(d1: D1Database, update: ReturnType<typeof rawSql>, input: SeatInput, now: number, guard?: AddressGuard) {
  const results = await runBatch(d1, [
    ...(guard ? [missesStatement(guard)] : []),
    update,
    keyStatement(input.key, input.deviceFingerprint, now),
  ]);
  if (guard) assertRowsUnderLimit(guard, results.shift());
  const [updated, after] = results;
  return { renewed: (updated as unknown[]).length === 1, row: (after as KeyRow[])[0] ?? null };
}

/**
 * POST /heartbeat: a floating device renews its lease (a node-locked device is only seen). The
 * answer is signed like a validation's, its offline token no longer than the new lease.
 */
export async function heartbeatLicense(
  d1: D1Database,
  settings: Settings,
  input: SeatInput,
  now = Date.now(),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const lease = `CASE WHEN lease_expires_at IS NULL THEN NULL ELSE max(?3 + ${LEASE_OF_KEY}, coalesce(borrowed_until, 0)) END`;
  const update = seatUpdate(`lease_expires_at = ${lease}`, input, now, settings.keyExpiryGracePeriod * DAY_MS, '', guard);
  const { renewed, row } = await seatBatch(d1, update, input, now, guard);
  if (!row) return unknownKey(d1, input.key, guard);
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  if (!row.activation_id) return notActivated(row, now);
  if (!renewed) return leaseExpired(row, now, true);
  return valid(row, s, now, isFloating(row) ? `Seat lease renewed until ${iso(row.lease_expires_at!)}` : 'License is valid');
}

/**
 * POST /borrow: a floating device takes its seat for offline use for `hours` (at most the product's
 * borrow maximum). Its offline token lives until the borrow ends, and so does the seat: no heartbeat
 * is needed meanwhile, and a check-in does not free it earlier.
 */
export async function borrowSeat(
  d1: D1Database,
  settings: Settings,
  input: SeatInput & { hours: number },
  now = Date.now(),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const until = now + input.hours * HOUR_MS;
  const set = 'borrowed_until = ?5, lease_expires_at = max(coalesce(lease_expires_at, 0), ?5)';
  const extra = `AND p.license_model = 'floating' AND ?6 <= p.borrow_max_hours`;
  const update = seatUpdate(set, input, now, settings.keyExpiryGracePeriod * DAY_MS, extra, guard, [until, input.hours]);
  const { renewed, row } = await seatBatch(d1, update, input, now, guard);
  if (!row) return unknownKey(d1, input.key, guard);
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  const max = row.borrow_max_hours ?? 0;
  if (!isFloating(row) || max === 0) {
    const detail = isFloating(row)
      ? "This product's seats cannot be borrowed"
      : "Only floating licenses borrow seats: a node-locked device's offline token already works offline";
    return { valid: false, code: 'BORROW_NOT_ALLOWED', detail, license: describe(row, now) };
  }
  if (input.hours > max) {
    return {
      valid: false,
      code: 'BORROW_NOT_ALLOWED',
      detail: `A seat of this product may be borrowed for at most ${max} hour${max === 1 ? '' : 's'}`,
      license: describe(row, now),
    };
  }
  if (!row.activation_id) return notActivated(row, now);
  if (!renewed) return leaseExpired(row, now, true);
  return valid(row, s, now, `Seat borrowed until ${iso(row.borrowed_until!)}`);
}
