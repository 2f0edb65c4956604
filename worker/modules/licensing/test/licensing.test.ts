import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { importJWK, jwtVerify, type JWK } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { activations, licenseKeys, products } from '../../../platform/db/schema';
import { activateLicense, LAST_USED_WRITE_MS, noteDeviceSeen, validateLicense } from '../licensing';
import { newId } from '../../../platform/ids';
import { LICENSE_TOKEN_ISSUER, signOfflineToken } from '../../../platform/signing';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { UNKNOWN_KEYS_PER_ADDRESS } from '../throttle';
import { api, clearOfMinuteEdge, db, freshIp, interceptedD1 } from '../../../test/helpers';
import { DAY_MS } from '../../../platform/vocabulary';

/** The test database, with every statement it prepares listed in `log`. */
const preparing = (log: string[]) => interceptedD1(env.DB, { prepare: (sql) => log.push(sql) });

let counter = 0;
async function fixture(
  options: {
    maxActivations?: number;
    status?: 'available' | 'used' | 'revoked';
    productActive?: boolean;
    duration?: number;
    purchasedAt?: number;
  } = {},
) {
  const productId = newId();
  const keyTag = `LT${(counter++).toString(36).toUpperCase()}${Date.now().toString(36).slice(-4).toUpperCase()}`.slice(0, 10);
  await db()
    .insert(products)
    .values({
      id: productId,
      name: `Licensed App ${keyTag}`,
      keyTag,
      baseCreditCost: 10,
      creditsPerDay: 1,
      maxActivations: options.maxActivations ?? 1,
      isActive: options.productActive ?? true,
      createdAt: new Date(),
    });
  const key = `${keyTag}-${newId().toUpperCase()}`;
  const id = newId();
  const status = options.status ?? 'available';
  const duration = options.duration ?? 30;
  const purchasedAt = options.purchasedAt ?? (status === 'available' ? null : Date.now());
  await db()
    .insert(licenseKeys)
    .values({
      id,
      key,
      status,
      productId,
      productName: `Licensed App ${keyTag}`,
      productKeyTag: keyTag,
      productType: 'software',
      duration,
      maxActivations: options.maxActivations ?? 1,
      purchasedAt: purchasedAt === null ? null : new Date(purchasedAt),
      expiresAt: purchasedAt === null ? null : new Date(purchasedAt + duration * DAY_MS),
      generationMethod: status === 'available' ? 'automatic' : 'purchase',
      createdAt: new Date(),
    });
  return { id, key, productId, keyTag };
}

const device = (n = counter++) => `device-fingerprint-${n}-${Date.now()}`;
const call = (path: 'activate' | 'validate' | 'deactivate', body: unknown, ip?: string) =>
  api('POST', `/api/v1/licenses/${path}`, { body, ip });
const settings = (grace = 0) => ({ ...DEFAULT_SETTINGS, keyExpiryGracePeriod: grace });

async function publicKey() {
  const res = await api('GET', '/api/v1/licenses/public-key');
  return res.body as { jwk: JWK; pem: string };
}

async function verifySignature(body: string, signature: string): Promise<boolean> {
  const { jwk } = await publicKey();
  const key = await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
  const sig = Uint8Array.from(atob(signature), (ch) => ch.charCodeAt(0));
  return crypto.subtle.verify({ name: 'Ed25519' }, key, sig, new TextEncoder().encode(body));
}

