// One expiry rule with one boundary (platform/vocabulary.ts `hasPassed`, platform/db/expiry.ts for
// SQL): a key that expires at T has expired at T itself, for the panel's status, its SQL filters and
// counts, the licensing API, the activation's guard and the expiry job alike.
import { env } from 'cloudflare:test';
import { and, count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { licenseKeys } from '../platform/db/schema';
import { DAY_MS, hasPassed } from '../platform/vocabulary';
import { expireKeys } from '../modules/keys/key-lifecycle';
import { effectiveStatus, effectiveStatusIs } from '../modules/keys/license-keys';
import { activateLicense, validateLicense } from '../modules/licensing/licensing';
import { DEFAULT_SETTINGS } from '../modules/settings/schemas';
import { db } from './helpers';
import { makeProduct, usedKey } from './shop-helpers';

const NO_GRACE = { ...DEFAULT_SETTINGS, keyExpiryGracePeriod: 0 };

/** A bought key of a new product (two devices) that expires at `expiresAt`. */
async function keyExpiringAt(expiresAt: number) {
  return usedKey(await makeProduct({ maxActivations: 2 }), { days: 30, expiresAt });
}

const matching = async (id: string, status: 'used' | 'expired', at: number) =>
  (
    await db()
      .select({ n: count() })
      .from(licenseKeys)
      .where(and(eq(licenseKeys.id, id), effectiveStatusIs(status, at)))
      .get()
  )?.n;

describe('the expiry rule', () => {
  it('has passed from the instant itself on, and never for no expiry', () => {
    expect(hasPassed(1_000, 999)).toBe(false);
    expect(hasPassed(1_000, 1_000)).toBe(true);
    expect(hasPassed(1_000, 1_001)).toBe(true);
    expect(hasPassed(null, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(hasPassed(undefined, 0)).toBe(false);
  });

  it('gives one verdict at the exact instant: status, SQL filter, licensing API, activation and the expiry job', async () => {
    const T = Date.now() + DAY_MS;
    const { id, key } = await keyExpiringAt(T);
    const row = { status: 'used' as const, expiresAt: new Date(T) };

    // A millisecond before: still good everywhere.
    expect(effectiveStatus(row, T - 1)).toBe('used');
    expect(await matching(id, 'used', T - 1)).toBe(1);
    expect(await matching(id, 'expired', T - 1)).toBe(0);
    const device = { key, deviceFingerprint: `expiry-device-${id}` };
    expect((await activateLicense(env.DB, NO_GRACE, device, T - 2)).code).toBe('VALID');
    expect((await validateLicense(env.DB, NO_GRACE, device, T - 1)).code).toBe('VALID');

    // At T: expired everywhere, and a second device is refused by the insert's own guard.
    expect(effectiveStatus(row, T)).toBe('expired');
    expect(await matching(id, 'used', T)).toBe(0);
    expect(await matching(id, 'expired', T)).toBe(1);
    const validated = await validateLicense(env.DB, NO_GRACE, device, T);
    expect(validated.code).toBe('EXPIRED');
    expect(validated.license?.status).toBe('expired');
    const second = await activateLicense(env.DB, NO_GRACE, { key, deviceFingerprint: `second-${id}` }, T);
    expect(second.code).toBe('EXPIRED');
    expect(second.license?.activationCount).toBe(1);

    // The expiry job: not a millisecond early, and at T it marks the key.
    await expireKeys(db(), NO_GRACE, T - 1);
    expect((await db().select().from(licenseKeys).where(eq(licenseKeys.id, id)).get())?.status).toBe('used');
    await expireKeys(db(), NO_GRACE, T);
    expect((await db().select().from(licenseKeys).where(eq(licenseKeys.id, id)).get())?.status).toBe('expired');
  });

  it('ends a grace period at its exact instant too', async () => {
    const T = Date.now() + 2 * DAY_MS;
    const { key } = await keyExpiringAt(T);
    const oneDayGrace = { ...DEFAULT_SETTINGS, keyExpiryGracePeriod: 1 };
    const device = { key, deviceFingerprint: `grace-device-${key}` };
    expect((await activateLicense(env.DB, oneDayGrace, device, T - 1)).code).toBe('VALID');
    const inGrace = await validateLicense(env.DB, oneDayGrace, device, T);
    expect(inGrace.code).toBe('VALID');
    expect(inGrace.license?.status).toBe('expired');
    expect((await validateLicense(env.DB, oneDayGrace, device, T + DAY_MS - 1)).code).toBe('VALID');
    expect((await validateLicense(env.DB, oneDayGrace, device, T + DAY_MS)).code).toBe('EXPIRED');
    expect((await activateLicense(env.DB, oneDayGrace, { key, deviceFingerprint: `late-${key}` }, T + DAY_MS)).code).toBe('EXPIRED');
  });
});
