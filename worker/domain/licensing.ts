// Device activation and validation for licensed software: the product's hot path.
// One indexed read answers a validation; an activation is one atomic batch whose conditional
// insert holds the device limit under any concurrency.
import { bindingOf } from '../db/session';
import type { DeviceInfo, KeyStatus } from '../db/schema';
import { newId } from '../lib/ids';
import type { LicenseCode } from '../schemas/licensing';
import type { Settings } from '../schemas/settings';
import { noteDeviceSeen } from './last-used';
import { activationEvent, asD1, dispatchCommitted } from './webhook-outbox';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** `lastUsed` is written at most this often per device, so validation stays read-mostly. */
export const LAST_USED_WRITE_MS = 5 * 60 * 1000;

type KeyRow = {
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
};

const KEY_QUERY = `
  SELECT k.id, k.key, k.status, k.product_id, k.product_name, k.product_key_tag, k.product_type, k.duration,
         k.max_activations, k.purchased_at, k.expires_at, p.is_active AS product_active,
         a.id AS activation_id, a.last_used,
         (SELECT count(*) FROM activations c WHERE c.key_id = k.id) AS activation_count
    FROM license_keys k
    LEFT JOIN products p ON p.id = k.product_id
    LEFT JOIN activations a ON a.key_id = k.id AND a.device_fingerprint = ?1
   WHERE k.key = ?2`;

const keyStatement = (d1: D1Database, key: string, fingerprint: string) => d1.prepare(KEY_QUERY).bind(fingerprint, key);

function readKey(d1: D1Database, key: string, fingerprint: string) {
  return keyStatement(d1, key, fingerprint).first<KeyRow>();
}

export type LicenseResult = {
  valid: boolean;
  code: LicenseCode;
  detail: string;
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
  if (row.status === 'expired' || (graceEnd !== null && now > graceEnd)) {
    return { code: 'EXPIRED', detail: `This license key expired on ${new Date(expiry ?? now).toISOString()}` };
  }
  return { code: 'OK', expiry, graceEndsAt: expiry !== null && now > expiry ? graceEnd : null };
}