describe('activation', () => {
  it('activates a generated key, starting its clock', async () => {
    const k = await fixture({ duration: 30 });
    const fp = device();
    const before = Date.now();
    const res = await call('activate', {
      key: k.key.toLowerCase(),
      deviceFingerprint: fp,
      deviceInfo: { manufacturer: 'Acme', model: 'X1' },
      nonce: 'n-123',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      code: 'VALID',
      detail: 'Device activated',
      nonce: 'n-123',
      license: {
        key: k.key,
        status: 'used',
        maxActivations: 1,
        activationCount: 1,
        product: { keyTag: k.keyTag, productType: 'software' },
      },
    });
    const row = await db().select().from(licenseKeys).where(eq(licenseKeys.id, k.id)).get();
    expect(row!.status).toBe('used');
    expect(row!.firstUsedAt!.getTime()).toBeGreaterThanOrEqual(before);
    expect(row!.expiresAt!.getTime()).toBe(row!.firstUsedAt!.getTime() + 30 * DAY_MS);
    expect(res.body.license!.expiresAt).toBe(row!.expiresAt!.toISOString());
    const device1 = await db().select().from(activations).where(eq(activations.keyId, k.id)).all();
    expect(device1).toHaveLength(1);
    expect(device1[0].deviceInfo).toEqual({ manufacturer: 'Acme', model: 'X1' });
    const product = await db().select().from(products).where(eq(products.id, k.productId)).get();
    expect(product!.totalActivations).toBe(1);
  });

  it('re-activates a known device without using a new slot, and refuses a device over the limit', async () => {
    const k = await fixture({ maxActivations: 1 });
    const fp = device();
    expect((await call('activate', { key: k.key, deviceFingerprint: fp })).body).toMatchObject({
      code: 'VALID',
      detail: 'Device activated',
    });
    const again = await call('activate', { key: k.key, deviceFingerprint: fp });
    expect(again.body).toMatchObject({ valid: true, code: 'VALID', detail: 'Device already activated', license: { activationCount: 1 } });
    const other = await call('activate', { key: k.key, deviceFingerprint: device() });
    expect(other.body).toMatchObject({ valid: false, code: 'DEVICE_LIMIT_REACHED', license: { activationCount: 1, token: null } });
  });

  it('holds a deactivated device’s slot while its offline token may live (device-limit-offline.test.ts)', async () => {
    const k = await fixture({ maxActivations: 1 });
    const [a, b] = [device(), device()];
    await call('activate', { key: k.key, deviceFingerprint: a });
    const off = await call('deactivate', { key: k.key, deviceFingerprint: a, nonce: 'bye' });
    expect(off.body).toMatchObject({ valid: false, code: 'DEACTIVATED', nonce: 'bye', license: { activationCount: 0 } });
    expect(new Date(off.body.slotFreesAt!).getTime()).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
    expect((await call('deactivate', { key: k.key, deviceFingerprint: a })).body).toMatchObject({
      code: 'NOT_ACTIVATED',
      slotFreesAt: off.body.slotFreesAt,
    });
    expect((await call('activate', { key: k.key, deviceFingerprint: b })).body).toMatchObject({
      code: 'DEVICE_LIMIT_REACHED',
      slotFreesAt: off.body.slotFreesAt,
    });
    const product = await db().select().from(products).where(eq(products.id, k.productId)).get();
    expect(product!.totalActivations).toBe(0);
  });

  it('holds the device limit when 30 devices activate one 2-device key at once', async () => {
    const k = await fixture({ maxActivations: 2 });
    const results = await Promise.all(Array.from({ length: 30 }, () => call('activate', { key: k.key, deviceFingerprint: device() })));
    const codes = results.map((r) => r.body.code);
    expect(codes.filter((c) => c === 'VALID')).toHaveLength(2);
    expect(codes.filter((c) => c === 'DEVICE_LIMIT_REACHED')).toHaveLength(28);
    expect(await db().select().from(activations).where(eq(activations.keyId, k.id)).all()).toHaveLength(2);
    const product = await db().select().from(products).where(eq(products.id, k.productId)).get();
    expect(product!.totalActivations).toBe(2);
  });

  it('does not activate a new generated key of an inactive product', async () => {
    const k = await fixture({ productActive: false });
    const res = await call('activate', { key: k.key, deviceFingerprint: device() });
    expect(res.body).toMatchObject({ valid: false, code: 'PRODUCT_INACTIVE' });
    expect(await db().select().from(activations).where(eq(activations.keyId, k.id)).all()).toHaveLength(0);
  });
});

