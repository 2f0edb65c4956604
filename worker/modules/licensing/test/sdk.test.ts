// The licensing SDK (sdk/) against the real Worker in workerd: its fetch goes to the Worker's own
// handler, so every answer it verifies is one the licensing API really signed. Tampered, unsigned,
// replayed and foreign-signed answers, and expired or forged offline tokens, are refused.
import { env } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { createLicensing, memoryStore, nextStep, releaseCovered, TokenError, type LicensingOptions } from '../../../../sdk/src/index';
import { products, licenseKeys } from '../../../platform/db/schema';
import { newId } from '../../../platform/ids';
import { signBytes, signOfflineToken } from '../../../platform/signing';
import { api, db, freshIp } from '../../../test/helpers';

type Fetch = NonNullable<LicensingOptions['fetch']>;

/** The Worker itself, each call from its own address (per-address limits are tested elsewhere). */
const worker: Fetch = (url, init) =>
  exports.default.fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'cf-connecting-ip': freshIp() } });

let pem: string | null = null;
async function serverPem(): Promise<string> {
  pem ??= ((await api('GET', '/api/v1/licenses/public-key')).body as { pem: string }).pem;
  return pem;
}

/** A stranger's Ed25519 public key, as PEM: what an impostor would sign with. */
async function strangerPem(): Promise<string> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const spki = new Uint8Array((await crypto.subtle.exportKey('spki', pair.publicKey)) as ArrayBuffer);
  return `-----BEGIN PUBLIC KEY-----\n${btoa(String.fromCharCode(...spki))}\n-----END PUBLIC KEY-----\n`;
}

const noWait = { retry: { baseDelayMs: 1, maxDelayMs: 30_000 }, sleep: async () => {} };

async function client(options: Partial<LicensingOptions> = {}) {
  const store = options.store ?? memoryStore();
  return {
    store,
    sdk: createLicensing({ url: 'http://localhost', publicKey: await serverPem(), fetch: worker, store, ...noWait, ...options }),
  };
}

let counter = 0;
async function licenseKey(
  maxActivations = 1,
  model: Partial<typeof products.$inferInsert> = {},
  keyFields: Partial<typeof licenseKeys.$inferInsert> = {},
) {
  const productId = newId();
  const keyTag = `SDK${(counter++).toString(36).toUpperCase()}${Date.now().toString(36).slice(-5).toUpperCase()}`.slice(0, 10);
  await db()
    .insert(products)
    .values({
      id: productId,
      name: `SDK App ${keyTag}`,
      keyTag,
      baseCreditCost: 10,
      creditsPerDay: 1,
      maxActivations,
      isActive: true,
      createdAt: new Date(),
      ...model,
    });
  const key = `${keyTag}-${newId().toUpperCase()}`;
  await db()
    .insert(licenseKeys)
    .values({
      id: newId(),
      key,
      status: 'available',
      productId,
      productName: `SDK App ${keyTag}`,
      productKeyTag: keyTag,
      productType: 'software',
      duration: 30,
      maxActivations,
      generationMethod: 'automatic',
      createdAt: new Date(),
      ...keyFields,
    });
  return { key, keyTag };
}
const device = () => `sdk-device-${counter++}-${Date.now()}`;

/** The Worker's answer with its body changed after signing, the signature header kept. */
const tampering =
  (change: (text: string) => string): Fetch =>
  async (url, init) => {
    const res = await worker(url, init);
    return new Response(change(await res.text()), { status: res.status, headers: res.headers });
  };

describe('the licensing SDK and licence models', () => {
  it('sends the release date, and exposes UPDATES_ENDED and the model for a perpetual-fallback key past its expiry', async () => {
    const { key } = await licenseKey(1, { expiryModel: 'perpetual-fallback' }, { expiryModel: 'perpetual-fallback' });
    const fingerprint = device();
    const { sdk } = await client();
    const activated = await sdk.activate({ key, fingerprint });
    expect(activated.license).toMatchObject({ expiryModel: 'perpetual-fallback' });
    expect(activated.offlineToken).toMatchObject({ expiryModel: 'perpetual-fallback' });
    const expiry = Date.now() - 2 * 86_400_000;
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(expiry) })
      .where(eq(licenseKeys.key, key));

    const older = await sdk.validate({ key, fingerprint, releaseDate: new Date(expiry - 86_400_000) });
    expect(older).toMatchObject({ valid: true, code: 'UPDATES_ENDED', source: 'online', license: { expiryModel: 'perpetual-fallback' } });
    expect(nextStep(older)).toBe('use');
    expect(older.offlineToken!.licenseExpiresAt!.getTime()).toBe(Math.floor(expiry / 1000) * 1000);
    // Offline, the kept token answers the same question about a release.
    expect(releaseCovered(older.offlineToken!, new Date(expiry - 86_400_000))).toBe(true);
    expect(releaseCovered(older.offlineToken!, new Date(expiry + 86_400_000))).toBe(false);

    const newer = await sdk.validate({ key, fingerprint, releaseDate: '2099-01-01' });
    expect(newer).toMatchObject({ valid: false, code: 'EXPIRED', source: 'online' });
    expect(nextStep(newer)).toBe('buy');
  });
});

