// Device activation and validation for licensed software: the product's hot path.
// One round trip of indexed reads answers a validation (the key, and the address's count of unknown
// keys when the route passes a guard); an activation is one atomic batch whose conditional insert
// holds the device limit under any concurrency, slots held by released devices included.
import { rawSql, runBatch, sqlFirst, type SqlStatement } from '../../platform/db/client';
import { bindingOf } from '../../platform/db/session';
import type { DeviceInfo } from '../../platform/db/schema';
import { newId } from '../../platform/ids';
import { DEFAULT_OFFLINE_TOKEN_HOURS, heldUntil, holdSlotStatement } from './held-slots';
import { noteTouch, type TouchKind } from '../../platform/touches';
import {
  assertUnderLimit,
  countMiss,
  isRetiredKey,
  missesColumn,
  missesParams,
  underLimitParams,
  underLimitSql,
  type AddressGuard,
} from './throttle';
import { DAY_MS, hasPassed, HOUR_MS, type KeyStatus, type LicenseCode } from '../../platform/vocabulary';
import type { Settings } from '../settings';
import { activationEvent, dispatchCommitted } from '../webhooks';
import { hasPassedSql } from '../../platform/db/expiry';

/** `lastUsed` is written at most this often per device, so validation stays read-mostly. */
export const LAST_USED_WRITE_MS = 5 * 60 * 1000;

/** A device's lastUsed, in the isolate's batch of touches (platform/touches.ts); never moved back. */
const DEVICE_TOUCH: TouchKind = {
  name: 'device lastUsed',
  sql: `UPDATE activations SET last_used = json_extract(j.value, '$[1]')
  FROM json_each(?1) AS j
  WHERE activations.id = json_extract(j.value, '$[0]')
    AND (activations.last_used IS NULL OR activations.last_used < json_extract(j.value, '$[1]'))`,
};

/**
 * Notes that a device (its activation) was seen at `at`: the batch's write when this call opened it,
 * else null. A failed write needs no retry mark: the device's row still says it is due.
 */
export const noteDeviceSeen = (d1: D1Database, activationId: string, at: number, windowMs?: number) =>
  noteTouch(d1, DEVICE_TOUCH, activationId, at, [], windowMs);

type KeyRow = {
  /** The address's unknown keys this window, when the statement was guarded. */
  misses?: number;
  id: string;
  key: string;
  status: KeyStatus;
  product_id: string;
  product_name: string;
  product_key_tag: string;
  product_type: string;
  duration: number;
  max_activations: number;
  purchased_at: number | null;
  expires_at: number | null;
  product_active: number | null;
  activation_id: string | null;
  last_used: number | null;
  activation_count: number;
  token_hours: number | null;
};

/** With the slots that released devices still hold (the activation and deactivation read these). */
type FullKeyRow = KeyRow & { held_count: number; next_slot_frees_at: number | null; own_slot_frees_at: number | null };

const KEY_QUERY = `
  SELECT k.id, k.key, k.status, k.product_id, k.product_name, k.product_key_tag, k.product_type, k.duration,
         k.max_activations, k.purchased_at, k.expires_at, p.is_active AS product_active,
         a.id AS activation_id, a.last_used,
         (SELECT count(*) FROM activations c WHERE c.key_id = k.id) AS activation_count,
         p.offline_token_hours AS token_hours%HELD%
    FROM license_keys k
    LEFT JOIN products p ON p.id = k.product_id
    LEFT JOIN activations a ON a.key_id = k.id AND a.device_fingerprint = ?1
   WHERE k.key = ?2`;

// ?3 is now: a hold counts while it has not freed.
const HELD_COLUMNS = `,
         (SELECT count(*) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?3 AND h.device_fingerprint != ?1) AS held_count,
         (SELECT min(h.frees_at) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?3 AND h.device_fingerprint != ?1) AS next_slot_frees_at,
         (SELECT h.frees_at FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?3 AND h.device_fingerprint = ?1) AS own_slot_frees_at`;

const KEY_SQL = KEY_QUERY.replace('%HELD%', '');
const FULL_KEY_SQL = KEY_QUERY.replace('%HELD%', HELD_COLUMNS);
// With the address's count of unknown keys this window, when the call is limited by address.
const GUARDED_KEY_SQL = KEY_QUERY.replace('%HELD%', missesColumn(3));
const GUARDED_FULL_KEY_SQL = KEY_QUERY.replace('%HELD%', HELD_COLUMNS + missesColumn(4));

const keyStatement = (key: string, fingerprint: string, guard?: AddressGuard) =>
  guard ? rawSql(GUARDED_KEY_SQL, fingerprint, key, ...missesParams(guard)) : rawSql(KEY_SQL, fingerprint, key);
