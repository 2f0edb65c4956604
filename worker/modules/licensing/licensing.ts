// Device activation and validation for licensed software: the product's hot path.
// One round trip of indexed reads answers a validation (the key, and the address's count of unknown
// keys when the route passes a guard); an activation is one atomic batch whose conditional insert
// holds the device limit under any concurrency, slots held by released devices included. A floating
// product's key counts seats instead: a device's seat is its activation while its lease lives
// (`lease_expires_at`, compared with the request's time in the same conditional statement), so a seat
// whose lease ran out is free for the next device at once, with no job to clear it (seats.ts).
import { rawSql, runBatch, sqlFirst, type SqlStatement } from '../../platform/db/client';
import { bindingOf } from '../../platform/db/session';
import type { DeviceInfo } from '../../platform/db/schema';
import { newId } from '../../platform/ids';
import { DEFAULT_OFFLINE_TOKEN_HOURS } from './held-slots';
import { deviceExitStatements } from './device-exit';
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
import {
  DAY_MS,
  hasPassed,
  HOUR_MS,
  MINUTE_MS,
  type ExpiryModel,
  type KeyStatus,
  type LicenseCode,
  type LicenseModel,
} from '../../platform/vocabulary';
import type { Settings } from '../settings';
import { activationEvent, dispatchCommitted } from '../webhooks';
import { dispatchMails, newDeviceMail } from '../mail';
import { hasPassedSql } from '../../platform/db/expiry';
import { keyEntitlements, usageNow, type Usage } from '../catalog';

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

/**
 * A device's validations per UTC day (device_days, a key's history), counted in the isolate's batch
 * of touches: each row is `[activationId:day, lastAt, count]`, one batch's sightings of it added
 * together, and added to the day's row. A device removed before the batch is written loses them.
 */
const DEVICE_DAY_TOUCH: TouchKind = {
  name: 'device validations',
  sql: `INSERT INTO device_days (key_id, device_fingerprint, day, validations, last_at)
  SELECT a.key_id, a.device_fingerprint, json_extract(j.value, '$[1]') / ${DAY_MS}, json_extract(j.value, '$[2]'), json_extract(j.value, '$[1]')
    FROM json_each(?1) AS j
    JOIN activations a ON a.id = substr(json_extract(j.value, '$[0]'), 1, instr(json_extract(j.value, '$[0]'), ':') - 1)
   WHERE true
  ON CONFLICT (key_id, day, device_fingerprint) DO UPDATE
     SET validations = device_days.validations + excluded.validations, last_at = max(device_days.last_at, excluded.last_at)`,
  merge: ([knownAt, knownCount], [at, count]) => [Math.max(knownAt, at), knownCount + count],
};

/** Counts a validation of a device (its activation) on `at`'s UTC day: as noteDeviceSeen, the batch's write or null. */
export const noteDeviceValidated = (d1: D1Database, activationId: string, at: number, windowMs?: number) =>
  noteTouch(d1, DEVICE_DAY_TOUCH, `${activationId}:${Math.floor(at / DAY_MS)}`, at, [1], windowMs);

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
  expiry_model: ExpiryModel;
  is_trial: number;
  product_active: number | null;
  license_model: LicenseModel | null;
  lease_minutes: number | null;
  borrow_max_hours: number | null;
  activation_id: string | null;
  last_used: number | null;
  lease_expires_at: number | null;
  borrowed_until: number | null;
  activation_count: number;
  token_hours: number | null;
  /** JSON arrays: the product's entitlements and those granted to the key. */
  product_entitlements: string | null;
  key_entitlements: string;
  usage_allowance: number | null;
  usage_refill_amount: number | null;
  usage_refill_days: number | null;
  usage_remaining: number | null;
  usage_period_start: number | null;
};

/**
 * With the slots that released devices still hold, the next lease to end, and the key's recent
 * device removals against its swap budget (the activation, deactivation and swap read these).
 */
export type FullKeyRow = KeyRow & {
  held_count: number;
  next_slot_frees_at: number | null;
  own_slot_frees_at: number | null;
  next_lease_ends_at: number | null;
  swap_limit: number | null;
  swap_window_days: number | null;
  recent_removals: string;
};

