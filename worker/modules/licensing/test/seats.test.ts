// Licences that fit how software is used (issue 30): floating seats held by leases that heartbeats
// renew, borrowing, device swaps within a budget, trials. The limits are exact under concurrency:
// many devices race through the Worker itself, and at no moment do more devices hold a live seat
// than the key has.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { activations, auditLog, deviceRemovals, licenseKeys, trials } from '../../../platform/db/schema';
import { activateLicense, deactivateLicense, validateLicense } from '../licensing';
import { borrowSeat, heartbeatLicense } from '../seats';
import { replaceDevice } from '../swaps';
import { startTrial } from '../trials';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { api, db, signedInUser } from '../../../test/helpers';
import { makeProduct, usedKey } from '../../../test/shop-helpers';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../platform/vocabulary';
import type { ProductInput } from '../../catalog/schemas';

const settings = { ...DEFAULT_SETTINGS, keyExpiryGracePeriod: 0 };
let counter = 0;
const device = (name = 'seat-device') => `${name}-${counter++}-${Date.now()}`;

type Answer = {
  valid: boolean;
  code: string;
  detail: string;
  slotFreesAt?: string | null;
  leaseExpiresAt?: string | null;
  borrowedUntil?: string | null;
  nextSwapAt?: string | null;
  devices?: Array<{ id: string; name: string | null; model: string | null; lastSeenAt: string | null }>;
  license: {
    key: string;
    activationCount: number;
    maxActivations: number;
    licenseModel: string;
    trial: boolean;
    token: string | null;
  } | null;
};
const call = async (path: string, body: unknown) => {
  const res = await api('POST', `/api/v1/licenses/${path}`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.get('x-signature')).toBeTruthy();
  return res.body as unknown as Answer;
};

/** A bought key of a new product with these licensing fields. */
async function keyOf(fields: Partial<Record<keyof ProductInput, unknown>>) {
  const product = await makeProduct(fields);
  const { id, key } = await usedKey(product);
  return { id, key, product };
}

const floatingKey = (seats: number, more: Partial<Record<keyof ProductInput, unknown>> = {}) =>
  keyOf({ licenseModel: 'floating', maxActivations: seats, leaseMinutes: 10, ...more });

/** Devices holding a live seat of the key at `now`. */
async function liveSeats(keyId: string, now = Date.now()) {
  const rows = await db().select().from(activations).where(eq(activations.keyId, keyId)).all();
  return rows.filter((a) => a.leaseExpiresAt === null || a.leaseExpiresAt.getTime() > now).map((a) => a.deviceFingerprint);
}

const codes = (results: Array<{ code: string }>) =>
  results.reduce<Record<string, number>>((n, r) => ({ ...n, [r.code]: (n[r.code] ?? 0) + 1 }), {});