const fullKeyStatement = (key: string, fingerprint: string, now: number, guard?: AddressGuard) =>
  guard ? rawSql(GUARDED_FULL_KEY_SQL, fingerprint, key, now, ...missesParams(guard)) : rawSql(FULL_KEY_SQL, fingerprint, key, now);

/** The address's count, read in the key's statement: 429 when it was over its limit (an unknown key is judged by countMiss). */
function checkAddress(guard: AddressGuard | undefined, row: { misses?: number } | null) {
  if (guard && row) assertUnderLimit(guard, row.misses ?? 0);
}

/** The key, read with the address's count when there is a guard (one statement), after its limit is checked. */
async function readFirst<Row extends { misses?: number }>(
  d1: D1Database,
  statement: SqlStatement,
  guard?: AddressGuard,
): Promise<Row | null> {
  const row = await sqlFirst<Row>(d1, statement);
  checkAddress(guard, row);
  return row;
}

/**
 * An unknown key counts against the address that sent it, unless it is a value a regeneration
 * replaced: that one answers KEY_REGENERATED, so the app can ask its customer for the new key.
 */
async function unknownKey(d1: D1Database, key: string, guard?: AddressGuard): Promise<LicenseResult> {
  const retired = guard ? (await countMiss(d1, guard, key)) === 'retired' : await isRetiredKey(d1, key);
  if (!retired) return notFound();
  return { valid: false, code: 'KEY_REGENERATED', detail: 'This license key was replaced by a new one. Use the new key.', license: null };
}

export type LicenseResult = {
  valid: boolean;
  code: LicenseCode;
  detail: string;
  /** Until when an offline token issued with this answer may live; null: no token. */
  tokenExpiresAt?: number | null;
  /** When a released device's slot frees: the deactivated one, or the next when held slots refuse an activation. */
  slotFreesAt?: number | null;
  license: null | {
    key: string;
    status: KeyStatus;
    product: { name: string; keyTag: string; productType: string };
    expiresAt: number | null;
    maxActivations: number;
    activationCount: number;
  };
};

/** When a key stops working: its stored expiry, or purchase + duration for a purchased key. */
export function keyExpiry(row: Pick<KeyRow, 'status' | 'expires_at' | 'purchased_at' | 'duration'>): number | null {
  if (row.expires_at !== null) return row.expires_at;
  if (row.status !== 'available' && row.purchased_at !== null) return row.purchased_at + row.duration * DAY_MS;
  return null;
}

type Standing = { code: 'REVOKED' | 'EXPIRED'; detail: string } | { code: 'OK'; graceEndsAt: number | null; expiry: number | null };

function standing(row: KeyRow, settings: Settings, now: number): Standing {
  if (row.status === 'revoked') return { code: 'REVOKED', detail: 'This license key has been revoked' };
  const expiry = keyExpiry(row);
  const graceEnd = expiry === null ? null : expiry + settings.keyExpiryGracePeriod * DAY_MS;
  if (row.status === 'expired' || hasPassed(graceEnd, now)) {
    return { code: 'EXPIRED', detail: `This license key expired on ${new Date(expiry ?? now).toISOString()}` };
  }
  return { code: 'OK', expiry, graceEndsAt: hasPassed(expiry, now) ? graceEnd : null };
}

function describe(
  row: KeyRow,
  now: number,
  activationCount = row.activation_count,
  status?: KeyStatus,
  expiresAt?: number | null,
): NonNullable<LicenseResult['license']> {
  const expiry = expiresAt === undefined ? keyExpiry(row) : expiresAt;
  const shownStatus = status ?? (row.status === 'used' && hasPassed(expiry, now) ? 'expired' : row.status);
  return {
    key: row.key,
    status: shownStatus,
    product: { name: row.product_name, keyTag: row.product_key_tag, productType: row.product_type },
    expiresAt: expiry,
    maxActivations: row.max_activations,
    activationCount,
  };
}

const notFound = (): LicenseResult => ({ valid: false, code: 'NOT_FOUND', detail: 'No license key matches', license: null });

/**
 * A VALID answer's offline token lives for the product's lifetime, never past the key's expiry, or,
 * in the grace period, the grace period's end. One that would be born expired (under a second
 * left once rounded to whole seconds) is not issued.
 */
function tokenExpiry(row: KeyRow, s: Extract<Standing, { code: 'OK' }>, now: number): number | null {
  // The row's own expiry: a first activation has just started a generated key's clock.
  const end = s.graceEndsAt ?? keyExpiry(row) ?? Number.POSITIVE_INFINITY;
  const exp = Math.min(now + (row.token_hours ?? DEFAULT_OFFLINE_TOKEN_HOURS) * HOUR_MS, end);
  // `exp` is whole seconds: what is left after rounding down must be a second at least.
  return Math.floor(exp / 1000) * 1000 - now >= 1000 ? exp : null;
}