/** An activation's first read: the full key, with the devices holding it as JSON. */
export type ActivationKeyRow = FullKeyRow & { bound_devices: string | null };

/**
 * An activation's insert, when the floating device is there already: its lease is renewed (never
 * below its borrow), and the device's own details kept unless the request brings new ones.
 */
export const RENEW_FLOATING_LEASE = `ON CONFLICT (key_id, device_fingerprint) DO UPDATE
            SET lease_expires_at = max(excluded.lease_expires_at, coalesce(activations.borrowed_until, 0)), last_used = excluded.last_used,
                device_info = coalesce(excluded.device_info, activations.device_info)
          WHERE activations.lease_expires_at IS NOT NULL`;

/** A device that holds its slot at ?3: a node-locked one (no lease), or a floating one whose lease lives. */
export const LIVE = (alias: string, at: string) => `(${alias}.lease_expires_at IS NULL OR ${alias}.lease_expires_at > ${at})`;

// ?1 is the device, ?2 the key, ?3 now.
const KEY_QUERY = `
  SELECT k.id, k.key, k.status, k.product_id, k.product_name, k.product_key_tag, k.product_type, k.duration,
         k.max_activations, k.purchased_at, k.expires_at, k.expiry_model, k.is_trial, p.is_active AS product_active,
         p.license_model, p.lease_minutes, p.borrow_max_hours,
         a.id AS activation_id, a.last_used, a.lease_expires_at, a.borrowed_until,
         (SELECT count(*) FROM activations c WHERE c.key_id = k.id AND ${LIVE('c', '?3')}) AS activation_count,
         p.offline_token_hours AS token_hours,
         p.entitlements AS product_entitlements, k.entitlements AS key_entitlements,
         p.usage_allowance, p.usage_refill_amount, p.usage_refill_days, k.usage_remaining, k.usage_period_start%HELD%
    FROM license_keys k
    LEFT JOIN products p ON p.id = k.product_id
    LEFT JOIN activations a ON a.key_id = k.id AND a.device_fingerprint = ?1
   WHERE k.key = ?2`;

// ?3 is now: a hold counts while it has not freed.
const HELD_COLUMNS = `,
         (SELECT count(*) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?3 AND h.device_fingerprint != ?1) AS held_count,
         (SELECT min(h.frees_at) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?3 AND h.device_fingerprint != ?1) AS next_slot_frees_at,
         (SELECT h.frees_at FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?3 AND h.device_fingerprint = ?1) AS own_slot_frees_at,
         (SELECT min(c.lease_expires_at) FROM activations c WHERE c.key_id = k.id AND c.lease_expires_at > ?3 AND c.device_fingerprint != ?1) AS next_lease_ends_at,
         p.swap_limit, p.swap_window_days,
         (SELECT json_group_array(r.removed_at) FROM device_removals r
           WHERE r.key_id = k.id AND r.counted AND r.removed_at > ?3 - coalesce(p.swap_window_days, 0) * ${DAY_MS}) AS recent_removals`;

const KEY_SQL = KEY_QUERY.replace('%HELD%', '');
const FULL_KEY_SQL = KEY_QUERY.replace('%HELD%', HELD_COLUMNS);
// With the address's count of unknown keys this window, when the call is limited by address.
const GUARDED_KEY_SQL = KEY_QUERY.replace('%HELD%', missesColumn(4));
const GUARDED_FULL_KEY_SQL = KEY_QUERY.replace('%HELD%', HELD_COLUMNS + missesColumn(4));

// An activation's first read: the full key with the devices holding it, as a refusal lists them
// (one column of the same statement, not a statement of its own).
const BOUND_DEVICES_COLUMN = `,
         (SELECT json_group_array(json_object('id', d.id, 'name', json_extract(d.device_info, '$.device'),
                   'model', json_extract(d.device_info, '$.model'), 'last_used', d.last_used, 'lease_expires_at', d.lease_expires_at)
                   ORDER BY d.activated_at, d.id)
            FROM (SELECT * FROM activations b WHERE b.key_id = k.id AND ${LIVE('b', '?3')} ORDER BY b.activated_at, b.id LIMIT 100) d) AS bound_devices`;
