// Trials: a licensed app asks for one with its device fingerprint and gets a trial key of the product
// (trialDays long, one device), activated on that device, in one batch. A device gets one trial of a
// product, ever: the key goes in only while no trial of the product names the device, and the trial's
// row (unique per product and device) goes in with it. When the device later activates a paid key of
// the product, the trial counts as converted (a trigger, migration 0020); the device keeps working.
//
// Bounded (issue 42): a network (an IPv4 address, an IPv6 /64, as everywhere else) starts at most
// TRIALS_PER_NETWORK_PER_DAY trials a UTC day, counted in D1 in the trial's own batch so concurrent
// starts never pass the bound (a 429 after it); and a trial key of a metered product carries the
// product's trial allowance of uses (at most its allowance; 0, the default, none), which never refills
// while the trial lasts (its refill period starts at the trial's end).
import { rawSql, runBatch } from '../../platform/db/client';
import { rateLimited, type Rule } from '../../platform/throttle';
import { newId } from '../../platform/ids';
import { DAY_MS } from '../../platform/vocabulary';
import type { DeviceInfo } from '../../platform/db/schema';
import type { Settings } from '../settings';
import { generateLicenseKey } from '../keys';
import { activationEvent, dispatchCommitted } from '../webhooks';
import { describe, fullKeyStatement, iso, leaseSql, standing, valid, type FullKeyRow, type LicenseResult } from './licensing';

export type TrialInput = { keyTag: string; deviceFingerprint: string; deviceInfo?: DeviceInfo };

/** Trials a network may start a UTC day: a household or an office trying a product, not a farm of fingerprints. */
export const TRIALS_PER_NETWORK_PER_DAY: Rule = { limit: 10, windowMs: DAY_MS };

/** The bucket of a network's trials (the network as platform/network.ts gives it: an IPv6 address by its /64). */
const trialBucket = (network: string | null) => `trial-network-day:${network ?? 'unknown'}`;

// The trial key a device already has for product ?2 (a key tag), with the same columns as a key read.
const EARLIER_TRIAL_SQL = `
  SELECT t.started_at, k.key FROM trials t JOIN products p ON p.id = t.product_id LEFT JOIN license_keys k ON k.id = t.key_id
   WHERE p.key_tag = ?1 AND t.device_fingerprint = ?2`;