const valid = (row: KeyRow, s: Extract<Standing, { code: 'OK' }>, now: number, detail: string): LicenseResult => ({
  valid: true,
  code: 'VALID',
  detail: validDetail(s, detail),
  tokenExpiresAt: tokenExpiry(row, s, now),
  license: describe(row, now),
});

const iso = (ms: number) => new Date(ms).toISOString();

function validDetail(s: Extract<Standing, { code: 'OK' }>, base: string): string {
  if (s.graceEndsAt === null) return base;
  return `${base}; the license expired on ${new Date(s.expiry!).toISOString()} and works until the grace period ends on ${new Date(s.graceEndsAt).toISOString()}`;
}

/**
 * Whether a key may take a new device now: the SQL twin of `standing` (not revoked, not past its
 * expiry and grace) and of the inactive-product rule for unused keys. The activation's insert uses
 * it, so the one batch that reads the key also takes the slot; `activateLicense` answers from the
 * key as it was, with `standing`, and a test holds the two to the same verdicts.
 */
const KEY_EXPIRY = `COALESCE(k.expires_at, CASE WHEN k.status != 'available' AND k.purchased_at IS NOT NULL THEN k.purchased_at + k.duration * ${DAY_MS} END)`;
const MAY_TAKE_DEVICE = `
  k.status NOT IN ('revoked', 'expired')
  AND (k.status != 'available' OR p.is_active = 1)
  AND NOT ${hasPassedSql(`${KEY_EXPIRY} + ?6`, '?5')}`;

export async function activateLicense(
  d1: D1Database,
  settings: Settings,
  input: { key: string; deviceFingerprint: string; deviceInfo?: DeviceInfo },
  now = Date.now(),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const activationId = newId(now);
  const graceMs = settings.keyExpiryGracePeriod * DAY_MS;
  // With a guard, the address's limit is read first and holds the insert back too.
  const underLimit = guard ? `AND ${underLimitSql(7)}` : '';
  // One round trip: the key as it was, the activation (if it may have one), and the key as the batch
  // left it. An activation made starts a generated key's clock and counts on its product (a trigger,
  // migration 0008), and takes back the slot this device held as a released one (migration 0010); its
  // webhook event goes in with it.
  const results = await runBatch(d1, [
    fullKeyStatement(input.key, input.deviceFingerprint, now, guard),
    // The limit and the insert are one statement, so concurrent activations can never exceed it.
    // Slots held by released devices (offline tokens still alive) count against it, except this
    // device's own: it is the same device coming back.
    rawSql(
      `INSERT INTO activations (id, key_id, device_fingerprint, device_info, activated_at, last_used)
         SELECT ?1, k.id, ?3, ?4, ?5, ?5
           FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
          WHERE k.key = ?2 AND ${MAY_TAKE_DEVICE} ${underLimit}
            AND (SELECT count(*) FROM activations c WHERE c.key_id = k.id)
              + (SELECT count(*) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?5 AND h.device_fingerprint != ?3) < k.max_activations
         ON CONFLICT (key_id, device_fingerprint) DO NOTHING
         RETURNING id`,
      activationId,
      input.key,
      input.deviceFingerprint,
      input.deviceInfo ? JSON.stringify(input.deviceInfo) : null,
      now,
      graceMs,
      ...(guard ? underLimitParams(guard) : []),
    ),
    fullKeyStatement(input.key, input.deviceFingerprint, now),
    activationEvent('license.activated', activationId, now),
  ]);
  const [before, insert, after, ...events] = results;
  await dispatchCommitted(events, d1);
  const row = (before as FullKeyRow[])[0] ?? null;
  checkAddress(guard, row);
  const again = (after as FullKeyRow[])[0] ?? null;
  // RETURNING answers only a row that went in (D1's `changes` would count the triggers' writes too).
  const made = (insert as unknown[]).length === 1;
  if (!row) return unknownKey(d1, input.key, guard);
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  if (row.activation_id) return valid(row, s, now, 'Device already activated');
  if (row.status === 'available' && row.product_active !== 1) {
    return {
      valid: false,
      code: 'PRODUCT_INACTIVE',
      detail: 'This product is no longer available for activation',
      license: describe(row, now),
    };
  }
  if (made) return valid(again ?? row, s, now, 'Device activated');
  // Not inserted: the limit was reached, or the same device won a race with itself.
  if (again?.activation_id) return valid(again, s, now, 'Device already activated');
  return limitReached(again ?? row, now);
}