const ACTIVATION_KEY_SQL = KEY_QUERY.replace('%HELD%', HELD_COLUMNS + BOUND_DEVICES_COLUMN);
const GUARDED_ACTIVATION_KEY_SQL = KEY_QUERY.replace('%HELD%', HELD_COLUMNS + BOUND_DEVICES_COLUMN + missesColumn(4));

/**
 * What an activation's insert and its triggers change of the key read before it (the batch is one
 * transaction, so nothing else changes it between the two): the key's clock and status, this
 * device's row, and the count of live devices (a pending replacement may have gone).
 */
const ACTIVATED_KEY_SQL = `
  SELECT k.status, k.expires_at, a.id AS activation_id, a.last_used, a.lease_expires_at, a.borrowed_until,
         (SELECT count(*) FROM activations c WHERE c.key_id = k.id AND ${LIVE('c', '?3')}) AS activation_count
    FROM license_keys k
    LEFT JOIN activations a ON a.key_id = k.id AND a.device_fingerprint = ?1
   WHERE k.key = ?2`;

/** The full key with the devices holding it (`bound_devices`, JSON): what an activation answers from, a refusal included. */
export const activationKeyStatement = (key: string, fingerprint: string, now: number, guard?: AddressGuard) =>
  guard
    ? rawSql(GUARDED_ACTIVATION_KEY_SQL, fingerprint, key, now, ...missesParams(guard))
    : rawSql(ACTIVATION_KEY_SQL, fingerprint, key, now);

export const keyStatement = (key: string, fingerprint: string, now: number, guard?: AddressGuard) =>
  guard ? rawSql(GUARDED_KEY_SQL, fingerprint, key, now, ...missesParams(guard)) : rawSql(KEY_SQL, fingerprint, key, now);
export const fullKeyStatement = (key: string, fingerprint: string, now: number, guard?: AddressGuard) =>
  guard ? rawSql(GUARDED_FULL_KEY_SQL, fingerprint, key, now, ...missesParams(guard)) : rawSql(FULL_KEY_SQL, fingerprint, key, now);

/** The swaps a key has left now and, when none, when the next one is allowed (null: the product allows none). */
export function swapBudget(row: Pick<FullKeyRow, 'swap_limit' | 'swap_window_days' | 'recent_removals'>): {
  swapsLeft: number | null;
  nextSwapAt: number | null;
} {
  if (row.swap_limit === null) return { swapsLeft: null, nextSwapAt: null };
  const recent = (JSON.parse(row.recent_removals || '[]') as number[]).sort((a, b) => a - b);
  const left = Math.max(0, row.swap_limit - recent.length);
  if (left > 0 || row.swap_limit === 0) return { swapsLeft: left, nextSwapAt: null };
  // The window must drop enough removals to leave one free.
  const freeing = recent[recent.length - row.swap_limit];
  return { swapsLeft: 0, nextSwapAt: freeing + (row.swap_window_days ?? 0) * DAY_MS };
}

/** The address's count, read in the key's statement: 429 when it was over its limit (an unknown key is judged by countMiss). */
export function checkAddress(guard: AddressGuard | undefined, row: { misses?: number } | null) {
  if (guard && row) assertUnderLimit(guard, row.misses ?? 0);
}