describe('floating seats', () => {
  it('gives 50 devices racing for 5 seats exactly 5, and lists the holders to the others', async () => {
    const k = await floatingKey(5);
    const devices = Array.from({ length: 50 }, () => device('racer'));
    const answers = await Promise.all(
      devices.map((fp) => call('activate', { key: k.key, deviceFingerprint: fp, deviceInfo: { device: `PC ${fp}`, model: 'X1' } })),
    );
    expect(codes(answers)).toEqual({ VALID: 5, NO_SEAT_AVAILABLE: 45 });
    const winners = devices.filter((_, i) => answers[i].valid);
    expect((await liveSeats(k.id)).sort()).toEqual([...winners].sort());
    const refused = answers.find((a) => !a.valid)!;
    expect(refused.devices?.map((d) => d.name).sort()).toEqual(winners.map((fp) => `PC ${fp}`).sort());
    expect(refused.devices?.every((d) => d.model === 'X1' && d.lastSeenAt !== null)).toBe(true);
    expect(refused.license?.activationCount).toBe(5);
    // A winner's offline token lives no longer than its lease.
    const won = answers.find((a) => a.valid)!;
    const exp = decodeJwt(won.license!.token!).exp! * 1000;
    expect(exp).toBeLessThanOrEqual(new Date(won.leaseExpiresAt!).getTime());
    expect(exp).toBeGreaterThan(Date.now() + 9 * MINUTE_MS);
  });

  it('frees the seats of devices that stop heartbeating, for exactly that many racing devices', async () => {
    const k = await floatingKey(5);
    const t0 = Date.now();
    const first = Array.from({ length: 5 }, () => device('steady'));
    for (const fp of first) expect((await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: fp }, t0)).code).toBe('VALID');
    // Three keep heartbeating; two stop.
    const t1 = t0 + 8 * MINUTE_MS;
    for (const fp of first.slice(0, 3)) {
      const beat = await heartbeatLicense(env.DB, settings, { key: k.key, deviceFingerprint: fp }, t1);
      expect(beat.code).toBe('VALID');
      expect(beat.leaseExpiresAt).toBe(t1 + 10 * MINUTE_MS);
    }
    // Before the leases run out, a newcomer is refused: when a seat frees is in the answer.
    const early = await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: device('early') }, t1);
    expect(early.code).toBe('NO_SEAT_AVAILABLE');
    expect(early.slotFreesAt).toBe(t0 + 10 * MINUTE_MS);
    // The stopped ones' leases end: 20 newcomers race for their 2 seats.
    const t2 = t0 + 10 * MINUTE_MS + 1;
    const newcomers = Array.from({ length: 20 }, () => device('newcomer'));
    const results = await Promise.all(newcomers.map((fp) => activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: fp }, t2)));
    expect(codes(results)).toEqual({ VALID: 2, NO_SEAT_AVAILABLE: 18 });
    expect(await liveSeats(k.id, t2)).toHaveLength(5);
    // A stopped device is told its lease ended; its heartbeat cannot take a seat back while all are taken.
    expect((await validateLicense(env.DB, settings, { key: k.key, deviceFingerprint: first[4] }, t2)).code).toBe('LEASE_EXPIRED');
    expect((await heartbeatLicense(env.DB, settings, { key: k.key, deviceFingerprint: first[4] }, t2)).code).toBe('LEASE_EXPIRED');
    // Once another seat frees, its heartbeat takes it again.
    const winner = newcomers[results.findIndex((r) => r.valid)];
    expect((await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: winner }, t2)).code).toBe('SEAT_RELEASED');
    expect((await heartbeatLicense(env.DB, settings, { key: k.key, deviceFingerprint: first[4] }, t2 + 1)).code).toBe('VALID');
    expect(await liveSeats(k.id, t2 + 1)).toHaveLength(5);
  });

  it('never has more live seats than the key through random activations, heartbeats, check-ins and silences', async () => {
    const seats = 2;
    const k = await floatingKey(seats, { leaseMinutes: 10 });
    const devices = Array.from({ length: 6 }, () => device('random'));
    let seed = 30;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let now = Date.now();
    const seen = new Set<string>();
    for (let step = 0; step < 60; step++) {
      now += next(4) * MINUTE_MS;
      const input = { key: k.key, deviceFingerprint: devices[next(devices.length)] };
      // Activations half the time, heartbeats and check-ins the rest; the clock runs past some leases.
      const op = next(10);
      const r =
        op < 5
          ? await activateLicense(env.DB, settings, input, now)
          : op < 8
            ? await heartbeatLicense(env.DB, settings, input, now)
            : await deactivateLicense(env.DB, input, now);
      seen.add(r.code);
      expect((await liveSeats(k.id, now)).length).toBeLessThanOrEqual(seats);
    }
    expect([...seen]).toEqual(expect.arrayContaining(['VALID', 'NO_SEAT_AVAILABLE', 'SEAT_RELEASED']));
  });

  it('answers heartbeats through the API, signed, and tells a node-locked device it is valid', async () => {
    const k = await floatingKey(1);
    const fp = device();
    expect((await call('activate', { key: k.key, deviceFingerprint: fp })).license?.licenseModel).toBe('floating');
    const beat = await call('heartbeat', { key: k.key, deviceFingerprint: fp, nonce: 'n-1' });
    expect(beat).toMatchObject({ valid: true, code: 'VALID' });
    expect(new Date(beat.leaseExpiresAt!).getTime()).toBeGreaterThan(Date.now() + 9 * MINUTE_MS);
    expect((await call('heartbeat', { key: k.key, deviceFingerprint: device() })).code).toBe('NOT_ACTIVATED');
    const locked = await keyOf({ maxActivations: 1 });
    await call('activate', { key: locked.key, deviceFingerprint: fp });
    expect(await call('heartbeat', { key: locked.key, deviceFingerprint: fp })).toMatchObject({ valid: true, code: 'VALID' });
    expect((await api('POST', '/api/v1/licenses/heartbeat', { body: { key: k.key } })).status).toBe(400);
  });
});