function describe(row: KeyRow, now: number, activationCount = row.activation_count, status?: KeyStatus, expiresAt?: number | null): NonNullable<LicenseResult['license']> {
  const expiry = expiresAt === undefined ? keyExpiry(row) : expiresAt;
  const shownStatus = status ?? (row.status === 'used' && expiry !== null && now > expiry ? 'expired' : row.status);
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
  AND (${KEY_EXPIRY} IS NULL OR ?5 <= ${KEY_EXPIRY} + ?6)`;

export async function activateLicense(
  d1: D1Database,
  settings: Settings,
  input: { key: string; deviceFingerprint: string; deviceInfo?: DeviceInfo },
  now = Date.now(),
): Promise<LicenseResult> {
  const activationId = newId(now);
  const graceMs = settings.keyExpiryGracePeriod * DAY_MS;
  // One round trip: the key as it was, the activation (if it may have one), and the key as the batch
  // left it. An activation made starts a generated key's clock and counts on its product (a trigger,
  // migration 0008).
  const [before, insert, after, ...events] = await d1.batch([
    keyStatement(d1, input.key, input.deviceFingerprint),
    // The limit and the insert are one statement, so concurrent activations can never exceed it.
    d1
      .prepare(
        `INSERT INTO activations (id, key_id, device_fingerprint, device_info, activated_at, last_used)
         SELECT ?1, k.id, ?3, ?4, ?5, ?5
           FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
          WHERE k.key = ?2 AND ${MAY_TAKE_DEVICE}
            AND (SELECT count(*) FROM activations c WHERE c.key_id = k.id) < k.max_activations
         ON CONFLICT (key_id, device_fingerprint) DO NOTHING
         RETURNING id`,
      )
      .bind(activationId, input.key, input.deviceFingerprint, input.deviceInfo ? JSON.stringify(input.deviceInfo) : null, now, graceMs),
    keyStatement(d1, input.key, input.deviceFingerprint),
    asD1(d1, activationEvent('license.activated', activationId, now)),
  ]);
  await dispatchCommitted(events);
  const row = (before.results[0] as KeyRow | undefined) ?? null;
  const again = (after.results[0] as KeyRow | undefined) ?? null;
  // RETURNING answers only a row that went in (meta.changes would count the trigger's writes too).
  const made = insert.results.length === 1;
  if (!row) return notFound();
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  if (row.activation_id) {
    return { valid: true, code: 'VALID', detail: validDetail(s, 'Device already activated'), license: describe(row, now) };
  }
  if (row.status === 'available' && row.product_active !== 1) {
    return { valid: false, code: 'PRODUCT_INACTIVE', detail: 'This product is no longer available for activation', license: describe(row, now) };
  }
  if (made) {
    return { valid: true, code: 'VALID', detail: validDetail(s, 'Device activated'), license: describe(again ?? row, now) };
  }
  // Not inserted: the limit was reached, or the same device won a race with itself.
  if (again?.activation_id) return { valid: true, code: 'VALID', detail: validDetail(s, 'Device already activated'), license: describe(again, now) };
  return {
    valid: false,
    code: 'DEVICE_LIMIT_REACHED',
    detail: `This license key is already activated on ${row.max_activations} device${row.max_activations === 1 ? '' : 's'}, its limit`,
    license: describe(again ?? row, now),
  };
}

/**
 * Checks a key on a device. A device last seen more than LAST_USED_WRITE_MS ago also has its lastUsed
 * written, in a batch with other devices seen meanwhile (last-used.ts): bookkeeping the answer does
 * not wait for when `later` runs it after the response (the route passes the request's waitUntil);
 * by default it is awaited.
 */
export async function validateLicense(
  d1: D1Database,
  settings: Settings,
  input: { key: string; deviceFingerprint: string },
  now = Date.now(),
  later: (work: Promise<unknown>) => Promise<void> = async (work) => void (await work),
): Promise<LicenseResult> {
  const row = await readKey(d1, input.key, input.deviceFingerprint);
  if (!row) return notFound();
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  if (!row.activation_id) {
    return { valid: false, code: 'NOT_ACTIVATED', detail: 'This device is not activated for this license key', license: describe(row, now) };
  }
  if (row.last_used === null || now - row.last_used >= LAST_USED_WRITE_MS) {
    // Through the binding, not this request's session: the batch outlives the request that opens it.
    const written = noteDeviceSeen(bindingOf(d1), row.activation_id, now);
    if (written) await later(written);
  }
  return { valid: true, code: 'VALID', detail: validDetail(s, 'License is valid'), license: describe(row, now) };
}

/** Removes a device from a key, freeing its slot. Used by the app itself and by the panel. */
export async function removeActivation(d1: D1Database, keyId: string, productId: string, activationId: string): Promise<boolean> {
  const [event, removed] = await d1.batch([
    asD1(d1, activationEvent('license.deactivated', activationId, Date.now(), { sql: ' AND a.key_id = ?4', params: [keyId] })),
    d1.prepare('DELETE FROM activations WHERE id = ?1 AND key_id = ?2').bind(activationId, keyId),
    // changes() is the DELETE's count: the counter moves only when a row really went.
    d1.prepare('UPDATE products SET total_activations = max(total_activations - 1, 0) WHERE id = ?1 AND changes() = 1').bind(productId),
  ]);
  await dispatchCommitted([event]);
  return removed.meta.changes === 1;
}

export async function deactivateLicense(
  d1: D1Database,
  input: { key: string; deviceFingerprint: string },
  now = Date.now(),
): Promise<LicenseResult> {
  const row = await readKey(d1, input.key, input.deviceFingerprint);
  if (!row) return notFound();
  if (!row.activation_id || !(await removeActivation(d1, row.id, row.product_id, row.activation_id))) {
    return { valid: false, code: 'NOT_ACTIVATED', detail: 'This device is not activated for this license key', license: describe(row, now) };
  }
  return { valid: false, code: 'DEACTIVATED', detail: 'Device deactivated; its slot is free', license: describe(row, now, row.activation_count - 1) };
}