/** The key, read with the address's count when there is a guard (one statement), after its limit is checked. */
export async function readFirst<Row extends { misses?: number }>(
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
export async function unknownKey(d1: D1Database, key: string, guard?: AddressGuard): Promise<LicenseResult> {
  const retired = guard ? (await countMiss(d1, guard, key)) === 'retired' : await isRetiredKey(d1, key);
  if (!retired) return notFound();
  return { valid: false, code: 'KEY_REGENERATED', detail: 'This license key was replaced by a new one. Use the new key.', license: null };
}

export type { KeyRow };

export type LicenseResult = {
  valid: boolean;
  code: LicenseCode;
  detail: string;
  /** Until when an offline token issued with this answer may live; null: no token. */
  tokenExpiresAt?: number | null;
  /** When a released device's slot frees: the deactivated one, or the next when held slots refuse an activation. */
  slotFreesAt?: number | null;
  /** A floating seat's lease: until when this device holds it (the heartbeat renews it). */
  leaseExpiresAt?: number | null;
  /** Until when this device's seat is borrowed for offline use. */
  borrowedUntil?: number | null;
  /** A refusal for the swap budget: when the next device removal is allowed (null: the product allows none). */
  nextSwapAt?: number | null;
  /** A refusal because the key is full: the devices holding it, so the app can offer to replace one. */
  devices?: BoundDevice[];
  /** A debit whose Idempotency-Key had debited before: this answer repeats that one. */
  replayed?: boolean;
  license: null | {
    key: string;
    status: KeyStatus;
    product: { name: string; keyTag: string; productType: string };
    expiresAt: number | null;
    maxActivations: number;
    activationCount: number;
    licenseModel: LicenseModel;
    expiryModel: ExpiryModel;
    trial: boolean;
    /** The product's entitlements and those granted to the key. */
    entitlements: string[];
    /** A metered key's uses now (null: its product is not metered). */
    usage: Usage | null;
  };
};

/** A device a key is bound to, as a refused activation lists it. */
export type BoundDevice = {
  id: string;
  name: string | null;
  model: string | null;
  lastSeenAt: number | null;
  leaseExpiresAt: number | null;
};

/** When a key stops working: its stored expiry, or purchase + duration for a purchased key; never for a perpetual one. */
export function keyExpiry(row: Pick<KeyRow, 'status' | 'expires_at' | 'purchased_at' | 'duration' | 'expiry_model'>): number | null {
  if (row.expires_at !== null) return row.expires_at;
  if (row.expiry_model === 'perpetual') return null;
  if (row.status !== 'available' && row.purchased_at !== null) return row.purchased_at + row.duration * DAY_MS;
  return null;
}

export type Standing = { code: 'REVOKED' | 'EXPIRED'; detail: string } | { code: 'OK'; graceEndsAt: number | null; expiry: number | null };

export function standing(row: KeyRow, settings: Settings, now: number): Standing {
  if (row.status === 'revoked') return { code: 'REVOKED', detail: 'This license key has been revoked' };
  const expiry = keyExpiry(row);
  const graceEnd = expiry === null ? null : expiry + settings.keyExpiryGracePeriod * DAY_MS;
  if (row.status === 'expired' || hasPassed(graceEnd, now)) {
    return { code: 'EXPIRED', detail: `This license key expired on ${new Date(expiry ?? now).toISOString()}` };
  }
  return { code: 'OK', expiry, graceEndsAt: hasPassed(expiry, now) ? graceEnd : null };
}

export function describe(
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
    licenseModel: row.license_model ?? 'node-locked',
    expiryModel: row.expiry_model,
    trial: row.is_trial === 1,
    entitlements: rowEntitlements(row),
    usage: rowUsage(row, now),
  };
}

/** The key's entitlements, read in its own statement (so validation stays one). */
export const rowEntitlements = (row: KeyRow) =>
  keyEntitlements(JSON.parse(row.product_entitlements ?? '[]') as string[], JSON.parse(row.key_entitlements || '[]') as string[]);

/** The key's uses at `now`, by catalog's rule (null: not metered). */
export const rowUsage = (row: KeyRow, now: number): Usage | null =>
  usageNow(
    {
      usageAllowance: row.usage_allowance,
      usageRefillAmount: row.usage_refill_amount,
      usageRefillDays: row.usage_refill_days,
      usageRemaining: row.usage_remaining,
      usagePeriodStart: row.usage_period_start,
    },
    now,
  );

export const isFloating = (row: KeyRow) => row.license_model === 'floating';

export const notFound = (): LicenseResult => ({ valid: false, code: 'NOT_FOUND', detail: 'No license key matches', license: null });

/** A key never used, of a product no longer sold: it takes no device. */
export const productInactive = (row: KeyRow, now: number): LicenseResult => ({
  valid: false,
  code: 'PRODUCT_INACTIVE',
  detail: 'This product is no longer available for activation',
  license: describe(row, now),
});

/** The key is known but this device holds nothing on it: activate first. */
export const notActivated = (row: KeyRow, now: number): LicenseResult => ({
  valid: false,
  code: 'NOT_ACTIVATED',
  detail: 'This device is not activated for this license key',
  license: describe(row, now),
});

/**
 * A VALID answer's offline token lives for the product's lifetime, never past the key's expiry, or,
 * in the grace period, the grace period's end. One that would be born expired (under a second
 * left once rounded to whole seconds) is not issued.
 */
