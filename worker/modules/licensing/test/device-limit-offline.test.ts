// The device limit holds offline (issue 18): at no moment do more devices hold a live proof of a
// key (an activation, or an offline token that has not expired) than its maxActivations.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { activations, heldSlots, licenseKeys } from '../../../platform/db/schema';
import { HOLD_SLACK_MS } from '../held-slots';
import { activateLicense, deactivateLicense, validateLicense, type LicenseResult } from '../licensing';
import { runScheduledJobs } from '../../../scheduled';
import { newId } from '../../../platform/ids';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { api, db, signedInUser } from '../../../test/helpers';
import { auditOf } from '../../../test/key-admin-helpers';
import { makeProduct } from '../../../test/shop-helpers';
import { DAY_MS, HOUR_MS } from '../../../platform/vocabulary';

const settings = (grace = 0) => ({ ...DEFAULT_SETTINGS, keyExpiryGracePeriod: grace });

let counter = 0;
const device = () => `offline-device-${counter++}-${Date.now()}`;

/** A bought key of a new product: `maxActivations` devices, tokens of `hours`. */
async function keyFixture(options: { maxActivations?: number; hours?: number; expiresAt?: number; status?: 'used' | 'available' } = {}) {
  const maxActivations = options.maxActivations ?? 1;
  const product = await makeProduct({ maxActivations, offlineTokenHours: options.hours ?? 24 });
  const id = newId();
  const key = `${product.keyTag}-${newId().toUpperCase()}`;
  const status = options.status ?? 'used';
  const now = Date.now();
  await db()
    .insert(licenseKeys)
    .values({
      id,
      key,
      status,
      productId: product.id,
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: product.productType,
      duration: 365,
      maxActivations,
      purchasedAt: status === 'used' ? new Date(now) : null,
      expiresAt: status === 'used' ? new Date(options.expiresAt ?? now + 365 * DAY_MS) : null,
      createdAt: new Date(now),
    });
  return { id, key, product };
}

const activeDevices = async (keyId: string) =>
  new Set((await db().select().from(activations).where(eq(activations.keyId, keyId)).all()).map((a) => a.deviceFingerprint));
const heldOf = (keyId: string) => db().select().from(heldSlots).where(eq(heldSlots.keyId, keyId)).all();
const call = (path: 'activate' | 'validate' | 'deactivate', body: unknown, ip?: string) =>
  api('POST', `/api/v1/licenses/${path}`, { body, ip });

/** A token's real end: `exp` is whole seconds. */
const tokenEnd = (r: LicenseResult) => (r.tokenExpiresAt ? Math.floor(r.tokenExpiresAt / 1000) * 1000 : null);

