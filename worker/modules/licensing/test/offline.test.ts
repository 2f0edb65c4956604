// Air-gapped activation and offline checks that resist a wound-back clock, through the licensing SDK
// (sdk/) against the real Worker: the SDK writes the request, the key's holder turns it into a signed
// response through the API My Keys and the CLI call, and the SDK verifies that response offline.
import { env } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createLicensing, memoryStore, TokenError, type OfflineRequest, type OfflineResponse } from '../../../../sdk/src/index';
import { signOfflineToken } from '../../../platform/signing';
import { licenseAnswerSchema, offlineActivationAnswerSchema } from '../schemas';
import { api, signedInUser } from '../../../test/helpers';
import { makeProduct } from '../../../test/shop-helpers';

const ACTIVATE = '/api/users/my-keys/offline-activations';
const DEACTIVATE = '/api/users/my-keys/offline-deactivations';
const HOUR = 3600 * 1000;

let pem: string | null = null;
async function serverPem(): Promise<string> {
  pem ??= ((await api('GET', '/api/v1/licenses/public-key')).body as { pem: string }).pem;
  return pem;
}

/** A device: the SDK with its own store and clock (the real one unless a test winds it). */
async function device(name: string, clock: { at?: number } = {}) {
  const store = memoryStore();
  const sdk = createLicensing({
    url: 'http://localhost',
    publicKey: await serverPem(),
    fetch: (url, init) => exports.default.fetch(url, init),
    store,
    retry: { retries: 0 },
    now: () => clock.at ?? Date.now(),
  });
  return { sdk, store, clock, fingerprint: `${name}-${crypto.randomUUID()}` };
}

/** A key a customer bought, of a product made with `product`. */
async function boughtKey(maxActivations: number, product: Record<string, unknown> = {}) {
  const buyer = await signedInUser('user', { credits: 1000 });
  const made = await makeProduct({ maxActivations, ...product });
  const bought = await api('POST', '/api/keys/purchase', { token: buyer.token, body: { productId: made.id, duration: 10 } });
  expect(bought.status).toBe(201);
  return { buyer, key: bought.body.licenseKey.key, keyId: bought.body.licenseKey._id };
}

const upload = (token: string, request: OfflineRequest) => api('POST', ACTIVATE, { token, body: request });
const answerOf = (file: { answer: string }) => JSON.parse(file.answer) as { code: string; valid: boolean; nonce: string; detail: string };
const liveDevices = (keyId: string) =>
  env.DB.prepare('SELECT count(*) AS n FROM activations WHERE key_id = ?').bind(keyId).first<number>('n');