function tokenExpiry(row: KeyRow, s: Extract<Standing, { code: 'OK' }> | 'updates-ended', now: number): number | null {
  // The row's own expiry: a first activation has just started a generated key's clock. A release
  // that outlived its perpetual-fallback key's updates works on, so its token is not cut at the expiry.
  const end = s === 'updates-ended' ? Number.POSITIVE_INFINITY : (s.graceEndsAt ?? keyExpiry(row) ?? Number.POSITIVE_INFINITY);
  // A floating seat's token lives no longer than the lease (or the borrow) that holds the seat.
  const lifetime = isFloating(row) ? (row.lease_expires_at ?? now) - now : (row.token_hours ?? DEFAULT_OFFLINE_TOKEN_HOURS) * HOUR_MS;
  const exp = Math.min(now + lifetime, end);
  // `exp` is whole seconds: what is left after rounding down must be a second at least.
  return Math.floor(exp / 1000) * 1000 - now >= 1000 ? exp : null;
}

export const valid = (
  row: KeyRow,
  s: Extract<Standing, { code: 'OK' }>,
  now: number,
  detail: string,
  code: 'VALID' | 'DEVICE_REPLACED' | 'TRIAL_STARTED' | 'OFFLINE_ACTIVATED' = 'VALID',
): LicenseResult => ({
  valid: true,
  code,
  detail: validDetail(s, detail),
  tokenExpiresAt: tokenExpiry(row, s, now),
  ...(isFloating(row) ? { leaseExpiresAt: row.lease_expires_at, borrowedUntil: liveBorrow(row, now) } : {}),
  license: describe(row, now),
});

const liveBorrow = (row: KeyRow, now: number) => (row.borrowed_until !== null && row.borrowed_until > now ? row.borrowed_until : null);

export const iso = (ms: number) => new Date(ms).toISOString();

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
const KEY_EXPIRY = `COALESCE(k.expires_at, CASE WHEN k.status != 'available' AND k.purchased_at IS NOT NULL AND k.expiry_model != 'perpetual' THEN k.purchased_at + k.duration * ${DAY_MS} END)`;
export const mayTakeDevice = (now: string, grace: string) => `
  k.status NOT IN ('revoked', 'expired')
  AND (k.status != 'available' OR p.is_active = 1)
  AND NOT ${hasPassedSql(`${KEY_EXPIRY} + ${grace}`, now)}`;
const MAY_TAKE_DEVICE = mayTakeDevice('?5', '?6');

/** A floating product's lease from ?at on, in SQL (NULL for a node-locked device, which holds its slot until removed). */
export const leaseSql = (at: string) => `CASE WHEN p.license_model = 'floating' THEN ${at} + p.lease_minutes * ${MINUTE_MS} END`;

/** The devices holding the key, from its activation read's `bound_devices` (oldest first, at most 100). */
export const boundDevices = (row: ActivationKeyRow): BoundDevice[] =>
  (
    JSON.parse(row.bound_devices || '[]') as Array<{
      id: string;
      name: string | null;
      model: string | null;
      last_used: number | null;
      lease_expires_at: number | null;
    }>
  ).map((d) => ({ id: d.id, name: d.name, model: d.model, lastSeenAt: d.last_used, leaseExpiresAt: d.lease_expires_at }));

/**
 * A device its customer asked to replace does not count against a new device: the new device's
 * insert makes it go (trigger activations_replace_pending, migration 0020). A device coming back to
 * its own row (a renewed lease, which fires no insert trigger) counts it.
 */