describe('the device limit offline', () => {
  it('never lets more devices hold a live proof than the limit through activate, validate and deactivate cycles', async () => {
    const max = 2;
    const k = await keyFixture({ maxActivations: max, hours: 1 });
    const devices = Array.from({ length: 6 }, device);
    const tokenUntil = new Map<string, number>();
    // A fixed pseudo-random sequence, so a failure replays.
    let seed = 18;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let now = Date.now();
    const seen = { deactivated: 0, refusedForHeld: 0, activated: 0 };
    for (let step = 0; step < 100; step++) {
      now += next(30) * 60_000;
      const fp = devices[next(devices.length)];
      const op = next(3);
      const input = { key: k.key, deviceFingerprint: fp };
      const result =
        op === 0
          ? await activateLicense(env.DB, settings(), input, now)
          : op === 1
            ? await validateLicense(env.DB, settings(), input, now)
            : await deactivateLicense(env.DB, input, now);
      const end = tokenEnd(result);
      if (result.valid && end !== null) tokenUntil.set(fp, Math.max(tokenUntil.get(fp) ?? 0, end));
      if (result.code === 'DEACTIVATED') seen.deactivated++;
      if (op === 0 && result.code === 'VALID') seen.activated++;
      if (result.code === 'DEVICE_LIMIT_REACHED' && result.slotFreesAt) seen.refusedForHeld++;
      // Between operations proofs only expire, so checking after each one covers every moment.
      const active = await activeDevices(k.id);
      const live = devices.filter((d) => active.has(d) || (tokenUntil.get(d) ?? 0) > now);
      expect(live.length, `step ${step}: ${live.join(', ')}`).toBeLessThanOrEqual(max);
    }
    // The run went through every case the rule is about.
    expect(seen.deactivated).toBeGreaterThan(2);
    expect(seen.refusedForHeld).toBeGreaterThan(1);
    expect(seen.activated).toBeGreaterThan(2);
  });

  it('says when a released slot frees, refuses a new device until then with the time, and frees it then', async () => {
    const k = await keyFixture({ maxActivations: 1, hours: 2 });
    const [a, b] = [device(), device()];
    const t0 = Date.now();
    const on = await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: a }, t0);
    expect(tokenEnd(on)).toBe(Math.floor((t0 + 2 * HOUR_MS) / 1000) * 1000);
    const off = await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: a }, t0 + 1000);
    expect(off.code).toBe('DEACTIVATED');
    expect(off.slotFreesAt).toBe(t0 + 1000 + 2 * HOUR_MS + HOLD_SLACK_MS);
    expect(off.slotFreesAt!).toBeGreaterThan(tokenEnd(on)!);
    expect(off.detail).toContain(new Date(off.slotFreesAt!).toISOString());

    const refused = await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: b }, off.slotFreesAt! - 1);
    expect(refused).toMatchObject({ valid: false, code: 'DEVICE_LIMIT_REACHED', slotFreesAt: off.slotFreesAt });
    expect(refused.detail).toContain(`A slot frees at ${new Date(off.slotFreesAt!).toISOString()}`);
    expect((await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: b }, off.slotFreesAt!)).code).toBe('VALID');
    // The freed hold counts no more; its row waits for the scheduled job (below).
    expect((await heldOf(k.id)).map((h) => h.freesAt.getTime())).toEqual([off.slotFreesAt]);
  });

  it('lets the released device itself come back into its held slot, and keeps the later end when it leaves again', async () => {
    const k = await keyFixture({ maxActivations: 1, hours: 3 });
    const a = device();
    const t0 = Date.now();
    await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: a }, t0);
    const first = await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: a }, t0);
    const back = await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: a }, t0 + HOUR_MS);
    expect(back.code).toBe('VALID');
    expect(await heldOf(k.id)).toEqual([]);
    const again = await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: a }, t0 + HOUR_MS);
    expect(again.slotFreesAt).toBe(first.slotFreesAt! + HOUR_MS);
    // Deactivating twice says when the slot frees, and changes nothing.
    const twice = await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: a }, t0 + HOUR_MS + 5);
    expect(twice).toMatchObject({ code: 'NOT_ACTIVATED', slotFreesAt: again.slotFreesAt });
    expect(await heldOf(k.id)).toHaveLength(1);
  });

  it('holds the slot of a device its customer or the owner removed, as long as its tokens may live', async () => {
    const owner = await signedInUser('owner');
    const buyer = await signedInUser('user', { credits: 10_000 });
    const product = await makeProduct({ maxActivations: 2, offlineTokenHours: 5 });
    const bought = await api('POST', '/api/keys/purchase', { token: buyer.token, body: { productId: product.id, duration: 10 } });
    expect(bought.status).toBe(201);
    const key = bought.body.licenseKey.key;
    const keyId = bought.body.licenseKey._id;
    const [a, b, c] = [device(), device(), device()];
    for (const fp of [a, b]) expect((await call('activate', { key, deviceFingerprint: fp })).body.code).toBe('VALID');
    const [devA, devB] = (await db().select().from(activations).where(eq(activations.keyId, keyId)).all()).sort((x, y) =>
      x.deviceFingerprint === a ? -1 : y.deviceFingerprint === a ? 1 : 0,
    );

    const before = Date.now();
    expect((await api('DELETE', `/api/users/my-keys/${keyId}/activations/${devA.id}`, { token: buyer.token })).status).toBe(200);
    expect((await api('DELETE', `/api/admin/keys/${keyId}/activations/${devB.id}`, { token: owner.token })).status).toBe(200);
    const held = await heldOf(keyId);
    expect(held.map((h) => h.deviceFingerprint).sort()).toEqual([a, b].sort());
    for (const h of held) expect(h.freesAt.getTime()).toBeGreaterThanOrEqual(before + 5 * HOUR_MS + HOLD_SLACK_MS);
    const refused = await call('activate', { key, deviceFingerprint: c });
    expect(refused.body).toMatchObject({ code: 'DEVICE_LIMIT_REACHED', slotFreesAt: held.map((h) => h.freesAt.toISOString()).sort()[0] });
    // The product counts devices on keys, not held slots.
    expect(await db().select().from(activations).where(eq(activations.keyId, keyId)).all()).toHaveLength(0);

    // Customers and the owner see the held slots on the key.
    const mine = await api('GET', '/api/users/my-keys', { token: buyer.token });
    const listed = mine.body.keys.find((x: { _id: string }) => x._id === keyId);
    expect(listed!.heldSlots.map((h: { deviceFingerprint: string }) => h.deviceFingerprint).sort()).toEqual([a, b].sort());
  });

  it('holds the device limit when a deactivation races activations of new devices', async () => {
    const k = await keyFixture({ maxActivations: 1 });
    const a = device();
    expect((await call('activate', { key: k.key, deviceFingerprint: a })).body.code).toBe('VALID');
    const racing = await Promise.all([
      call('deactivate', { key: k.key, deviceFingerprint: a }),
      ...Array.from({ length: 12 }, () => call('activate', { key: k.key, deviceFingerprint: device() })),
    ]);
    expect(racing[0].body.code).toBe('DEACTIVATED');
    expect(racing.slice(1).map((r) => r.body.code)).toEqual(Array(12).fill('DEVICE_LIMIT_REACHED'));
    expect(await activeDevices(k.id)).toEqual(new Set());
    // The device that left may come back: it is the one holding the slot.
    expect((await call('activate', { key: k.key, deviceFingerprint: a })).body.code).toBe('VALID');
  });

  it('gives the one slot left to exactly one of many devices activating at once, held slots counted', async () => {
    const k = await keyFixture({ maxActivations: 3 });
    const [a, b] = [device(), device()];
    for (const fp of [a, b]) expect((await call('activate', { key: k.key, deviceFingerprint: fp })).body.code).toBe('VALID');
    expect((await call('deactivate', { key: k.key, deviceFingerprint: a })).body.code).toBe('DEACTIVATED');
    const results = await Promise.all(Array.from({ length: 20 }, () => call('activate', { key: k.key, deviceFingerprint: device() })));
    expect(results.filter((r) => r.body.code === 'VALID')).toHaveLength(1);
    expect(results.filter((r) => r.body.code === 'DEVICE_LIMIT_REACHED')).toHaveLength(19);
    expect((await activeDevices(k.id)).size).toBe(2);
    expect(await heldOf(k.id)).toHaveLength(1);
  });

  it('keeps a slot held as long as tokens issued before the owner shortened the lifetime', async () => {
    const owner = await signedInUser('owner');
    const k = await keyFixture({ maxActivations: 1, hours: 720 });
    const a = device();
    const on = await call('activate', { key: k.key, deviceFingerprint: a });
    const exp = decodeJwt(on.body.license!.token!).exp! * 1000;
    expect(exp).toBeGreaterThan(Date.now() + 29 * DAY_MS);
    const p = k.product;
    const body = {
      name: p.name,
      description: p.description,
      keyTag: p.keyTag,
      baseCreditCost: p.baseCreditCost,
      maxActivations: 1,
      offlineTokenHours: 1,
    };
    const put = await api('PUT', `/api/products/${p.id}`, { token: owner.token, body });
    expect(put.status).toBe(200);
    expect(put.body.offlineTokenHours).toBe(1);
    const off = await call('deactivate', { key: k.key, deviceFingerprint: a });
    expect(new Date(off.body.slotFreesAt!).getTime()).toBeGreaterThanOrEqual(exp);
    // New tokens have the new lifetime.
    const b = await keyFixture({ maxActivations: 1, hours: 1 });
    const short = await call('activate', { key: b.key, deviceFingerprint: a });
    const claims = decodeJwt(short.body.license!.token!);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(3600);
  });

  it('drops freed holds in the scheduled job', async () => {
    const k = await keyFixture({ maxActivations: 1, hours: 1 });
    const a = device();
    const t0 = Date.now();
    await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: a }, t0);
    const off = await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: a }, t0);
    await runScheduledJobs(env, off.slotFreesAt! - 1);
    expect(await heldOf(k.id)).toHaveLength(1);
    await runScheduledJobs(env, off.slotFreesAt!);
    expect(await heldOf(k.id)).toHaveLength(0);
  });
});