function limitReached(row: FullKeyRow, now: number): LicenseResult {
  const max = row.max_activations;
  const limit = `This license key is already activated on ${max} device${max === 1 ? '' : 's'}, its limit`;
  const license = describe(row, now);
  // Released devices may still hold offline tokens: their slots free when those have expired.
  if (row.held_count > 0 && row.next_slot_frees_at !== null && row.activation_count < max) {
    const held = row.held_count;
    return {
      valid: false,
      code: 'DEVICE_LIMIT_REACHED',
      detail: `All ${max} device slot${max === 1 ? ' is' : 's are'} taken: ${held} by device${held === 1 ? '' : 's'} released while ${held === 1 ? 'its' : 'their'} offline tokens may still be in use. A slot frees at ${iso(row.next_slot_frees_at)}.`,
      slotFreesAt: row.next_slot_frees_at,
      license,
    };
  }
  return { valid: false, code: 'DEVICE_LIMIT_REACHED', detail: limit, slotFreesAt: null, license };
}

/**
 * Checks a key on a device. A device last seen more than LAST_USED_WRITE_MS ago also has its lastUsed
 * written, in a batch with the other touches of the isolate (platform/touches.ts): bookkeeping the answer does
 * not wait for when `later` runs it after the response (the route passes the request's waitUntil);
 * by default it is awaited.
 */
export async function validateLicense(
  d1: D1Database,
  settings: Settings,
  input: { key: string; deviceFingerprint: string },
  now = Date.now(),
  later: (work: Promise<unknown>) => Promise<void> = async (work) => void (await work),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const row = await readFirst<KeyRow>(d1, keyStatement(input.key, input.deviceFingerprint, guard), guard);
  if (!row) return unknownKey(d1, input.key, guard);
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  if (!row.activation_id) {
    return {
      valid: false,
      code: 'NOT_ACTIVATED',
      detail: 'This device is not activated for this license key',
      license: describe(row, now),
    };
  }
  if (row.last_used === null || now - row.last_used >= LAST_USED_WRITE_MS) {
    // Through the binding, not this request's session: the batch outlives the request that opens it.
    const written = noteDeviceSeen(bindingOf(d1), row.activation_id, now);
    if (written) await later(written);
  }
  return valid(row, s, now, 'License is valid');
}

/**
 * Removes a device from a key (the app itself, the panel). Its slot stays held until the offline
 * tokens it may carry have expired (held-slots.ts); returns when it frees, or null when the device
 * was not there. The device uncounts on its product as it goes (a trigger, migration 0015).
 */
export async function removeActivation(
  d1: D1Database,
  device: { keyId: string; activationId: string; fingerprint: string },
  now = Date.now(),
): Promise<{ slotFreesAt: number } | null> {
  const { keyId, activationId, fingerprint } = device;
  // The device's webhook event is read before it goes.
  const [event, removed, held] = await runBatch(d1, [
    activationEvent('license.deactivated', activationId, now, { sql: ' AND a.key_id = ?4', params: [keyId] }),
    rawSql('DELETE FROM activations WHERE id = ?1 AND key_id = ?2 RETURNING id', activationId, keyId),
    holdSlotStatement(keyId, activationId, fingerprint, now),
  ]);
  await dispatchCommitted([event], d1);
  const freesAt = heldUntil(held);
  return (removed as unknown[]).length === 1 && freesAt !== null ? { slotFreesAt: freesAt } : null;
}

export async function deactivateLicense(
  d1: D1Database,
  input: { key: string; deviceFingerprint: string },
  now = Date.now(),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const row = await readFirst<FullKeyRow>(d1, fullKeyStatement(input.key, input.deviceFingerprint, now, guard), guard);
  if (!row) return unknownKey(d1, input.key, guard);
  const removed = row.activation_id
    ? await removeActivation(d1, { keyId: row.id, activationId: row.activation_id, fingerprint: input.deviceFingerprint }, now)
    : null;
  if (!removed) {
    // Deactivated before: its slot may still be held.
    const held = row.own_slot_frees_at;
    const detail = held === null ? '' : `; the slot it held frees at ${iso(held)}`;
    return {
      valid: false,
      code: 'NOT_ACTIVATED',
      detail: `This device is not activated for this license key${detail}`,
      slotFreesAt: held,
      license: describe(row, now),
    };
  }
  return {
    valid: false,
    code: 'DEACTIVATED',
    detail: `Device deactivated; its slot frees at ${iso(removed.slotFreesAt)}, when every offline token it may hold has expired`,
    slotFreesAt: removed.slotFreesAt,
    license: describe(row, now, row.activation_count - 1),
  };
}