const NOT_PENDING_FOR_NEW = `(c.replace_pending_at IS NULL OR EXISTS (SELECT 1 FROM activations o WHERE o.key_id = k.id AND o.device_fingerprint = ?3))`;

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
  // webhook event goes in with it. A refusal lists the devices holding the key.
  const results = await runBatch(d1, [
    activationKeyStatement(input.key, input.deviceFingerprint, now, guard),
    // The limit and the insert are one statement, so concurrent activations can never exceed it.
    // Slots held by released devices (offline tokens still alive) count against it, except this
    // device's own: it is the same device coming back. A floating key counts live leases only, and a
    // device of its whose lease ran out takes a seat again by renewing its lease (the DO UPDATE).
    rawSql(
      `INSERT INTO activations (id, key_id, device_fingerprint, device_info, activated_at, last_used, lease_expires_at)
         SELECT ?1, k.id, ?3, ?4, ?5, ?5, ${leaseSql('?5')}
           FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
          WHERE k.key = ?2 AND ${MAY_TAKE_DEVICE} ${underLimit}
            AND (SELECT count(*) FROM activations c WHERE c.key_id = k.id AND c.device_fingerprint != ?3 AND ${LIVE('c', '?5')} AND ${NOT_PENDING_FOR_NEW})
              + (SELECT count(*) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?5 AND h.device_fingerprint != ?3) < k.max_activations
         ${RENEW_FLOATING_LEASE}
         RETURNING id`,
      activationId,
      input.key,
      input.deviceFingerprint,
      input.deviceInfo ? JSON.stringify(input.deviceInfo) : null,
      now,
      graceMs,
      ...(guard ? underLimitParams(guard) : []),
    ),
    rawSql(ACTIVATED_KEY_SQL, input.deviceFingerprint, input.key, now),
    activationEvent('license.activated', activationId, now),
    // Its holder is told of a new device (a notice they may turn off), when the shop sends notices.
    ...(settings.emailNotificationsEnabled ? [newDeviceMail(activationId, now)] : []),
  ]);
  const [before, insert, after, ...events] = results;
  await dispatchCommitted(events, d1);
  await dispatchMails(events, d1);
  const row = (before as ActivationKeyRow[])[0] ?? null;
  checkAddress(guard, row);
  // RETURNING answers only a row that went in or a lease renewed (D1's `changes` would count the triggers' writes too).
  const made = (insert as unknown[]).length === 1;
  if (!row) return unknownKey(d1, input.key, guard);
  // The key as the batch left it: unchanged unless the insert (and its triggers) wrote.
  const again: FullKeyRow = made ? { ...row, ...(after as Partial<KeyRow>[])[0] } : row;
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  const floating = isFloating(row);
  // A device holds its slot unless its lease ran out (a floating one, or one from before the product became node-locked).
  const holds = row.activation_id !== null && !hasPassed(row.lease_expires_at, now);
  if (holds && !floating) return valid(row, s, now, 'Device already activated');
  if (row.status === 'available' && row.product_active !== 1) return productInactive(row, now);
  if (made && floating) {
    return valid(again, s, now, holds ? 'Seat lease renewed' : 'Seat taken');
  }
  if (made) return valid(again, s, now, 'Device activated');
  // Not inserted: the limit was reached.
  return { ...limitReached(row, now), devices: boundDevices(row) };
}