describe('offline tokens and the grace period', () => {
  it('gives a token issued in the grace period until the grace period ends, never less than a second', async () => {
    const now = Date.now();
    const expiry = now - DAY_MS;
    const k = await keyFixture({ maxActivations: 1, hours: 720, expiresAt: expiry });
    const fp = device();
    // Grace of 3 days: it ends two days from now, before 30 days of token.
    const on = await activateLicense(env.DB, settings(3), { key: k.key, deviceFingerprint: fp }, now);
    expect(on.code).toBe('VALID');
    expect(on.tokenExpiresAt).toBe(expiry + 3 * DAY_MS);
    // With under a second of grace left, the answer is VALID and carries no token.
    const end = expiry + 3 * DAY_MS;
    const late = await validateLicense(env.DB, settings(3), { key: k.key, deviceFingerprint: fp }, end - 400);
    expect(late).toMatchObject({ valid: true, code: 'VALID', tokenExpiresAt: null });
    const inTime = await validateLicense(env.DB, settings(3), { key: k.key, deviceFingerprint: fp }, end - 5000);
    expect(inTime.tokenExpiresAt).toBe(end);
  });

  it('never lets a token outlive the key', async () => {
    const now = Date.now();
    const k = await keyFixture({ maxActivations: 1, hours: 720, expiresAt: now + 2 * HOUR_MS });
    const on = await activateLicense(env.DB, settings(0), { key: k.key, deviceFingerprint: device() }, now);
    expect(on.tokenExpiresAt).toBe(now + 2 * HOUR_MS);
  });

  it('starts a generated key and caps its first token at the new expiry', async () => {
    const product = await makeProduct({ maxActivations: 1, offlineTokenHours: 720 });
    const id = newId();
    const key = `${product.keyTag}-${newId().toUpperCase()}`;
    await db().insert(licenseKeys).values({
      id,
      key,
      status: 'available',
      productId: product.id,
      productName: product.name,
      productKeyTag: product.keyTag,
      productType: product.productType,
      duration: 1,
      maxActivations: 1,
      createdAt: new Date(),
    });
    const now = Date.now();
    const on = await activateLicense(env.DB, settings(0), { key, deviceFingerprint: device() }, now);
    expect(on.tokenExpiresAt).toBe(now + DAY_MS);
  });
});