describe('air-gapped activation', () => {
  it('turns the request the SDK wrote into a response the SDK verifies offline, counted against the key’s limit', async () => {
    const { buyer, key, keyId } = await boughtKey(1, { offlineTokenHours: 48 });
    const a = await device('airgapped');
    const request = await a.sdk.createOfflineRequest({
      key: key.toLowerCase(),
      fingerprint: a.fingerprint,
      deviceInfo: { model: 'Lab PC' },
    });
    expect(request).toMatchObject({ type: 'keypanel.offline-activation-request', key, deviceFingerprint: a.fingerprint });
    expect(request.nonce).toMatch(/^[0-9a-f]{32}$/);

    const res = await upload(buyer.token, request);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.type).toBe('keypanel.offline-activation-response');
    expect(answerOf(res.body)).toMatchObject({ valid: true, code: 'OFFLINE_ACTIVATED', nonce: request.nonce });
    // The signed answer is the document's OfflineActivationAnswer, bound to the device and its key.
    expect(offlineActivationAnswerSchema.strict().parse(JSON.parse(res.body.answer))).toMatchObject({
      deviceFingerprint: a.fingerprint,
      deviceKey: request.deviceKey,
      license: { key, token: expect.any(String) as unknown },
    });

    const applied = await a.sdk.applyOfflineResponse(JSON.stringify(res.body), { fingerprint: a.fingerprint });
    expect(applied).toMatchObject({ valid: true, code: 'OFFLINE_ACTIVATED', license: { key, activationCount: 1, maxActivations: 1 } });
    expect(applied.offlineToken).toMatchObject({ key, fingerprint: a.fingerprint });
    // The token's life is counted from its signed issue time: the product's token lifetime.
    expect(applied.offlineToken!.expiresAt.getTime() - applied.offlineToken!.issuedAt.getTime()).toBe(48 * HOUR);
    // Offline from now on: the kept token answers.
    expect(await a.sdk.checkOffline({ key, fingerprint: a.fingerprint })).toMatchObject({ valid: true, code: 'VALID', source: 'offline' });
    expect(await a.sdk.trustedTime()).toBeGreaterThanOrEqual(applied.offlineToken!.issuedAt.getTime());

    // The device holds the key's one slot, as an online activation would.
    expect(await liveDevices(keyId)).toBe(1);
    const b = await device('online');
    expect(await b.sdk.activate({ key, fingerprint: b.fingerprint })).toMatchObject({ valid: false, code: 'DEVICE_LIMIT_REACHED' });
    const c = await device('airgapped-too');
    const full = await upload(buyer.token, await c.sdk.createOfflineRequest({ key, fingerprint: c.fingerprint }));
    expect(answerOf(full.body)).toMatchObject({ valid: false, code: 'DEVICE_LIMIT_REACHED' });
    expect(await c.sdk.applyOfflineResponse(full.body, { fingerprint: c.fingerprint })).toMatchObject({
      valid: false,
      code: 'DEVICE_LIMIT_REACHED',
      offlineToken: null,
    });
  });

  it('carries the key’s entitlements, signed, so an air-gapped device answers hasEntitlement from it', async () => {
    const { buyer, key } = await boughtKey(1, { entitlements: ['pro', 'export-pdf'] });
    const a = await device('entitled');
    const res = await upload(buyer.token, await a.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.parse(res.body.answer)).toMatchObject({ license: { entitlements: ['export-pdf', 'pro'] } });
    const applied = await a.sdk.applyOfflineResponse(res.body, { fingerprint: a.fingerprint });
    expect(applied.offlineToken).toMatchObject({ entitlements: ['export-pdf', 'pro'] });
    expect(await a.sdk.hasEntitlement({ key, fingerprint: a.fingerprint }, 'export-pdf')).toBe(true);
    expect(await a.sdk.hasEntitlement({ key, fingerprint: a.fingerprint }, 'enterprise')).toBe(false);
  });

  it('is refused on another machine, and a nonce is accepted once (by the SDK and by the server)', async () => {
    const { buyer, key } = await boughtKey(3);
    const a = await device('first');
    const b = await device('second');
    const request = await a.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint });
    const response = (await upload(buyer.token, request)).body as OfflineResponse;

    // Replayed on another machine: written for another fingerprint, so B refuses it and keeps nothing.
    await b.sdk.createOfflineRequest({ key, fingerprint: b.fingerprint });
    expect(await b.sdk.applyOfflineResponse(response, { fingerprint: b.fingerprint })).toMatchObject({
      valid: false,
      code: 'NOT_THIS_REQUEST',
    });
    expect(await b.sdk.checkOffline({ key, fingerprint: b.fingerprint })).toMatchObject({ valid: false });
    // Nor can B claim A's fingerprint: it never wrote a request with that nonce and device key.
    expect(await b.sdk.applyOfflineResponse(response, { fingerprint: a.fingerprint })).toMatchObject({ code: 'NOT_THIS_REQUEST' });

    expect(await a.sdk.applyOfflineResponse(response, { fingerprint: a.fingerprint })).toMatchObject({ valid: true });
    // The same response again: its nonce was used.
    const again = await a.sdk.applyOfflineResponse(response, { fingerprint: a.fingerprint });
    expect(again).toMatchObject({ valid: false, code: 'NOT_THIS_REQUEST' });
    expect(again.detail).toContain('accepted once');

    // The server accepts a request's nonce once, even sent many times at once.
    const c = await device('racing');
    const raced = await c.sdk.createOfflineRequest({ key, fingerprint: c.fingerprint });
    const answers = await Promise.all(Array.from({ length: 6 }, () => upload(buyer.token, raced)));
    const codes = answers.map((r) => answerOf(r.body as OfflineResponse).code).sort();
    expect(codes).toEqual([
      'NONCE_ALREADY_USED',
      'NONCE_ALREADY_USED',
      'NONCE_ALREADY_USED',
      'NONCE_ALREADY_USED',
      'NONCE_ALREADY_USED',
      'OFFLINE_ACTIVATED',
    ]);
    // A response with a used nonce is signed too, and the SDK gives its code.
    const refused = answers.find((r) => answerOf(r.body as OfflineResponse).code === 'NONCE_ALREADY_USED')!.body as OfflineResponse;
    expect(await c.sdk.applyOfflineResponse(refused, { fingerprint: c.fingerprint })).toMatchObject({ code: 'NONCE_ALREADY_USED' });
  });

  it('holds the key’s limit when many devices’ requests come at once, and gives a refused request’s nonce back', async () => {
    const { buyer, key, keyId } = await boughtKey(2);
    const devices = await Promise.all(Array.from({ length: 6 }, (_, i) => device(`crowd-${i}`)));
    const requests = await Promise.all(devices.map((d) => d.sdk.createOfflineRequest({ key, fingerprint: d.fingerprint })));
    const answers = await Promise.all(requests.map((r) => upload(buyer.token, r)));
    const codes = answers.map((r) => answerOf(r.body as OfflineResponse).code);
    expect(codes.filter((c) => c === 'OFFLINE_ACTIVATED')).toHaveLength(2);
    expect(codes.filter((c) => c === 'DEVICE_LIMIT_REACHED')).toHaveLength(4);
    expect(await liveDevices(keyId)).toBe(2);
    // A refused request spent nothing: its nonce is not recorded.
    const refusedAt = codes.indexOf('DEVICE_LIMIT_REACHED');
    const recorded = await env.DB.prepare('SELECT count(*) AS n FROM offline_activations WHERE key_id = ? AND nonce = ?')
      .bind(keyId, requests[refusedAt].nonce)
      .first<number>('n');
    expect(recorded).toBe(0);
  });

  it("refuses another customer's key, a floating key and a request that is not one, changing nothing", async () => {
    const { key, keyId } = await boughtKey(1);
    const stranger = await signedInUser('user');
    const d = await device('stranger');
    const request = await d.sdk.createOfflineRequest({ key, fingerprint: d.fingerprint });
    const res = await upload(stranger.token, request);
    expect(res.status).toBe(404);
    expect(await liveDevices(keyId)).toBe(0);
    expect((await api('POST', ACTIVATE, { body: request })).status).toBe(401);

    const bad = await api('POST', ACTIVATE, { token: stranger.token, body: { ...request, type: 'something-else', deviceKey: 'short' } });
    expect(bad.status).toBe(400);

    const floating = await boughtKey(2, { licenseModel: 'floating', leaseMinutes: 30 });
    const f = await device('floating');
    const refused = await upload(floating.buyer.token, await f.sdk.createOfflineRequest({ key: floating.key, fingerprint: f.fingerprint }));
    expect(refused.status).toBe(409);
    expect(await liveDevices(floating.keyId)).toBe(0);
  });

  it('frees the slot on the device’s signed deactivation proof, once', async () => {
    const { buyer, key, keyId } = await boughtKey(1);
    const a = await device('leaving');
    const response = (await upload(buyer.token, await a.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint })))
      .body as OfflineResponse;
    expect(await a.sdk.applyOfflineResponse(response, { fingerprint: a.fingerprint })).toMatchObject({ valid: true });

    // A proof signed by another key (not the device's) frees nothing.
    const forger = await device('forger');
    await forger.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint });
    await expect(forger.sdk.createDeactivationProof({ key, fingerprint: a.fingerprint })).rejects.toThrow('No offline activation');

    const proof = await a.sdk.createDeactivationProof({ key, fingerprint: a.fingerprint });
    // Writing the proof erased the device's token: it is not licensed any more.
    expect(await a.sdk.checkOffline({ key, fingerprint: a.fingerprint })).toMatchObject({ valid: false });
    const body = JSON.parse(proof.proof) as Record<string, string>;
    const tampered = { ...proof, proof: JSON.stringify({ ...body, deviceFingerprint: `${a.fingerprint}-x` }) };
    expect((await api('POST', DEACTIVATE, { token: buyer.token, body: tampered })).status).toBe(400);
    expect((await api('POST', DEACTIVATE, { token: buyer.token, body: { ...proof, signature: response.signature } })).status).toBe(400);
    expect(await liveDevices(keyId)).toBe(1);

    // Brought back several times at once: one frees the slot.
    const receipts = await Promise.all(Array.from({ length: 4 }, () => api('POST', DEACTIVATE, { token: buyer.token, body: proof })));
    const codes = receipts.map((r) => answerOf(r.body as { answer: string }).code).sort();
    expect(codes).toEqual(['DEACTIVATED', 'NOT_ACTIVATED', 'NOT_ACTIVATED', 'NOT_ACTIVATED']);
    expect(receipts[0].body.type).toBe('keypanel.offline-deactivation-receipt');
    expect(licenseAnswerSchema.strict().safeParse(JSON.parse(receipts[0].body.answer)).success).toBe(true);
    expect(await liveDevices(keyId)).toBe(0);
    // The slot is free at once: another device takes it.
    const b = await device('next');
    expect(await b.sdk.activate({ key, fingerprint: b.fingerprint })).toMatchObject({ valid: true });
  });

  it('keeps the slot of an online device wrapped in an offline request held after its proof: it may hold online tokens', async () => {
    const { buyer, key, keyId } = await boughtKey(1, { offlineTokenHours: 48 });
    const a = await device('wrapped');
    // Online first: the answer carries an offline token the device may keep.
    const online = await a.sdk.activate({ key, fingerprint: a.fingerprint });
    expect(online).toMatchObject({ valid: true });
    // Then wrapped in an offline request and "deactivated" by its proof.
    const response = (await upload(buyer.token, await a.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint })))
      .body as OfflineResponse;
    expect(answerOf(response).code).toBe('OFFLINE_ACTIVATED');
    expect(await a.sdk.applyOfflineResponse(response, { fingerprint: a.fingerprint })).toMatchObject({ valid: true });
    const proof = await a.sdk.createDeactivationProof({ key, fingerprint: a.fingerprint });
    const receipt = await api('POST', DEACTIVATE, { token: buyer.token, body: proof });
    const answer = JSON.parse((receipt.body as { answer: string }).answer) as { code: string; slotFreesAt: string | null };
    expect(answer.code).toBe('DEACTIVATED');
    expect(Date.parse(answer.slotFreesAt ?? '')).toBeGreaterThan(Date.now() + 47 * HOUR);
    expect(await liveDevices(keyId)).toBe(0);
    // The slot stays held while the online token lives: a second device cannot take it.
    const b = await device('after-wrap');
    expect(await b.sdk.activate({ key, fingerprint: b.fingerprint })).toMatchObject({ valid: false, code: 'DEVICE_LIMIT_REACHED' });
  });

  it('answers REVOKED for a revoked key, spending no nonce, even for a device it has', async () => {
    const { buyer, key, keyId } = await boughtKey(1);
    const a = await device('revoked');
    expect(answerOf((await upload(buyer.token, await a.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint }))).body)).toMatchObject(
      {
        code: 'OFFLINE_ACTIVATED',
      },
    );
    const owner = await signedInUser('owner');
    expect((await api('PUT', `/api/keys/${keyId}/revoke`, { token: owner.token, body: { reason: 'Chargeback' } })).status).toBe(200);
    const request = await a.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint });
    const refused = (await upload(buyer.token, request)).body;
    expect(answerOf(refused)).toMatchObject({ valid: false, code: 'REVOKED' });
    expect(await a.sdk.applyOfflineResponse(refused, { fingerprint: a.fingerprint })).toMatchObject({ valid: false, code: 'REVOKED' });
    const recorded = await env.DB.prepare('SELECT count(*) AS n FROM offline_activations WHERE key_id = ?').bind(keyId).first<number>('n');
    expect(recorded).toBe(1);
  });

  it('signs every answer with the licensing key', async () => {
    const { buyer, key } = await boughtKey(1);
    const a = await device('signed');
    const res = await upload(buyer.token, await a.sdk.createOfflineRequest({ key, fingerprint: a.fingerprint }));
    const file = res.body as OfflineResponse;
    // One byte changed and the SDK believes nothing.
    const forged = { ...file, answer: file.answer.replace('"valid":true', '"valid":false') };
    expect(await a.sdk.applyOfflineResponse(forged, { fingerprint: a.fingerprint })).toMatchObject({ code: 'INVALID_SIGNATURE' });
    expect(await a.sdk.applyOfflineResponse('not json', { fingerprint: a.fingerprint })).toMatchObject({ code: 'INVALID_SIGNATURE' });
    expect(await a.sdk.applyOfflineResponse(file, { fingerprint: a.fingerprint })).toMatchObject({ valid: true });
  });
});