describe('borrowing', () => {
  it('holds the seat with no heartbeat until the borrow ends, and its token lives as long', async () => {
    const k = await floatingKey(1, { borrowMaxHours: 48 });
    const t0 = Date.now();
    const fp = device('laptop');
    await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: fp }, t0);
    expect((await borrowSeat(env.DB, settings, { key: k.key, deviceFingerprint: fp, hours: 49 }, t0)).code).toBe('BORROW_NOT_ALLOWED');
    const borrowed = await borrowSeat(env.DB, settings, { key: k.key, deviceFingerprint: fp, hours: 24 }, t0);
    expect(borrowed).toMatchObject({ valid: true, code: 'VALID', borrowedUntil: t0 + 24 * HOUR_MS, tokenExpiresAt: t0 + 24 * HOUR_MS });
    // Long after the lease would have run out, the seat is still taken, even after a check-in.
    const later = t0 + 20 * HOUR_MS;
    const other = device('desk');
    expect((await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: other }, later)).code).toBe('NO_SEAT_AVAILABLE');
    const back = await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: fp }, later);
    expect(back).toMatchObject({ code: 'SEAT_RELEASED', slotFreesAt: t0 + 24 * HOUR_MS });
    expect((await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: other }, later)).code).toBe('NO_SEAT_AVAILABLE');
    expect((await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: other }, t0 + 24 * HOUR_MS)).code).toBe('VALID');
  });

  it('refuses a borrow where the product allows none, and through the API signs the token', async () => {
    const none = await floatingKey(1);
    const fp = device();
    await call('activate', { key: none.key, deviceFingerprint: fp });
    expect((await call('borrow', { key: none.key, deviceFingerprint: fp, hours: 1 })).code).toBe('BORROW_NOT_ALLOWED');
    const locked = await keyOf({});
    await call('activate', { key: locked.key, deviceFingerprint: fp });
    expect((await call('borrow', { key: locked.key, deviceFingerprint: fp, hours: 1 })).code).toBe('BORROW_NOT_ALLOWED');
    const k = await floatingKey(1, { borrowMaxHours: 8 });
    await call('activate', { key: k.key, deviceFingerprint: fp });
    const borrowed = await call('borrow', { key: k.key, deviceFingerprint: fp, hours: 8 });
    expect(borrowed.code).toBe('VALID');
    expect(decodeJwt(borrowed.license!.token!).exp! * 1000).toBe(Math.floor(new Date(borrowed.borrowedUntil!).getTime() / 1000) * 1000);
    expect((await api('POST', '/api/v1/licenses/borrow', { body: { key: k.key, deviceFingerprint: fp, hours: 0 } })).status).toBe(400);
  });
});

