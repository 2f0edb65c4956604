// The licensing SDK (sdk/) against the real Worker in workerd: its fetch goes to the Worker's own
// handler, so every answer it verifies is one the licensing API really signed. Tampered, unsigned,
// replayed and foreign-signed answers, and expired or forged offline tokens, are refused.
import { env } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createLicensing, memoryStore, TokenError, type LicensingOptions } from '../../../../sdk/src/index';
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
async function licenseKey(maxActivations = 1) {
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