describe('the licensing SDK against the Worker', () => {
  it('activates, validates and deactivates, keeping the verified offline token until the server says no', async () => {
    const { key, keyTag } = await licenseKey(1);
    const fingerprint = device();
    const { sdk, store } = await client();
    const activated = await sdk.activate({ key: key.toLowerCase(), fingerprint, deviceInfo: { model: 'Test rig' } });
    expect(activated).toMatchObject({
      valid: true,
      code: 'VALID',
      source: 'online',
      license: { key, status: 'used', activationCount: 1, maxActivations: 1, product: { keyTag } },
    });
    expect(activated.license!.expiresAt).toBeInstanceOf(Date);
    expect(activated.offlineToken).toMatchObject({ key, fingerprint, keyTag });
    expect(activated.offlineToken!.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(await store.get(`${key}|${fingerprint}`)).toBe(activated.offlineToken!.token);

    expect(await sdk.validate({ key, fingerprint })).toMatchObject({ valid: true, code: 'VALID', source: 'online' });
    const other = await sdk.activate({ key, fingerprint: device() });
    expect(other).toMatchObject({ valid: false, code: 'DEVICE_LIMIT_REACHED', source: 'online', offlineToken: null });

    const off = await sdk.deactivate({ key, fingerprint });
    expect(off).toMatchObject({ valid: false, code: 'DEACTIVATED', source: 'online', offlineToken: null });
    expect(off.slotFreesAt!.getTime()).toBeGreaterThan(Date.now());
    expect(await store.get(`${key}|${fingerprint}`)).toBeUndefined();
    expect(await sdk.validate({ key, fingerprint })).toMatchObject({ valid: false, code: 'NOT_ACTIVATED', source: 'online' });
    expect(await sdk.validate({ key: `${keyTag}-NO-SUCH-KEY`, fingerprint })).toMatchObject({
      valid: false,
      code: 'NOT_FOUND',
      license: null,
    });
  });

  it('gives the API’s own refusal of a malformed request as REJECTED (that answer is signed too)', async () => {
    const { sdk } = await client();
    expect(await sdk.validate({ key: 'ANY-KEY', fingerprint: 'short' })).toMatchObject({
      valid: false,
      code: 'REJECTED',
      detail: 'deviceFingerprint must be at least 8 characters',
    });
  });

  it('refuses a tampered, unsigned, foreign-signed or replayed answer, and keeps what it had', async () => {
    const { key } = await licenseKey(2);
    const fingerprint = device();
    const { sdk: good, store } = await client();
    const first = await good.activate({ key, fingerprint });
    const kept = first.offlineToken!.token;
    const check = async (options: Partial<LicensingOptions>) => {
      const { sdk } = await client({ store, ...options });
      const result = await sdk.validate({ key, fingerprint });
      expect(result).toMatchObject({ valid: false, code: 'INVALID_SIGNATURE', source: 'none', license: null, offlineToken: null });
      expect(await store.get(`${key}|${fingerprint}`)).toBe(kept);
      return result;
    };
    // One byte of the signed body changed: a 30-day expiry made into a later one.
    await check({ fetch: tampering((text) => text.replace(/"expiresAt":"(\d)/, (_m, d) => `"expiresAt":"${(Number(d) + 1) % 10}`)) });
    // A refusal made to look like a pass.
    const { sdk: plain } = await client({ fetch: tampering((text) => text) });
    expect(await plain.validate({ key, fingerprint: device() })).toMatchObject({ code: 'NOT_ACTIVATED' });
    const { store: other } = await client();
    const { sdk: flipped } = await client({
      store: other,
      fetch: tampering((text) => text.replace('"valid":false', '"valid":true').replace('"NOT_ACTIVATED"', '"VALID"')),
    });
    expect(await flipped.validate({ key, fingerprint: device() })).toMatchObject({ valid: false, code: 'INVALID_SIGNATURE' });
    // No signature at all.
    await check({
      fetch: async (url, init) => {
        const res = await worker(url, init);
        const headers = new Headers(res.headers);
        headers.delete('x-signature');
        return new Response(res.body, { status: res.status, headers });
      },
    });
    // Signed by a key other than the pinned one.
    await check({ publicKey: await strangerPem() });
    // A genuine signed VALID answer, sent back later for another request: its nonce gives it away.
    let recorded: { body: string; headers: Headers } | null = null;
    const recording: Fetch = async (url, init) => {
      const res = await worker(url, init);
      const body = await res.text();
      recorded ??= { body, headers: res.headers };
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const { sdk: recorder } = await client({ store: memoryStore(), fetch: recording });
    expect(await recorder.validate({ key, fingerprint })).toMatchObject({ code: 'VALID' });
    const replayed = await check({
      fetch: () => Promise.resolve(new Response(recorded!.body, { status: 200, headers: recorded!.headers })),
    });
    expect(replayed.detail).toContain('nonce');
  });

  it('refuses an answer signed by the server’s key whose token is for another device', async () => {
    const { key, keyTag } = await licenseKey(1);
    const fingerprint = device();
    const { sdk } = await client({
      fetch: async (url, init) => {
        const res = await worker(url, init);
        const answer = await res.json<{ license: { token: string } }>();
        const now = Date.now();
        answer.license.token = await signOfflineToken(
          env,
          { key, fingerprint: 'someone-elses-device', keyTag, tokenExpiresAt: now + 3_600_000 },
          now,
        );
        const bytes = new Uint8Array(new TextEncoder().encode(JSON.stringify(answer)));
        return new Response(bytes, {
          status: 200,
          headers: { 'content-type': 'application/json', 'x-signature': await signBytes(env, bytes) },
        });
      },
    });
    const result = await sdk.activate({ key, fingerprint });
    expect(result).toMatchObject({ valid: false, code: 'INVALID_SIGNATURE' });
    expect(result.detail).toContain('another device fingerprint');
  });

  it('answers offline from the last good token until it expires, and never from an expired or forged one', async () => {
    const { key, keyTag } = await licenseKey(1);
    const fingerprint = device();
    const store = memoryStore();
    const { sdk } = await client({ store });
    const { offlineToken } = await sdk.activate({ key, fingerprint });
    const down: Fetch = () => Promise.reject(new TypeError('fetch failed'));
    let clock = Date.now();
    const { sdk: offline } = await client({ store, fetch: down, now: () => clock });
    expect(await offline.validate({ key, fingerprint })).toMatchObject({
      valid: true,
      code: 'VALID',
      source: 'offline',
      license: null,
      offlineToken: { token: offlineToken!.token },
    });
    // Not for another device or key, even with the token kept.
    expect(await offline.validate({ key, fingerprint: device() })).toMatchObject({ valid: false, code: 'UNREACHABLE', source: 'none' });
    // Past the token's expiry: no answer, and the dead token is dropped.
    clock = offlineToken!.expiresAt.getTime();
    expect(await offline.validate({ key, fingerprint })).toMatchObject({ valid: false, code: 'UNREACHABLE', source: 'none' });
    expect(await store.get(`${key}|${fingerprint}`)).toBeUndefined();

    // A token the server signed that has already expired, and one signed by a stranger.
    const now = Date.now();
    const expired = await signOfflineToken(env, { key, fingerprint, keyTag, tokenExpiresAt: now - 1000 }, now - 3_600_000);
    await store.set(`${key}|${fingerprint}`, expired);
    const { sdk: offlineNow } = await client({ store, fetch: down });
    expect(await offlineNow.validate({ key, fingerprint })).toMatchObject({ valid: false, code: 'UNREACHABLE' });
    await expect(offlineNow.verifyToken(expired)).rejects.toMatchObject({ problem: 'expired' });
    const [head, body, signature] = offlineToken!.token.split('.');
    const forged = `${head}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    await store.set(`${key}|${fingerprint}`, forged);
    expect(await offlineNow.checkOffline({ key, fingerprint })).toMatchObject({ valid: false, source: 'none' });
    await expect(offlineNow.verifyToken(forged)).rejects.toBeInstanceOf(TokenError);

    // A device whose clock runs past the token's lifetime still gets the server's verified VALID, with nothing to keep.
    const { sdk: ahead } = await client({ store, now: () => Date.now() + 40 * 24 * 3_600_000 });
    expect(await ahead.validate({ key, fingerprint })).toMatchObject({ valid: true, code: 'VALID', source: 'online', offlineToken: null });
    expect(await store.get(`${key}|${fingerprint}`)).toBeUndefined();
  });

  it('retries 5xx with backoff and 429 as Retry-After says, then answers from the server', async () => {
    const { key } = await licenseKey(1);
    const fingerprint = device();
    const waits: number[] = [];
    let calls = 0;
    const flaky: Fetch = async (url, init) => {
      calls++;
      if (calls === 1) return new Response('{"message":"down","code":"INTERNAL"}', { status: 503 });
      if (calls === 2)
        return new Response('{"message":"slow down","code":"RATE_LIMITED"}', { status: 429, headers: { 'Retry-After': '7' } });
      return worker(url, init);
    };
    const { sdk } = await client({
      fetch: flaky,
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
      retry: { baseDelayMs: 100 },
    });
    expect(await sdk.activate({ key, fingerprint })).toMatchObject({ valid: true, code: 'VALID', source: 'online' });
    expect(calls).toBe(3);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBe(7000);

    // Throttled for longer than it will wait: no retry, the kept token answers; without one, RATE_LIMITED.
    const throttled: Fetch = () => Promise.resolve(new Response('{}', { status: 429, headers: { 'Retry-After': '3600' } }));
    waits.length = 0;
    const { sdk: limited } = await client({
      fetch: throttled,
      store: (await client()).store,
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    expect(await limited.validate({ key, fingerprint })).toMatchObject({ valid: false, code: 'RATE_LIMITED', retryAfter: 3600 });
    expect(waits).toEqual([]);
  });
});

/** Timers a test runs by hand: the heartbeat's next beat waits here until `fire`. */
function manualTimers() {
  const pending: Array<{ run: () => void; ms: number; handle: number }> = [];
  let next = 0;
  return {
    pending,
    timers: {
      set: (run: () => void, ms: number) => {
        pending.push({ run, ms, handle: ++next });
        return next;
      },
      clear: (handle: unknown) => {
        const i = pending.findIndex((p) => p.handle === handle);
        if (i >= 0) pending.splice(i, 1);
      },
    },
    fire: () => pending.shift()!.run(),
  };
}

describe('the licensing SDK against the Worker, for each licence model', () => {
  it('floating: takes a seat, keeps it with heartbeats on its own timer, borrows it, and checks it in', async () => {
    const { key } = await licenseKey(1, { licenseModel: 'floating', leaseMinutes: 10, borrowMaxHours: 12 });
    const fingerprint = device();
    const clock = manualTimers();
    const { sdk, store } = await client({ timers: clock.timers });
    const taken = await sdk.activate({ key, fingerprint });
    expect(taken).toMatchObject({
      valid: true,
      code: 'VALID',
      license: { licenseModel: 'floating', maxActivations: 1, activationCount: 1 },
    });
    expect(taken.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 9 * 60_000);
    // The token lives no longer than the lease.
    expect(taken.offlineToken!.expiresAt.getTime()).toBeLessThanOrEqual(taken.leaseExpiresAt!.getTime());
    const other = await sdk.activate({ key, fingerprint: device() });
    expect(other).toMatchObject({ valid: false, code: 'NO_SEAT_AVAILABLE' });
    expect(other.devices).toHaveLength(1);

    const results: string[] = [];
    const heartbeat = sdk.startHeartbeat({ key, fingerprint }, { onResult: (r) => results.push(r.code) });
    // The first beat goes at once; the next waits about half of what is left of the lease.
    await vi.waitFor(() => expect(clock.pending).toHaveLength(1));
    expect(clock.pending[0].ms).toBeGreaterThan(4 * 60_000);
    expect(clock.pending[0].ms).toBeLessThanOrEqual(5 * 60_000);
    clock.fire();
    await vi.waitFor(() => expect(results).toHaveLength(2));
    await vi.waitFor(() => expect(clock.pending).toHaveLength(1));
    heartbeat.stop();
    expect(clock.pending).toHaveLength(0);
    expect(results).toEqual(['VALID', 'VALID']);

    const borrowed = await sdk.borrow({ key, fingerprint, hours: 12 });
    expect(borrowed).toMatchObject({ valid: true, code: 'VALID' });
    expect(borrowed.borrowedUntil!.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    expect(await store.get(`${key}|${fingerprint}`)).toBe(borrowed.offlineToken!.token);
    expect(borrowed.offlineToken!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    expect((await sdk.borrow({ key, fingerprint, hours: 13 })).code).toBe('BORROW_NOT_ALLOWED');

    const back = await sdk.deactivate({ key, fingerprint });
    expect(back).toMatchObject({ valid: false, code: 'SEAT_RELEASED', offlineToken: null });
    expect(back.slotFreesAt!.getTime()).toBe(borrowed.borrowedUntil!.getTime());
  });

  it('floating: when a heartbeat finds no server, answers from the kept token and tries again well before the lease ends', async () => {
    const { key } = await licenseKey(1, { licenseModel: 'floating', leaseMinutes: 1 });
    let down = false;
    const flaky: Fetch = (url, init) => (down ? Promise.reject(new TypeError('network down')) : worker(url, init));
    const clock = manualTimers();
    const { sdk } = await client({ timers: clock.timers, fetch: flaky, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 30_000 } });
    const fingerprint = device();
    expect((await sdk.activate({ key, fingerprint })).code).toBe('VALID');
    const results: Array<{ code: string; source: string }> = [];
    const heartbeat = sdk.startHeartbeat({ key, fingerprint }, { onResult: (r) => results.push(r) });
    await vi.waitFor(() => expect(clock.pending).toHaveLength(1));
    down = true;
    clock.fire();
    await vi.waitFor(() => expect(results).toHaveLength(2));
    await vi.waitFor(() => expect(clock.pending).toHaveLength(1));
    expect(results[1]).toMatchObject({ code: 'VALID', source: 'offline' });
    // A quarter of what is left of the one-minute lease, not the minute-long default retry.
    expect(clock.pending[0].ms).toBeGreaterThanOrEqual(5_000);
    expect(clock.pending[0].ms).toBeLessThanOrEqual(15_000);
    heartbeat.stop();
  });

  it('node-locked: offers the bound devices when full, and swaps one within the budget', async () => {
    const { key } = await licenseKey(1, { swapLimit: 1 });
    const { sdk } = await client();
    const [a, b, c] = [device(), device(), device()];
    await sdk.activate({ key, fingerprint: a, deviceInfo: { device: 'Desk PC', model: 'Z2' } });
    const full = await sdk.activate({ key, fingerprint: b });
    expect(full.code).toBe('DEVICE_LIMIT_REACHED');
    expect(full.devices).toEqual([expect.objectContaining({ name: 'Desk PC', model: 'Z2' })]);
    expect(full.devices![0].lastSeenAt).toBeInstanceOf(Date);
    const swapped = await sdk.replaceDevice({ key, fingerprint: b, replaceDeviceId: full.devices![0].id });
    expect(swapped).toMatchObject({ valid: true, code: 'DEVICE_REPLACED', source: 'online' });
    expect(swapped.offlineToken).toMatchObject({ key, fingerprint: b });
    expect((await sdk.validate({ key, fingerprint: a })).code).toBe('NOT_ACTIVATED');
    const bId = (await sdk.activate({ key, fingerprint: c })).devices![0].id;
    const spent = await sdk.replaceDevice({ key, fingerprint: c, replaceDeviceId: bId });
    expect(spent).toMatchObject({ valid: false, code: 'SWAP_BUDGET_EXHAUSTED' });
    expect(spent.nextSwapAt!.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });

  it('trial: starts one signed trial per device and keeps its token under the trial key', async () => {
    const { keyTag } = await licenseKey(1, { trialDays: 3 });
    const fingerprint = device();
    const { sdk, store } = await client();
    const trial = await sdk.startTrial({ keyTag, fingerprint });
    expect(trial).toMatchObject({ valid: true, code: 'TRIAL_STARTED', license: { trial: true } });
    const trialKey = trial.license!.key;
    expect(trial.offlineToken).toMatchObject({ key: trialKey, fingerprint });
    expect(await store.get(`${trialKey}|${fingerprint}`)).toBe(trial.offlineToken!.token);
    expect(trial.license!.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 3 * 86_400_000);
    const again = await sdk.startTrial({ keyTag, fingerprint });
    expect(again).toMatchObject({ valid: false, code: 'TRIAL_ALREADY_USED', license: { key: trialKey } });
    expect(await sdk.validate({ key: trialKey, fingerprint })).toMatchObject({ valid: true, code: 'VALID' });
  });
});

describe('the licensing SDK against the Worker: entitlements and metered usage', () => {
  it('answers hasEntitlement offline from the stored, verified token, and never from a forged or expired one', async () => {
    const { key } = await licenseKey(1, { entitlements: ['export-pdf', 'pro'] });
    const fingerprint = device();
    const store = memoryStore();
    const { sdk } = await client({ store });
    const activated = await sdk.activate({ key, fingerprint });
    expect(activated.license!.entitlements).toEqual(['export-pdf', 'pro']);
    expect(activated.offlineToken!.entitlements).toEqual(['export-pdf', 'pro']);

    // A restart with no network: the stored token answers.
    let clock = Date.now();
    const down: Fetch = () => Promise.reject(new TypeError('fetch failed'));
    const { sdk: offline } = await client({ store, fetch: down, now: () => clock });
    expect(await offline.hasEntitlement({ key, fingerprint }, 'pro')).toBe(true);
    expect(await offline.hasEntitlement({ key: key.toLowerCase(), fingerprint }, 'export-pdf')).toBe(true);
    expect(await offline.hasEntitlement({ key, fingerprint }, 'enterprise')).toBe(false);
    expect(await offline.hasEntitlement({ key, fingerprint: device() }, 'pro')).toBe(false);

    // A token whose claims were edited to add an entitlement fails its signature: nothing is granted.
    const [head, body, signature] = activated.offlineToken!.token.split('.');
    const claims = JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    const edited = btoa(JSON.stringify({ ...claims, ent: ['enterprise', 'pro'] }))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    await store.set(`${key}|${fingerprint}`, `${head}.${edited}.${signature}`);
    expect(await offline.hasEntitlement({ key, fingerprint }, 'enterprise')).toBe(false);
    expect(await offline.hasEntitlement({ key, fingerprint }, 'pro')).toBe(false);

    // Past its expiry the token grants nothing either.
    await store.set(`${key}|${fingerprint}`, activated.offlineToken!.token);
    clock = activated.offlineToken!.expiresAt.getTime();
    expect(await offline.hasEntitlement({ key, fingerprint }, 'pro')).toBe(false);
  });

  it('consumes exactly 20 uses when 50 debits race for them, repeated Idempotency-Keys debiting once and answering alike', async () => {
    const { key } = await licenseKey(1, { usageAllowance: 20 });
    const fingerprint = device();
    const { sdk, store } = await client();
    const activated = await sdk.activate({ key, fingerprint });
    expect(activated.license!.usage).toMatchObject({ allowance: 20, remaining: 20, refillAmount: null, nextRefillAt: null });

    const ids = Array.from({ length: 30 }, (_, i) => `sdk-race-${i}-${Date.now()}`);
    const sent = [...ids, ...ids.slice(0, 20)].sort(() => Math.random() - 0.5);
    const results = await Promise.all(sent.map((idempotencyKey) => sdk.consume({ key, fingerprint, idempotencyKey })));
    // Every answer was verified (a forged one would be INVALID_SIGNATURE).
    expect(results.every((r) => r.source === 'online' && (r.code === 'CONSUMED' || r.code === 'USAGE_EXHAUSTED'))).toBe(true);
    const byKey = new Map<string, string[]>();
    sent.forEach((id, i) => byKey.set(id, [...(byKey.get(id) ?? []), `${results[i].code}:${results[i].license!.usage!.remaining}`]));
    for (const outcomes of byKey.values()) expect(new Set(outcomes).size).toBe(1);
    const debited = [...byKey.values()].filter((o) => o[0].startsWith('CONSUMED'));
    expect(debited).toHaveLength(20);
    expect(debited.map((o) => Number(o[0].split(':')[1])).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));

    const refused = await sdk.consume({ key, fingerprint });
    expect(refused).toMatchObject({ valid: false, code: 'USAGE_EXHAUSTED', license: { usage: { remaining: 0 } } });
    // A debit leaves the kept offline token as it was.
    expect(await store.get(`${key}|${fingerprint}`)).toBe(activated.offlineToken!.token);
    expect((await sdk.validate({ key, fingerprint })).license!.usage!.remaining).toBe(0);
  });
});