describe('device swaps within a budget', () => {
  it('replaces a device atomically, lists the devices on refusal, and counts every removal against the budget', async () => {
    const k = await keyOf({ maxActivations: 1, swapLimit: 2, swapWindowDays: 30 });
    const t0 = Date.now();
    const [a, b, c, d] = [device('a'), device('b'), device('c'), device('d')];
    await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: a, deviceInfo: { device: 'Old laptop', model: 'T480' } }, t0);
    const refused = await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: b }, t0);
    expect(refused.code).toBe('DEVICE_LIMIT_REACHED');
    expect(refused.devices).toEqual([expect.objectContaining({ name: 'Old laptop', model: 'T480', lastSeenAt: t0 })]);
    const aId = refused.devices![0].id;
    const swapped = await replaceDevice(env.DB, settings, { key: k.key, deviceFingerprint: b, replaceDeviceId: aId }, t0 + 1);
    expect(swapped).toMatchObject({ valid: true, code: 'DEVICE_REPLACED' });
    expect(swapped.tokenExpiresAt).toBeGreaterThan(t0);
    expect((await validateLicense(env.DB, settings, { key: k.key, deviceFingerprint: a }, t0 + 2)).code).toBe('NOT_ACTIVATED');
    expect((await validateLicense(env.DB, settings, { key: k.key, deviceFingerprint: b }, t0 + 2)).code).toBe('VALID');
    // The app's own deactivation counts too: that is the second and last swap.
    expect((await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: b }, t0 + 3 * DAY_MS)).code).toBe('DEACTIVATED');
    const cAt = t0 + 5 * DAY_MS;
    await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: c }, cAt + 2 * DAY_MS);
    const cRow = await db().select().from(activations).where(eq(activations.keyId, k.id)).get();
    const spent = await replaceDevice(env.DB, settings, { key: k.key, deviceFingerprint: d, replaceDeviceId: cRow!.id }, cAt + 2 * DAY_MS);
    expect(spent).toMatchObject({ valid: false, code: 'SWAP_BUDGET_EXHAUSTED', nextSwapAt: t0 + 1 + 30 * DAY_MS });
    expect((await deactivateLicense(env.DB, { key: k.key, deviceFingerprint: c }, cAt + 2 * DAY_MS)).code).toBe('SWAP_BUDGET_EXHAUSTED');
    // Nothing changed: C still holds the slot, D none.
    expect((await liveSeats(k.id)).includes(c)).toBe(true);
    // Once the first swap leaves the window, the next is allowed.
    const again = await replaceDevice(
      env.DB,
      settings,
      { key: k.key, deviceFingerprint: d, replaceDeviceId: cRow!.id },
      t0 + 1 + 30 * DAY_MS,
    );
    expect(again.code).toBe('DEVICE_REPLACED');
    expect(await db().select().from(deviceRemovals).where(eq(deviceRemovals.keyId, k.id)).all()).toHaveLength(3);
  });

  it('lets exactly one of many concurrent swaps of the last budget through, leaving one device', async () => {
    const k = await keyOf({ maxActivations: 1, swapLimit: 1 });
    const a = device('a');
    const first = await call('activate', { key: k.key, deviceFingerprint: a });
    expect(first.code).toBe('VALID');
    const refused = await call('activate', { key: k.key, deviceFingerprint: device() });
    const aId = refused.devices![0].id;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => call('replace-device', { key: k.key, deviceFingerprint: device('swap'), replaceDeviceId: aId })),
    );
    expect(answers.filter((x) => x.code === 'DEVICE_REPLACED')).toHaveLength(1);
    expect(answers.every((x) => ['DEVICE_REPLACED', 'SWAP_BUDGET_EXHAUSTED', 'NOT_ACTIVATED'].includes(x.code))).toBe(true);
    expect(await liveSeats(k.id)).toHaveLength(1);
    expect(await db().select().from(deviceRemovals).where(eq(deviceRemovals.keyId, k.id)).all()).toHaveLength(1);
  });

  it("replaces a customer's device from My Keys: it works until the next device takes its place", async () => {
    const buyer = await signedInUser('user', { credits: 10_000 });
    const product = await makeProduct({ maxActivations: 1, swapLimit: 3, swapWindowDays: 30 });
    const bought = await api('POST', '/api/keys/purchase', { token: buyer.token, body: { productId: product.id, duration: 10 } });
    const { key, _id: keyId } = bought.body.licenseKey;
    const [a, b] = [device('old'), device('new')];
    await call('activate', { key, deviceFingerprint: a });
    const aId = (await db().select().from(activations).where(eq(activations.keyId, keyId)).get())!.id;
    const swaps = await api('GET', `/api/users/my-keys/${keyId}/swaps` as const, { token: buyer.token });
    expect(swaps.body).toMatchObject({ swapLimit: 3, swapsLeft: 3, nextSwapAt: null });
    const path = `/api/users/my-keys/${keyId}/activations/${aId}/replace` as const;
    const asked = await api('POST', path, { token: buyer.token });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ swapsLeft: 2 });
    expect((await api('POST', path, { token: buyer.token })).status).toBe(409);
    // Nobody else can.
    const stranger = await signedInUser('user');
    expect((await api('POST', path, { token: stranger.token })).status).toBe(404);
    expect((await call('validate', { key, deviceFingerprint: a })).code).toBe('VALID');
    expect((await call('activate', { key, deviceFingerprint: b })).code).toBe('VALID');
    expect((await call('validate', { key, deviceFingerprint: a })).code).toBe('NOT_ACTIVATED');
    expect(await liveSeats(keyId)).toEqual([b]);
  });

  it('lets the owner release a floating seat at once, audited and not counted', async () => {
    const owner = await signedInUser('owner');
    const k = await floatingKey(1, { swapLimit: 0 });
    const fp = device();
    await call('activate', { key: k.key, deviceFingerprint: fp });
    const seat = (await db().select().from(activations).where(eq(activations.keyId, k.id)).get())!;
    const path = `/api/admin/keys/${k.id}/activations/${seat.id}/release` as const;
    const res = await api('POST', path, { token: owner.token });
    expect(res.status).toBe(200);
    expect((await call('activate', { key: k.key, deviceFingerprint: device() })).code).toBe('VALID');
    expect((await api('POST', path, { token: owner.token })).status).toBe(404);
    const audit = await db().select().from(auditLog).where(eq(auditLog.action, 'key.release_seat')).all();
    expect(audit.some((r) => r.targetId === k.id)).toBe(true);
    expect(await db().select().from(deviceRemovals).where(eq(deviceRemovals.keyId, k.id)).all()).toHaveLength(0);
  });
});