describe('activation: which keys may take a new device', () => {
  // The batch's SQL decides whether the device is inserted; the answer comes from `standing` in
  // TypeScript. Every kind of key, each side of its expiry and grace: the row exists exactly when the
  // answer says the device was activated.
  const cases: {
    name: string;
    setup: Parameters<typeof fixture>[0];
    change?: Partial<typeof licenseKeys.$inferInsert>;
    grace?: number;
    code: string;
  }[] = [
    { name: 'a generated key', setup: {}, code: 'VALID' },
    { name: 'a generated key of an inactive product', setup: { productActive: false }, code: 'PRODUCT_INACTIVE' },
    { name: 'a bought key of an inactive product', setup: { status: 'used', productActive: false }, code: 'VALID' },
    { name: 'a revoked key', setup: { status: 'revoked' }, code: 'REVOKED' },
    { name: 'a key marked expired', setup: { status: 'used' }, change: { status: 'expired' }, code: 'EXPIRED' },
    {
      name: 'a key past its expiry, no grace',
      setup: { status: 'used', duration: 1, purchasedAt: Date.now() - 2 * DAY_MS },
      code: 'EXPIRED',
    },
    {
      name: 'a key past its expiry, within the grace period',
      setup: { status: 'used', duration: 1, purchasedAt: Date.now() - 2 * DAY_MS },
      grace: 3,
      code: 'VALID',
    },
    {
      name: 'a key past its expiry and its grace period',
      setup: { status: 'used', duration: 1, purchasedAt: Date.now() - 5 * DAY_MS },
      grace: 3,
      code: 'EXPIRED',
    },
    {
      name: 'a bought key without a stored expiry, past purchase + duration',
      setup: { status: 'used', duration: 1, purchasedAt: Date.now() - 2 * DAY_MS },
      change: { expiresAt: null },
      code: 'EXPIRED',
    },
    {
      name: 'a bought key without a stored expiry, within it',
      setup: { status: 'used', duration: 10, purchasedAt: Date.now() - 2 * DAY_MS },
      change: { expiresAt: null },
      code: 'VALID',
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.code}`, async () => {
      const { id, key } = await fixture(c.setup);
      if (c.change) await db().update(licenseKeys).set(c.change).where(eq(licenseKeys.id, id)).run();
      const result = await activateLicense(env.DB, settings(c.grace ?? 0), { key, deviceFingerprint: device() });
      expect(result.code).toBe(c.code);
      const rows = await db().select().from(activations).where(eq(activations.keyId, id)).all();
      expect(rows).toHaveLength(c.code === 'VALID' ? 1 : 0);
    });
  }
});

describe('validation', () => {
  it('answers each code', async () => {
    const k = await fixture({ status: 'used' });
    const fp = device();
    expect((await call('validate', { key: 'NOPE-NOT-A-KEY', deviceFingerprint: fp })).body).toMatchObject({
      valid: false,
      code: 'NOT_FOUND',
      license: null,
    });
    expect((await call('validate', { key: k.key, deviceFingerprint: fp })).body).toMatchObject({
      valid: false,
      code: 'NOT_ACTIVATED',
      license: { token: null },
    });
    await call('activate', { key: k.key, deviceFingerprint: fp });
    expect((await call('validate', { key: k.key, deviceFingerprint: fp, nonce: 'abc' })).body).toMatchObject({
      valid: true,
      code: 'VALID',
      nonce: 'abc',
    });
    await db().update(licenseKeys).set({ status: 'revoked', revokeReason: 'refund' }).where(eq(licenseKeys.id, k.id));
    // A revoked key stops validating at once: nothing is cached on the way.
    expect((await call('validate', { key: k.key, deviceFingerprint: fp })).body).toMatchObject({
      valid: false,
      code: 'REVOKED',
      license: { status: 'revoked' },
    });
    expect((await call('activate', { key: k.key, deviceFingerprint: device() })).body.code).toBe('REVOKED');
  });

  it('expires a purchased key duration days after purchase, with the grace period', async () => {
    const purchasedAt = Date.now() - 40 * DAY_MS;
    const k = await fixture({ status: 'used', duration: 30, purchasedAt });
    const fp = device();
    const expiry = purchasedAt + 30 * DAY_MS;
    // Activate while it was still current, with an injected clock.
    expect((await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: fp }, expiry - DAY_MS)).code).toBe('VALID');
    expect((await validateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: fp }, expiry - 1)).code).toBe('VALID');
    expect((await validateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: fp }, expiry + 1)).code).toBe('EXPIRED');
    const inGrace = await validateLicense(env.DB, settings(15), { key: k.key, deviceFingerprint: fp }, expiry + 5 * DAY_MS);
    expect(inGrace.code).toBe('VALID');
    expect(inGrace.detail).toContain('grace period ends on');
    expect(inGrace.license!.status).toBe('expired');
    expect((await validateLicense(env.DB, settings(15), { key: k.key, deviceFingerprint: fp }, expiry + 15 * DAY_MS + 1)).code).toBe(
      'EXPIRED',
    );
    // Through the API (real clock: 40 days after purchase, no grace): expired.
    expect((await call('validate', { key: k.key, deviceFingerprint: fp })).body).toMatchObject({
      valid: false,
      code: 'EXPIRED',
      license: { status: 'expired' },
    });
  });

  it('writes lastUsed at most every few minutes', async () => {
    const k = await fixture({ status: 'used' });
    const fp = device();
    const t0 = Date.now();
    await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: fp }, t0);
    const lastUsed = async () => (await db().select().from(activations).where(eq(activations.keyId, k.id)).get())!.lastUsed!.getTime();
    expect(await lastUsed()).toBe(t0);
    // A binding of its own, so no batch another test's request opened carries these touches.
    const d1 = interceptedD1(env.DB, {});
    await validateLicense(d1, settings(), { key: k.key, deviceFingerprint: fp }, t0 + 60_000);
    expect(await lastUsed()).toBe(t0);
    await validateLicense(d1, settings(), { key: k.key, deviceFingerprint: fp }, t0 + LAST_USED_WRITE_MS);
    expect(await lastUsed()).toBe(t0 + LAST_USED_WRITE_MS);
  });

  it('writes the lastUsed of devices seen together in one statement, never moving one back', async () => {
    const t0 = Date.now() - LAST_USED_WRITE_MS - 60_000;
    const seen = [];
    for (let i = 0; i < 5; i++) {
      const k = await fixture({ status: 'used' });
      await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: device() }, t0);
      seen.push((await db().select().from(activations).where(eq(activations.keyId, k.id)).get())!.id);
    }
    // The last device was seen later elsewhere (another isolate's write): this batch must not undo it.
    await db()
      .update(activations)
      .set({ lastUsed: new Date(t0 + 10 * LAST_USED_WRITE_MS) })
      .where(eq(activations.id, seen[4]));
    const updates: string[] = [];
    const d1 = preparing(updates);
    const at = t0 + LAST_USED_WRITE_MS;
    const writes = seen.map((id, i) => noteDeviceSeen(d1, id, at + i, 1_000));
    // The same device seen twice in a batch keeps its later time.
    expect(noteDeviceSeen(d1, seen[0], at + 100, 1_000)).toBeNull();
    expect(writes.slice(1)).toEqual([null, null, null, null]);
    expect(updates).toEqual([]);
    await writes[0];
    expect(updates).toHaveLength(1);
    const lastUsed = async (id: string) => (await db().select().from(activations).where(eq(activations.id, id)).get())!.lastUsed!.getTime();
    expect(await Promise.all(seen.map(lastUsed))).toEqual([at + 100, at + 1, at + 2, at + 3, t0 + 10 * LAST_USED_WRITE_MS]);
    // Written, the batch is closed: the next sighting opens another.
    const next = noteDeviceSeen(d1, seen[1], at + 200, 10);
    expect(next).not.toBeNull();
    await next;
    expect(updates).toHaveLength(2);
    expect(await lastUsed(seen[1])).toBe(at + 200);
  });

  it('answers a device seen long ago at once, and writes its lastUsed after the answer', async () => {
    const k = await fixture({ status: 'used' });
    const fp = device();
    const seen = Date.now() - LAST_USED_WRITE_MS - 60_000;
    await activateLicense(env.DB, settings(), { key: k.key, deviceFingerprint: fp }, seen);
    const res = await call('validate', { key: k.key, deviceFingerprint: fp });
    expect(res.body).toMatchObject({ valid: true, code: 'VALID' });
    // The write runs in the request's waitUntil, in a batch that closes TOUCH_BATCH_MS later:
    // it lands, though the answer did not wait for it.
    await vi.waitFor(
      async () => {
        const row = await db().select().from(activations).where(eq(activations.keyId, k.id)).get();
        expect(row!.lastUsed!.getTime()).toBeGreaterThan(seen);
      },
      { timeout: 5_000 },
    );
  });
});

describe('signed answers', () => {
  it('serves the public key without the private part', async () => {
    const { jwk, pem } = await publicKey();
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(jwk).not.toHaveProperty('d');
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
  });

  it('signs the exact body bytes, errors included', async () => {
    const k = await fixture();
    for (const [path, body] of [
      ['activate', { key: k.key, deviceFingerprint: device() }],
      ['validate', { key: 'UNKNOWN-KEY', deviceFingerprint: device() }],
      ['validate', { key: k.key, deviceFingerprint: 'short' }],
    ] as const) {
      const res = await call(path, body);
      const text = JSON.stringify(res.body);
      const signature = res.headers.get('x-signature')!;
      expect(signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(await verifySignature(text, signature)).toBe(true);
      expect(await verifySignature(text.replace('"valid":', '"valid" :').replace('"code":"', '"code":"X'), signature)).toBe(false);
    }
  });

  it('gives a VALID answer an offline token that verifies with the public key and expires', async () => {
    const k = await fixture({ status: 'used', duration: 3 });
    const fp = device();
    const res = await call('activate', { key: k.key, deviceFingerprint: fp });
    const { jwk } = await publicKey();
    const key = await importJWK(jwk, 'EdDSA');
    const { payload, protectedHeader } = await jwtVerify(res.body.license!.token!, key, {
      algorithms: ['EdDSA'],
      issuer: LICENSE_TOKEN_ISSUER,
    });
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(payload).toMatchObject({ sub: k.key, fp, product: k.keyTag, iss: 'keypanel' });
    // The product's default lifetime: 24 hours, well before the key's expiry in 3 days.
    expect(payload.exp! - payload.iat!).toBeGreaterThanOrEqual(24 * 3600 - 1);
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(24 * 3600);

    const old = await signOfflineToken(
      env,
      { key: k.key, fingerprint: fp, keyTag: k.keyTag, tokenExpiresAt: Date.now() - DAY_MS },
      Date.now() - 2 * DAY_MS,
    );
    await expect(jwtVerify(old, key)).rejects.toThrow(/exp/);
  });
});

describe('input and throttling', () => {
  it.each([
    [{ deviceFingerprint: 'abcdefgh' }, 'key is required'],
    [{ key: 'K', deviceFingerprint: 'short' }, 'deviceFingerprint must be at least 8 characters'],
    [{ key: 'K', deviceFingerprint: 'x'.repeat(257) }, 'deviceFingerprint must be at most 256 characters'],
    [{ key: 'K', deviceFingerprint: 'tab\there-ok' }, 'deviceFingerprint must contain printable characters only'],
    [{ key: 'K', deviceFingerprint: 'abcdefgh', nonce: 5 }, 'nonce must be a string'],
  ])('refuses %o with 400', async (body, message) => {
    const res = await call('validate', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
  });

  it('refuses unknown deviceInfo fields', async () => {
    const k = await fixture();
    const res = await call('activate', { key: k.key, deviceFingerprint: device(), deviceInfo: { os: 'x' } });
    expect(res.status).toBe(400);
  });

  // The binding counts in fixed 60-second windows, so a burst may straddle two: fire until refused.
  async function burstUntilLimited(send: () => Promise<{ status: number }>, max: number) {
    const seen: Array<{ status: number; headers?: Headers; body?: unknown }> = [];
    while (seen.length < max) {
      const batch = await Promise.all(Array.from({ length: 20 }, send));
      seen.push(...batch);
      if (batch.some((r) => r.status === 429)) break;
    }
    return seen;
  }

  /** A 429 from the licensing API, as an app gets it: signed, never cached, with Retry-After. */
  async function expectSignedRefusal(res: Awaited<ReturnType<typeof call>>) {
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await verifySignature(JSON.stringify(res.body), res.headers.get('x-signature')!)).toBe(true);
  }

  it('limits unknown keys per address before the lookup: over it, every key gets 429 (no oracle)', async () => {
    await clearOfMinuteEdge(8_000);
    const ip = freshIp();
    const k = await fixture({ status: 'used', maxActivations: 3 });
    const fp = device();
    expect((await call('activate', { key: k.key, deviceFingerprint: fp }, ip)).body.code).toBe('VALID');
    // Exactly the limit of unknown keys is answered, one after another.
    for (let i = 0; i < UNKNOWN_KEYS_PER_ADDRESS.limit; i++) {
      const res = await call('validate', { key: `GUESS-${i}-${Date.now()}`, deviceFingerprint: 'guessing-device' }, ip);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    // Now the address gets 429 whatever it sends: a real key, an unknown one, any route.
    await expectSignedRefusal(await call('validate', { key: k.key, deviceFingerprint: fp }, ip));
    await expectSignedRefusal(await call('validate', { key: 'GUESS-AGAIN', deviceFingerprint: fp }, ip));
    await expectSignedRefusal(await call('activate', { key: k.key, deviceFingerprint: device() }, ip));
    await expectSignedRefusal(await call('deactivate', { key: k.key, deviceFingerprint: fp }, ip));
    // The refused activation and deactivation changed nothing.
    expect(await db().select().from(activations).where(eq(activations.keyId, k.id)).all()).toHaveLength(1);
    // A valid key's own traffic never counts: another address validates it as often as it likes.
    const other = freshIp();
    for (let i = 0; i < UNKNOWN_KEYS_PER_ADDRESS.limit + 5; i++)
      expect((await call('validate', { key: k.key, deviceFingerprint: fp }, other)).body.code).toBe('VALID');
    expect((await call('validate', { key: 'GUESS-X', deviceFingerprint: 'guessing-device' }, other)).body.code).toBe('NOT_FOUND');
  }, 30_000);

  it('decides the limit from the address alone when many guesses arrive at once', async () => {
    await clearOfMinuteEdge(8_000);
    const ip = freshIp();
    const k = await fixture({ status: 'used' });
    const fp = device();
    await call('activate', { key: k.key, deviceFingerprint: fp });
    const burst = await Promise.all(
      Array.from({ length: UNKNOWN_KEYS_PER_ADDRESS.limit + 10 }, (_, i) =>
        call('validate', { key: `BURST-${i}-${Date.now()}`, deviceFingerprint: 'guessing-device' }, ip),
      ),
    );
    // Exactly the limit is answered and counted, however the guesses interleave.
    expect(burst.filter((r) => r.status === 200 && r.body.code === 'NOT_FOUND')).toHaveLength(UNKNOWN_KEYS_PER_ADDRESS.limit);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(10);
    const counted = await env.DB.prepare('SELECT sum(count) AS n FROM rate_limits WHERE bucket = ?1')
      .bind(`license-miss:${ip}`)
      .first<number>('n');
    expect(counted).toBe(UNKNOWN_KEYS_PER_ADDRESS.limit);
    // Once over, a real key and an unknown one are answered alike, many times over.
    const mixed = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call('validate', { key: i % 2 ? k.key : `LATE-${i}`, deviceFingerprint: fp }, ip)),
    );
    expect(mixed.map((r) => r.status)).toEqual(Array(10).fill(429));
  }, 30_000);

  it('signs every error and keeps every answer out of caches: 400, 413, 429 and the answers themselves', async () => {
    const k = await fixture();
    const answers = [
      await call('validate', { key: k.key, deviceFingerprint: 'short' }),
      await api('POST', '/api/v1/licenses/validate', { rawBody: '{not json' }),
      await api('POST', '/api/v1/licenses/validate', { rawBody: JSON.stringify({ key: k.key, deviceFingerprint: 'x'.repeat(70 * 1024) }) }),
      await call('validate', { key: k.key, deviceFingerprint: device() }),
      await call('activate', { key: k.key, deviceFingerprint: device() }),
      await api('POST', '/api/v1/licenses/nowhere', { body: {} }),
    ];
    expect(answers.map((r) => r.status)).toEqual([400, 400, 413, 200, 200, 404]);
    for (const res of answers) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      expect(await verifySignature(text, res.headers.get('x-signature')!)).toBe(true);
    }
    // The public key, the same for everyone, may be cached, and is signed too.
    const key = await api('GET', '/api/v1/licenses/public-key');
    expect(key.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await verifySignature(JSON.stringify(key.body), key.headers.get('x-signature')!)).toBe(true);
  });

  it('limits one key, not the address it comes from', async () => {
    const k = await fixture({ status: 'used' });
    const fp = device();
    await call('activate', { key: k.key, deviceFingerprint: fp });
    const results = await burstUntilLimited(() => call('validate', { key: k.key, deviceFingerprint: fp }), 400);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(240);
    const other = await fixture({ status: 'used' });
    await call('activate', { key: other.key, deviceFingerprint: fp });
    expect((await call('validate', { key: other.key, deviceFingerprint: fp })).status).toBe(200);
  }, 30_000);
});
