// A device swap: device A's slot goes to device B in one batch, all or nothing, counted against the
// product's swap budget. The budget is claimed first (a removal row, inserted only while the key has
// swaps left), and A's DELETE and B's INSERT each run only when that row went in, so two swaps racing
// for the last swap cannot both pass, and A never goes without B taking its place. A's slot is not
// held for its offline tokens as a plain removal's is: B takes it at once, which the budget bounds.
import { rawSql, runBatch } from '../../platform/db/client';
import { newId } from '../../platform/ids';
import { DAY_MS } from '../../platform/vocabulary';
import type { Settings } from '../settings';
import { activationEvent, deviceReplacedEvent, dispatchCommitted } from '../webhooks';
import {
  describe,
  fullKeyStatement,
  iso,
  leaseSql,
  LIVE,
  mayTakeDevice,
  RENEW_FLOATING_LEASE,
  standing,
  swapBudget,
  swapBudgetExhausted,
  unknownKey,
  valid,
  type FullKeyRow,
  type LicenseResult,
} from './licensing';
import type { DeviceInfo } from '../../platform/db/schema';
import { withinSwapBudget } from './device-exit';
import { assertRowsUnderLimit, missesStatement, underLimitParams, underLimitSql, type AddressGuard } from './throttle';

export type ReplaceDeviceInput = { key: string; deviceFingerprint: string; replaceDeviceId: string; deviceInfo?: DeviceInfo };

/**
 * POST /replace-device: device `deviceFingerprint` takes the slot of the key's device
 * `replaceDeviceId` (an activation id, as a refused activation lists them).
 */
export async function replaceDevice(
  d1: D1Database,
  settings: Settings,
  input: ReplaceDeviceInput,
  now = Date.now(),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const removalId = newId(now);
  const activationId = newId(now);
  const graceMs = settings.keyExpiryGracePeriod * DAY_MS;
  const underLimit = guard ? `AND ${underLimitSql(7)}` : '';
  // Device ?2 of key ?1 may go at ?3 (grace ?4) for device ?5: the key may hold devices, A holds a
  // slot now, B is not A and holds none, and the budget has a swap left. (?6 is the removal's id.)
  const replaceable = `a.id = ?2 AND a.device_fingerprint != ?5 AND ${LIVE('a', '?3')}
      AND a.key_id = (SELECT k.id FROM license_keys k LEFT JOIN products p ON p.id = k.product_id WHERE k.key = ?1 AND ${mayTakeDevice('?3', '?4')} ${underLimit})
      AND NOT EXISTS (SELECT 1 FROM activations b WHERE b.key_id = a.key_id AND b.device_fingerprint = ?5 AND ${LIVE('b', '?3')})
      AND ${withinSwapBudget('a.key_id', '?3')}`;
  const params = [
    input.key,
    input.replaceDeviceId,
    now,
    graceMs,
    input.deviceFingerprint,
    removalId,
    ...(guard ? underLimitParams(guard) : []),
  ];
  const results = await runBatch(d1, [
    ...(guard ? [missesStatement(guard)] : []),
    fullKeyStatement(input.key, input.deviceFingerprint, now),
    rawSql(
      `SELECT a.id, a.device_fingerprint, a.lease_expires_at FROM activations a JOIN license_keys k ON k.id = a.key_id WHERE k.key = ?1 AND a.id = ?2`,
      input.key,
      input.replaceDeviceId,
    ),
    // The budget is claimed first; A's event is read while A is still there.
    rawSql(
      `INSERT INTO device_removals (id, key_id, device_fingerprint, removed_at, replaced)
         SELECT ?6, a.key_id, a.device_fingerprint, ?3, 1 FROM activations a WHERE ${replaceable}`,
      ...params,
    ),
    deviceReplacedEvent(input.replaceDeviceId, input.deviceFingerprint, now, {
      sql: ' AND EXISTS (SELECT 1 FROM device_removals WHERE id = ?5)',
      params: [removalId],
    }),
    rawSql(
      'DELETE FROM activations WHERE id = ?1 AND EXISTS (SELECT 1 FROM device_removals WHERE id = ?2) RETURNING id',
      input.replaceDeviceId,
      removalId,
    ),
    // B takes the slot A left (a floating device B whose lease ran out renews its row).
    rawSql(
      `INSERT INTO activations (id, key_id, device_fingerprint, device_info, activated_at, last_used, lease_expires_at)
         SELECT ?1, k.id, ?3, ?4, ?5, ?5, ${leaseSql('?5')}
           FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
          WHERE k.key = ?2 AND EXISTS (SELECT 1 FROM device_removals WHERE id = ?6)
         ${RENEW_FLOATING_LEASE}
         RETURNING id`,
      activationId,
      input.key,
      input.deviceFingerprint,
      input.deviceInfo ? JSON.stringify(input.deviceInfo) : null,
      now,
      removalId,
    ),
    fullKeyStatement(input.key, input.deviceFingerprint, now),
    activationEvent('license.activated', activationId, now),
  ]);
  if (guard) assertRowsUnderLimit(guard, results.shift());
  const [before, oldRows, , replacedEvent, removed, inserted, after, activatedEvent] = results;
  await dispatchCommitted([replacedEvent, activatedEvent], d1);
  const row = (before as FullKeyRow[])[0] ?? null;
  if (!row) return unknownKey(d1, input.key, guard);
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  const old = (oldRows as Array<{ id: string; device_fingerprint: string; lease_expires_at: number | null }>)[0] ?? null;
  const again = (after as FullKeyRow[])[0] ?? row;
  if ((removed as unknown[]).length === 1 && (inserted as unknown[]).length === 1) {
    return valid(again, s, now, `Device replaced: this device holds the slot of device ${input.replaceDeviceId}`, 'DEVICE_REPLACED');
  }
  const bLive = row.activation_id !== null && (row.lease_expires_at === null || row.lease_expires_at > now);
  if (bLive) return valid(row, s, now, 'This device is already activated on this license key; nothing was replaced');
  if (!old || (old.lease_expires_at !== null && old.lease_expires_at <= now)) {
    return {
      valid: false,
      code: 'NOT_ACTIVATED',
      detail: `The device to replace (${input.replaceDeviceId}) holds no slot of this license key`,
      license: describe(row, now),
    };
  }
  if (swapBudget(row).swapsLeft === 0) return swapBudgetExhausted(row, now);
  // The key changed between the reads and the swap (a concurrent swap took the budget or the device).
  const retry = swapBudget(again);
  if (retry.swapsLeft === 0) return swapBudgetExhausted(again, now);
  return {
    valid: false,
    code: 'NOT_ACTIVATED',
    detail: `The device to replace (${input.replaceDeviceId}) was removed or replaced meanwhile${retry.nextSwapAt ? `; next swap at ${iso(retry.nextSwapAt)}` : ''}`,
    license: describe(again, now),
  };
}