describe('offline checks that resist a wound-back clock', () => {
  it('refuses the kept token and a response while the device’s clock is behind the trusted time', async () => {
    const { buyer, key } = await boughtKey(2);
    const clock: { at?: number } = {};
    const a = await device('wound', clock);
    expect(await a.sdk.activate({ key, fingerprint: a.fingerprint })).toMatchObject({ valid: true });
    const trusted = await a.sdk.trustedTime();
    expect(trusted).toBeGreaterThan(Date.now() - 60_000);

    // A few minutes of drift is allowed; an hour back is a wound clock.
    clock.at = trusted - 60_000;
    expect(await a.sdk.checkOffline({ key, fingerprint: a.fingerprint })).toMatchObject({ valid: true });
    clock.at = trusted - HOUR;
    expect(await a.sdk.checkOffline({ key, fingerprint: a.fingerprint })).toMatchObject({ valid: false, code: 'CLOCK_BEHIND' });
    const kept = (await a.store.get(`${key}|${a.fingerprint}`))!;
    await expect(a.sdk.verifyToken(kept)).rejects.toSatisfy((e) => e instanceof TokenError && e.problem === 'clock');
    // The token is kept, not dropped: set right, the clock lets it answer again.
    clock.at = undefined;
    expect(await a.sdk.checkOffline({ key, fingerprint: a.fingerprint })).toMatchObject({ valid: true, source: 'offline' });

    // A response signed after the device's clock: refused until the clock is right, the request kept.
    const late: { at?: number } = { at: Date.now() - 24 * HOUR };
    const b = await device('late', late);
    const response = (await upload(buyer.token, await b.sdk.createOfflineRequest({ key, fingerprint: b.fingerprint })))
      .body as OfflineResponse;
    expect(await b.sdk.applyOfflineResponse(response, { fingerprint: b.fingerprint })).toMatchObject({
      valid: false,
      code: 'CLOCK_BEHIND',
    });
    late.at = undefined;
    expect(await b.sdk.applyOfflineResponse(response, { fingerprint: b.fingerprint })).toMatchObject({ valid: true });
  });

  it("counts a token's life from its signed times, not from the device's clock alone", async () => {
    const { key } = await boughtKey(1);
    const clock: { at?: number } = {};
    const a = await device('expiring', clock);
    // The device has seen the server's signed time now (an answer, here a refusal: no token with it).
    expect(await a.sdk.validate({ key, fingerprint: a.fingerprint })).toMatchObject({ code: 'NOT_ACTIVATED' });
    const trusted = await a.sdk.trustedTime();
    // A genuine token, issued two hours before and ended a minute before that signed time.
    const token = await signOfflineToken(
      env,
      { key, fingerprint: a.fingerprint, keyTag: key.split('-')[0], tokenExpiresAt: trusted - 60_000 },
      trusted - 2 * HOUR,
    );
    await a.store.set(`${key}|${a.fingerprint}`, token);
    // The device's clock reads three minutes before the trusted time (within the allowed drift, and
    // before the token's end): the token has expired all the same.
    clock.at = trusted - 3 * 60_000;
    expect(await a.sdk.checkOffline({ key, fingerprint: a.fingerprint })).toMatchObject({ valid: false, code: 'UNREACHABLE' });
    await expect(a.sdk.verifyToken(token)).rejects.toSatisfy((e) => e instanceof TokenError && e.problem === 'expired');
  });
});