export function limitReached(row: FullKeyRow, now: number): LicenseResult {
  const max = row.max_activations;
  const license = describe(row, now);
  if (isFloating(row)) {
    const next = [row.next_lease_ends_at, row.held_count > 0 ? row.next_slot_frees_at : null].filter((t): t is number => t !== null);
    const frees = next.length ? Math.min(...next) : null;
    return {
      valid: false,
      code: 'NO_SEAT_AVAILABLE',
      detail: `All ${max} seat${max === 1 ? ' is' : 's are'} in use${frees === null ? '' : `; the next frees at ${iso(frees)} unless its device renews its lease`}`,
      slotFreesAt: frees,
      license,
    };
  }
  const limit = `This license key is already activated on ${max} device${max === 1 ? '' : 's'}, its limit`;
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
 * The key and this device's activation, when the device may use the key now (validation, usage):
 * else the refusal (unknown key, its standing, a device not activated or whose seat lease ended).
 */
export async function liveDevice(
  d1: D1Database,
  settings: Settings,
  input: { key: string; deviceFingerprint: string },
  now: number,
  guard?: AddressGuard,
): Promise<{ refusal: LicenseResult } | { row: KeyRow & { activation_id: string }; standing: Extract<Standing, { code: 'OK' }> }> {
  const row = await readFirst<KeyRow>(d1, keyStatement(input.key, input.deviceFingerprint, now, guard), guard);
  if (!row) return { refusal: await unknownKey(d1, input.key, guard) };
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { refusal: { valid: false, code: s.code, detail: s.detail, license: describe(row, now) } };
  if (!row.activation_id) return { refusal: notActivated(row, now) };
  if (hasPassed(row.lease_expires_at, now)) return { refusal: leaseExpired(row, now) };
  return { row: row as KeyRow & { activation_id: string }, standing: s };
}

/**
 * Checks a key on a device. The validation is counted on its device's UTC day, and a device last seen
 * more than LAST_USED_WRITE_MS ago also has its lastUsed written, in a batch with other devices seen
 * meanwhile (platform/touches.ts): bookkeeping the answer does
 * not wait for when `later` runs it after the response (the route passes the request's waitUntil);
 * by default it is awaited.
 */
export async function validateLicense(
  d1: D1Database,
  settings: Settings,
  input: { key: string; deviceFingerprint: string; releaseDate?: string },
  now = Date.now(),
  later: (work: Promise<unknown>) => Promise<void> = async (work) => void (await work),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const row = await readFirst<KeyRow>(d1, keyStatement(input.key, input.deviceFingerprint, now, guard), guard);
  if (!row) return unknownKey(d1, input.key, guard);
  const s = standing(row, settings, now);
  const fallback = s.code === 'EXPIRED' ? updatesEnded(row, input.releaseDate) : null;
  if (s.code !== 'OK' && !fallback) {
    return { valid: false, code: s.code, detail: expiredDetail(row, s.detail), license: describe(row, now) };
  }
  if (!row.activation_id) return notActivated(row, now);
  if (hasPassed(row.lease_expires_at, now)) return leaseExpired(row, now);
  // Through the binding, not this request's session: the batch outlives the request that opens it.
  // Every validation is counted on its day; lastUsed is rewritten only when due. At most one of the
  // two opens the batch, which carries both.
  const counted = noteDeviceValidated(bindingOf(d1), row.activation_id, now);
  const seen =
    row.last_used === null || now - row.last_used >= LAST_USED_WRITE_MS ? noteDeviceSeen(bindingOf(d1), row.activation_id, now) : null;
  const written = counted ?? seen;
  if (written) await later(written);
  if (s.code !== 'OK' && fallback) {
    return {
      valid: true,
      code: 'UPDATES_ENDED',
      detail: `Updates for this license ended on ${iso(fallback.expiry)}; this release (${iso(fallback.release)}) keeps working. Renew the key for later releases.`,
      tokenExpiresAt: tokenExpiry(row, 'updates-ended', now),
      license: describe(row, now),
    };
  }
  return valid(row, s as Extract<Standing, { code: 'OK' }>, now, 'License is valid');
}

/**
 * A perpetual-fallback key past its expiry, asked about by a release dated before that expiry (by
 * the expiry rule: a release at the expiry itself is not before it): that release keeps working.
 * Null when the key is not such a key (revoked, another model), or the release is not given or later.
 */
export function updatesEnded(row: KeyRow, releaseDate: string | undefined): { expiry: number; release: number } | null {
  if (row.expiry_model !== 'perpetual-fallback' || row.status === 'revoked' || releaseDate === undefined) return null;
  const expiry = keyExpiry(row);
  const release = Date.parse(releaseDate);
  if (expiry === null || Number.isNaN(release) || hasPassed(expiry, release)) return null;
  return { expiry, release };
}

/** An EXPIRED answer's detail; a perpetual-fallback key's says which releases still work. */
function expiredDetail(row: KeyRow, detail: string): string {
  const expiry = keyExpiry(row);
  if (row.expiry_model !== 'perpetual-fallback' || row.status === 'revoked' || expiry === null) return detail;
  return `${detail}; releases dated before then keep working (send releaseDate), later ones need the key renewed`;
}

/** A floating device whose lease ran out: its seat may be anyone's now. */
export function leaseExpired(row: KeyRow, now: number, retaken = false): LicenseResult {
  const detail = retaken
    ? `This device's seat lease ended at ${iso(row.lease_expires_at ?? now)} and all ${row.max_activations} seats are in use now`
    : `This device's seat lease ended at ${iso(row.lease_expires_at ?? now)}: send a heartbeat or activate again to take a seat`;
  return { valid: false, code: 'LEASE_EXPIRED', detail, leaseExpiresAt: row.lease_expires_at, license: describe(row, now) };
}

/**
 * Removes a device from a key (the app itself, the panel) through its one way out (device-exit.ts):
 * its slot stays held until the offline tokens it may carry have expired; returns when it frees, or
 * null when the device was not there or, for a `counted` removal (the licensed app's, the
 * customer's), when the key's swap budget has none left. The device uncounts on its product as it
 * goes (a trigger, migration 0015). A floating device's tokens end with its lease (or borrow).
 */
export async function removeActivation(
  d1: D1Database,
  device: { keyId: string; activationId: string; fingerprint: string; tokensUntil?: number | null },
  now = Date.now(),
  counted = false,
): Promise<{ slotFreesAt: number } | null> {
  const exit = deviceExitStatements({ ...device, budget: counted ? 'counted' : 'exempt', slot: 'held' }, now);
  const results = await runBatch(d1, exit.statements);
  await dispatchCommitted(results, d1);
  const { left, slotFreesAt } = exit.outcome(results, 0);
  return left && slotFreesAt !== null ? { slotFreesAt } : null;
}

/** The refusal of a removal the key's swap budget has no room for. */
export function swapBudgetExhausted(row: FullKeyRow, now: number): LicenseResult {
  const { nextSwapAt } = swapBudget(row);
  const limit = row.swap_limit ?? 0;
  const detail =
    nextSwapAt === null
      ? "This license key's devices cannot be removed or replaced: its product allows no swaps"
      : `This license key has used its ${limit} device swap${limit === 1 ? '' : 's'} for ${row.swap_window_days} days; the next is allowed at ${iso(nextSwapAt)}`;
  return { valid: false, code: 'SWAP_BUDGET_EXHAUSTED', detail, nextSwapAt, license: describe(row, now) };
}

/**
 * The licensed app lets a device go. A node-locked device is removed (counted against the swap
 * budget; its slot stays held while its offline tokens live). A floating device checks its seat in:
 * the seat is free at once, or when its borrow ends, since the borrowed token lives until then.
 */
export async function deactivateLicense(
  d1: D1Database,
  input: { key: string; deviceFingerprint: string },
  now = Date.now(),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const row = await readFirst<FullKeyRow>(d1, fullKeyStatement(input.key, input.deviceFingerprint, now, guard), guard);
  if (!row) return unknownKey(d1, input.key, guard);
  if (isFloating(row) && row.activation_id) return checkIn(d1, row, now);
  const removed = row.activation_id
    ? await removeActivation(
        d1,
        {
          keyId: row.id,
          activationId: row.activation_id,
          fingerprint: input.deviceFingerprint,
          tokensUntil: row.lease_expires_at ?? undefined,
        },
        now,
        true,
      )
    : null;
  if (!removed && row.activation_id && swapBudget(row).swapsLeft === 0) return swapBudgetExhausted(row, now);
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

/** A floating device gives its seat back: its lease ends now, or when its borrow does. */
async function checkIn(d1: D1Database, row: FullKeyRow, now: number): Promise<LicenseResult> {
  const [ended, event] = await runBatch(d1, [
    rawSql(
      `UPDATE activations SET lease_expires_at = max(?2, coalesce(borrowed_until, 0))
        WHERE id = ?1 AND lease_expires_at > ?2 RETURNING lease_expires_at`,
      row.activation_id,
      now,
    ),
    activationEvent('license.seat_released', row.activation_id!, now, { sql: ' AND changes() = 1', params: [] }),
  ]);
  await dispatchCommitted([event], d1);
  const freesAt = (ended as Array<{ lease_expires_at: number }>)[0]?.lease_expires_at ?? null;
  if (freesAt === null) {
    return {
      valid: false,
      code: 'NOT_ACTIVATED',
      detail: 'This device holds no seat of this license key',
      slotFreesAt: null,
      license: describe(row, now),
    };
  }
  const wasLive = row.lease_expires_at !== null && row.lease_expires_at > now;
  return {
    valid: false,
    code: 'SEAT_RELEASED',
    detail:
      freesAt > now
        ? `Seat checked in; it stays taken until the borrow ends at ${iso(freesAt)}, when the offline token issued for it expires`
        : 'Seat checked in; it is free for the next device',
    slotFreesAt: freesAt,
    license: describe(row, now, row.activation_count - (wasLive && freesAt <= now ? 1 : 0)),
  };
}