describe('trials', () => {
  it('gives a device one signed trial of a product, ever, even when it asks many times at once', async () => {
    const product = await makeProduct({ trialDays: 14 });
    const fp = device('trial');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call('trial', { keyTag: product.keyTag.toLowerCase(), deviceFingerprint: fp })),
    );
    expect(codes(answers)).toEqual({ TRIAL_STARTED: 1, TRIAL_ALREADY_USED: 7 });
    const started = answers.find((x) => x.code === 'TRIAL_STARTED')!;
    expect(started.license).toMatchObject({ trial: true, maxActivations: 1 });
    expect(decodeJwt(started.license!.token!).exp! * 1000).toBeLessThanOrEqual(Date.now() + 14 * DAY_MS);
    // The same key comes back to the device, which may validate with it.
    expect(answers.find((x) => x.code === 'TRIAL_ALREADY_USED')!.license?.key).toBe(started.license!.key);
    expect((await call('validate', { key: started.license!.key, deviceFingerprint: fp })).code).toBe('VALID');
    expect(await db().select().from(trials).where(eq(trials.productId, product.id)).all()).toHaveLength(1);
    // Another device gets its own.
    expect((await call('trial', { keyTag: product.keyTag, deviceFingerprint: device('trial') })).code).toBe('TRIAL_STARTED');
  });

  it('ends with its days, is refused where none is offered, and converts when the device activates a paid key', async () => {
    const product = await makeProduct({ trialDays: 7, maxActivations: 2 });
    const fp = device('convert');
    const t0 = Date.now();
    const started = await startTrial(env.DB, settings, { keyTag: product.keyTag, deviceFingerprint: fp }, t0);
    expect(started.code).toBe('TRIAL_STARTED');
    const trialKey = started.license!.key;
    expect((await validateLicense(env.DB, settings, { key: trialKey, deviceFingerprint: fp }, t0 + 7 * DAY_MS)).code).toBe('EXPIRED');
    expect((await call('trial', { keyTag: (await makeProduct()).keyTag, deviceFingerprint: fp })).code).toBe('TRIAL_NOT_OFFERED');
    expect((await call('trial', { keyTag: 'NOSUCHTAG9', deviceFingerprint: fp })).code).toBe('NOT_FOUND');
    expect((await api('POST', '/api/v1/licenses/trial', { body: { keyTag: 'a', deviceFingerprint: fp } })).status).toBe(400);
    const paid = await keyOf({});
    await db().update(licenseKeys).set({ productId: product.id }).where(eq(licenseKeys.id, paid.id)).run();
    expect((await activateLicense(env.DB, settings, { key: paid.key, deviceFingerprint: fp }, t0 + DAY_MS)).code).toBe('VALID');
    const trial = await db().select().from(trials).where(eq(trials.productId, product.id)).get();
    expect(trial?.convertedKeyId).toBe(paid.id);
  });
});