describe('DELETE /api/admin/keys/{id}/held-slots/{slotId}', () => {
  async function heldKey() {
    const k = await keyFixture({ maxActivations: 1 });
    const a = device();
    expect((await call('activate', { key: k.key, deviceFingerprint: a })).body.code).toBe('VALID');
    expect((await call('deactivate', { key: k.key, deviceFingerprint: a })).body.code).toBe('DEACTIVATED');
    const [slot] = await heldOf(k.id);
    return { ...k, slot, path: `/api/admin/keys/${k.id}/held-slots/${slot.id}` };
  }

  it('lets the owner release a held slot at once, recorded in the audit log', async () => {
    const owner = await signedInUser('owner');
    const k = await heldKey();
    const res = await api('DELETE', k.path, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Device slot released', licenseKey: { _id: k.id, heldSlots: [] } });
    expect(await heldOf(k.id)).toEqual([]);
    const [entry] = (await auditOf(k.id)).filter((e) => e.action === 'key.release_slot');
    expect(entry).toMatchObject({ actorId: owner.user.id, targetType: 'license_key', targetId: k.id });
    expect(entry.details).toMatchObject({
      key: k.key,
      slotId: k.slot.id,
      deviceFingerprint: k.slot.deviceFingerprint,
      freesAt: k.slot.freesAt.toISOString(),
    });
    // The slot is free: a new device takes it.
    expect((await call('activate', { key: k.key, deviceFingerprint: device() })).body.code).toBe('VALID');
    // Released twice: nothing left to release, and no second audit row.
    expect((await api('DELETE', k.path, { token: owner.token })).status).toBe(404);
    expect((await auditOf(k.id)).filter((e) => e.action === 'key.release_slot')).toHaveLength(1);
  });

  it('shows the held slot in the admin key list', async () => {
    const owner = await signedInUser('owner');
    const k = await heldKey();
    const list = await api('GET', `/api/admin/keys?search=${encodeURIComponent(k.key)}`, { token: owner.token });
    const listed = list.body.keys.find((x: { _id: string }) => x._id === k.id);
    expect(listed!.heldSlots).toEqual([
      {
        _id: k.slot.id,
        deviceFingerprint: k.slot.deviceFingerprint,
        releasedAt: k.slot.releasedAt.toISOString(),
        freesAt: k.slot.freesAt.toISOString(),
      },
    ]);
  });

  it('answers 404 for a slot of another key, and refuses everyone but the owner', async () => {
    const owner = await signedInUser('owner');
    const k = await heldKey();
    const other = await keyFixture();
    expect((await api('DELETE', `/api/admin/keys/${other.id}/held-slots/${k.slot.id}`, { token: owner.token })).status).toBe(404);
    for (const role of ['user', 'reseller'] as const) {
      const caller = await signedInUser(role);
      const res = await api('DELETE', k.path, { token: caller.token });
      expect(res.status).toBe(403);
    }
    expect((await api('DELETE', k.path)).status).toBe(401);
    expect(await heldOf(k.id)).toHaveLength(1);
  });
});