export async function startTrial(
  d1: D1Database,
  settings: Settings,
  input: TrialInput,
  now = Date.now(),
  network: string | null = null,
): Promise<LicenseResult> {
  const keyId = newId(now);
  const key = generateLicenseKey(input.keyTag);
  const activationId = newId(now);
  const rule = TRIALS_PER_NETWORK_PER_DAY;
  const bucket = trialBucket(network);
  const windowStart = Math.floor(now / rule.windowMs) * rule.windowMs;
  const [product, earlier, started, made, , , activated, after, event] = await runBatch(d1, [
    rawSql('SELECT trial_days, is_active FROM products WHERE key_tag = ?1', input.keyTag),
    rawSql(EARLIER_TRIAL_SQL, input.keyTag, input.deviceFingerprint),
    rawSql('SELECT coalesce((SELECT count FROM rate_limits WHERE bucket = ?1 AND window_start = ?2), 0) AS n', bucket, windowStart),
    // The key is the trial's only when no trial of the product names this device and the network is
    // under its bound for the day. Its uses: the trial allowance, and no refill before the trial ends.
    rawSql(
      `INSERT INTO license_keys (id, key, status, product_id, product_name, product_key_tag, product_type, duration, max_activations,
                                 purchased_at, purchase_price, generation_method, expires_at, first_used_at, is_trial, created_at,
                                 usage_remaining, usage_period_start)
       SELECT ?1, ?2, 'used', p.id, p.name, p.key_tag, p.product_type, p.trial_days, 1, ?4, 0, 'automatic', ?4 + p.trial_days * ${DAY_MS}, ?4, 1, ?4,
              CASE WHEN p.usage_allowance IS NULL THEN NULL ELSE min(p.usage_allowance, p.trial_usage_allowance) END,
              CASE WHEN p.usage_allowance IS NULL OR p.usage_refill_days IS NULL THEN NULL ELSE ?4 + p.trial_days * ${DAY_MS} END
         FROM products p
        WHERE p.key_tag = ?3 AND p.is_active = 1 AND p.trial_days > 0
          AND NOT EXISTS (SELECT 1 FROM trials t WHERE t.product_id = p.id AND t.device_fingerprint = ?5)
          AND coalesce((SELECT count FROM rate_limits WHERE bucket = ?6 AND window_start = ?7), 0) < ?8
       RETURNING id`,
      keyId,
      key,
      input.keyTag,
      now,
      input.deviceFingerprint,
      bucket,
      windowStart,
      rule.limit,
    ),
    // The network's count moves only with a trial made.
    rawSql(
      `INSERT INTO rate_limits (bucket, window_start, count) SELECT ?1, ?2, 1 WHERE EXISTS (SELECT 1 FROM license_keys WHERE id = ?3)
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1`,
      bucket,
      windowStart,
      keyId,
    ),
    rawSql(
      `INSERT INTO trials (id, product_id, device_fingerprint, key_id, started_at) SELECT ?1, k.product_id, ?2, k.id, ?3 FROM license_keys k WHERE k.id = ?4`,
      newId(now),
      input.deviceFingerprint,
      now,
      keyId,
    ),
    rawSql(
      `INSERT INTO activations (id, key_id, device_fingerprint, device_info, activated_at, last_used, lease_expires_at)
       SELECT ?1, k.id, ?3, ?4, ?5, ?5, ${leaseSql('?5')} FROM license_keys k JOIN products p ON p.id = k.product_id WHERE k.id = ?2
       RETURNING id`,
      activationId,
      keyId,
      input.deviceFingerprint,
      input.deviceInfo ? JSON.stringify(input.deviceInfo) : null,
      now,
    ),
    fullKeyStatement(key, input.deviceFingerprint, now),
    activationEvent('license.trial_started', activationId, now),
  ]);
  await dispatchCommitted([event], d1);
  const offered = (product as Array<{ trial_days: number; is_active: number }>)[0];
  if (!offered) return { valid: false, code: 'NOT_FOUND', detail: `No product has the key tag ${input.keyTag}`, license: null };
  const row = (after as FullKeyRow[])[0];
  if ((made as unknown[]).length === 1 && (activated as unknown[]).length === 1 && row) {
    const s = standing(row, settings, now);
    if (s.code === 'OK') return valid(row, s, now, `Trial started; it ends at ${iso(row.expires_at!)}`, 'TRIAL_STARTED');
  }
  const previous = (earlier as Array<{ started_at: number; key: string | null }>)[0];
  // A trial the network's bound refused: told so (a device with a trial of its own is told that instead).
  if (!previous && offered.is_active && offered.trial_days > 0 && (started as Array<{ n: number }>)[0].n >= rule.limit) {
    throw rateLimited(rule, now, 'Too many trials were started from your network today.');
  }
  if (previous) {
    const [kept] = previous.key ? await runBatch(d1, [fullKeyStatement(previous.key, input.deviceFingerprint, now)]) : [[]];
    const trialKey = (kept as FullKeyRow[])[0];
    return {
      valid: false,
      code: 'TRIAL_ALREADY_USED',
      detail: `This device started a trial of this product at ${iso(previous.started_at)}; it cannot start another`,
      license: trialKey ? describe(trialKey, now) : null,
    };
  }
  return {
    valid: false,
    code: 'TRIAL_NOT_OFFERED',
    detail: offered.is_active ? 'This product offers no trial' : 'This product is no longer available',
    license: null,
  };
}
