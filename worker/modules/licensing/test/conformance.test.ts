// The SDK conformance vectors (sdk/conformance/*.json): every answer in them is one the real Worker
// gave, here, to a real request, on a database and settings of its own, at a fixed time (Date is
// faked), signed with a fixed key derived from a published seed, with its random bytes drawn from a
// seeded sequence: the same code gives the same bytes on every run. Each answer stands beside
// tampered copies and each vector says what a correct SDK concludes (sdk/conformance/README.md).
//
// `npm run conformance:generate` runs this file with `--update` and writes the vectors; run as part
// of the Worker's tests it fails when the committed ones are stale, or when a licensing code of the
// vocabulary (which the OpenAPI document lists) has no vector. A new code: add the calls that make
// the Worker answer it beside the others below, and run that command.
import { applyD1Migrations, createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { app } from '../../../app';
import type { Env } from '../../../platform/env';
import { createDb } from '../../../platform/db/client';
import { licenseKeys, products } from '../../../platform/db/schema';
import { createUser } from '../../accounts/users';
import { createSession } from '../../accounts/sessions';
import { LICENSE_CODES, type LicenseCode } from '../../../platform/vocabulary';
import type {
  CallStep,
  Case,
  Outcome,
  Step,
  Tamper,
  TokenClaims,
  TokenOutcome,
  VectorAnswer,
  VectorFile,
  VectorRequest,
} from '../../../../sdk/test/conformance/format';

/** When the vectors happen: every answer's `ts` is this or a few minutes after. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const OUT = '../../../../sdk/conformance';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const toBase64Url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromBase64Url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/** An Ed25519 key pair from the SHA-256 of `label`: anyone can derive it, so it signs nothing but vectors. */
async function derivedKey(label: string) {
  const seed = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(label)));
  // PKCS#8 for an Ed25519 private key is a fixed 16-byte prefix and the 32-byte seed.
  const prefix = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
  const privateKey = await crypto.subtle.importKey('pkcs8', new Uint8Array([...prefix, ...seed]), { name: 'Ed25519' }, true, ['sign']);
  const jwk = (await crypto.subtle.exportKey('jwk', privateKey)) as { x: string; d: string };
  const publicKey = await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, true, ['verify']);
  const spki = new Uint8Array((await crypto.subtle.exportKey('spki', publicKey)) as ArrayBuffer);
  const pem = `-----BEGIN PUBLIC KEY-----\n${toBase64(spki)}\n-----END PUBLIC KEY-----\n`;
  return {
    x: jwk.x,
    d: jwk.d,
    pem,
    jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
    sign: async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, bytes)),
  };
}

type Keys = Awaited<ReturnType<typeof derivedKey>>;
let server: Keys;
let stranger: Keys;
let workerEnv: Env;

/** A seeded stand-in for crypto.getRandomValues (xorshift32): the Worker's ids and trial keys come out the same each run. */
function seededRandom(seed: number) {
  let state = seed;
  return <T extends ArrayBufferView | null>(array: T): T => {
    const bytes = new Uint8Array(array!.buffer, array!.byteOffset, array!.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      bytes[i] = state & 255;
    }
    return array;
  };
}

let clock = T0;
/** Moves the faked clock (the Worker reads Date.now()). */
const at = (ms: number) => {
  clock = ms;
  vi.setSystemTime(ms);
};

let ip = 0;
type Raw = { status: number; bytes: Uint8Array; signature: string | null; text: string };

/** One request to the Worker, with the vectors' bindings and key; its background work finishes first. */
async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  ip++;
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`http://localhost${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': `10.77.${ip >> 8}.${ip & 255}`, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    workerEnv,
    ctx,
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  await waitOnExecutionContext(ctx);
  return { status: res.status, bytes, signature: res.headers.get('x-signature'), text: decoder.decode(bytes) };
}

const db = () => createDb(env.CONFORMANCE_DB);

let productCount = 0;
async function product(values: Partial<typeof products.$inferInsert> = {}) {
  productCount++;
  const keyTag = values.keyTag ?? `CONF${String(productCount).padStart(2, '0')}`;
  const id = `c0ffee0000000000000000${String(productCount).padStart(2, '0')}`;
  await db()
    .insert(products)
    .values({
      id,
      name: `Conformance ${keyTag}`,
      keyTag,
      baseCreditCost: 10,
      creditsPerDay: 1,
      maxActivations: 1,
      isActive: true,
      createdAt: new Date(T0 - DAY),
      ...values,
    });
  return { id, keyTag, maxActivations: values.maxActivations ?? 1 };
}

let keyCount = 0;
async function licenseKey(p: Awaited<ReturnType<typeof product>>, values: Partial<typeof licenseKeys.$inferInsert> & { name: string }) {
  keyCount++;
  const { name, ...rest } = values;
  const key = `${p.keyTag}-${name}`.toUpperCase();
  await db()
    .insert(licenseKeys)
    .values({
      id: `c0ffee00000000000000${String(keyCount).padStart(4, '0')}`,
      key,
      status: 'available',
      productId: p.id,
      productName: `Conformance ${p.keyTag}`,
      productKeyTag: p.keyTag,
      productType: 'software',
      duration: 365,
      maxActivations: p.maxActivations,
      generationMethod: 'automatic',
      createdAt: new Date(T0 - DAY),
      ...rest,
    });
  return key;
}

const PATHS: Record<CallStep['action'], string> = {
  activate: '/api/v1/licenses/activate',
  validate: '/api/v1/licenses/validate',
  deactivate: '/api/v1/licenses/deactivate',
  heartbeat: '/api/v1/licenses/heartbeat',
  borrow: '/api/v1/licenses/borrow',
  'replace-device': '/api/v1/licenses/replace-device',
  trial: '/api/v1/licenses/trial',
  consume: '/api/v1/licenses/consume',
};

/** What an SDK sends for `request` (the body's fields and, for consume, the Idempotency-Key). */
function sent(action: CallStep['action'], request: VectorRequest): CallStep['sent'] {
  const body: Record<string, unknown> =
    action === 'trial'
      ? { deviceFingerprint: request.fingerprint, nonce: request.nonce, keyTag: request.keyTag }
      : { key: request.key, deviceFingerprint: request.fingerprint, nonce: request.nonce };
  if (action === 'borrow') body.hours = request.hours;
  if (action === 'replace-device') body.replaceDeviceId = request.replaceDeviceId;
  if (action === 'consume') body.amount = request.amount ?? 1;
  if (request.releaseDate !== undefined) body.releaseDate = request.releaseDate;
  return { path: PATHS[action], body, ...(action === 'consume' ? { idempotencyKey: request.idempotencyKey } : {}) };
}

const answerOf = (raw: Raw): VectorAnswer => ({ status: raw.status, body: toBase64(raw.bytes), signature: raw.signature });

/** A real call to the Worker at `when`, as an SDK would make it. */
async function real(action: CallStep['action'], request: VectorRequest, when: number) {
  at(when);
  const { path, body, idempotencyKey } = sent(action, request);
  const raw = await send('POST', path, body, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {});
  if (!raw.signature) throw new Error(`${path} answered unsigned: ${raw.text}`);
  return raw;
}

type WireAnswer = {
  valid: boolean;
  code: string;
  license: null | { key: string; token?: string | null; usage?: { remaining: number } | null };
  leaseExpiresAt?: string | null;
  slotFreesAt?: string | null;
  borrowedUntil?: string | null;
  nextSwapAt?: string | null;
  devices?: Array<{ id: string }>;
};

const ms = (value: string | null | undefined) => (value ? Date.parse(value) : null);

/** The claims a correct SDK reads from a token (the generator decodes the token the Worker signed). */
function claimsOf(token: string): TokenClaims {
  const claims = JSON.parse(decoder.decode(fromBase64Url(token.split('.')[1]))) as {
    sub: string;
    fp: string;
    product: string;
    iat: number;
    exp: number;
    ent?: string[];
  };
  return {
    key: claims.sub,
    fingerprint: claims.fp,
    keyTag: claims.product,
    issuedAt: claims.iat * 1000,
    expiresAt: claims.exp * 1000,
    entitlements: claims.ent ?? [],
  };
}

const NOTHING: Omit<Outcome, 'valid' | 'code' | 'source'> = {
  licenseKey: null,
  usageRemaining: null,
  leaseExpiresAt: null,
  slotFreesAt: null,
  borrowedUntil: null,
  nextSwapAt: null,
  deviceIds: [],
  offlineToken: null,
};
const refused = (code: string): Outcome => ({ valid: false, code, source: 'none', ...NOTHING });
const offline = (token: TokenClaims): Outcome => ({ valid: true, code: 'VALID', source: 'offline', ...NOTHING, offlineToken: token });

/**
 * What a correct SDK concludes from a verified 200 answer: the answer's own fields; the token it
 * keeps (a valid answer's, or for a debit the one it kept before: a debit says nothing of the device).
 */
function trusted(action: CallStep['action'], raw: Raw, kept: TokenClaims | null): Outcome {
  if (raw.status !== 200) return refused('REJECTED');
  const answer = JSON.parse(raw.text) as WireAnswer;
  const token = action === 'consume' ? kept : answer.valid && answer.license?.token ? claimsOf(answer.license.token) : null;
  return {
    valid: answer.valid,
    code: answer.code,
    source: 'online',
    licenseKey: answer.license?.key ?? null,
    usageRemaining: answer.license?.usage?.remaining ?? null,
    leaseExpiresAt: ms(answer.leaseExpiresAt),
    slotFreesAt: ms(answer.slotFreesAt),
    borrowedUntil: ms(answer.borrowedUntil),
    nextSwapAt: ms(answer.nextSwapAt),
    deviceIds: (answer.devices ?? []).map((d) => d.id),
    offlineToken: token,
  };
}

/** One byte of the signed body changed (a letter of `detail`, so the JSON stays well formed). */
function changedByte(bytes: Uint8Array): Uint8Array {
  const text = decoder.decode(bytes);
  const field = text.includes('"detail":"') ? '"detail":"' : '"message":"';
  const at = text.indexOf(field) + field.length;
  const copy = new Uint8Array(bytes);
  copy[at] = copy[at] === 0x58 ? 0x59 : 0x58;
  return copy;
}

/** The signature with one character changed (still base64, the same length). */
const changedSignature = (signature: string) => (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);

/** The tampered copies of a call's answer, each refused as INVALID_SIGNATURE by a correct SDK. */
async function tampered(name: string, code: string, action: CallStep['action'], request: VectorRequest, raw: Raw, now: number) {
  const step = (req: VectorRequest, answer: VectorAnswer): CallStep => ({
    do: 'call',
    action,
    request: req,
    now,
    sent: sent(action, req),
    answer,
    expect: refused('INVALID_SIGNATURE'),
  });
  const cases: Case[] = [
    {
      name: `${name}: one byte of the body changed`,
      code,
      tamper: 'changed-byte',
      steps: [step(request, { ...answerOf(raw), body: toBase64(changedByte(raw.bytes)) })],
    },
    {
      name: `${name}: the X-Signature header changed`,
      code,
      tamper: 'changed-signature',
      steps: [step(request, { ...answerOf(raw), signature: changedSignature(raw.signature!) })],
    },
    { name: `${name}: no X-Signature header`, code, tamper: 'no-signature', steps: [step(request, { ...answerOf(raw), signature: null })] },
    {
      name: `${name}: signed by another key`,
      code,
      tamper: 'wrong-key',
      steps: [step(request, { ...answerOf(raw), signature: toBase64(await stranger.sign(raw.bytes)) })],
    },
  ];
  if (raw.status === 200) {
    cases.push({
      name: `${name}: the answer to another request (its nonce differs)`,
      code,
      tamper: 'other-request',
      steps: [step({ ...request, nonce: `${request.nonce}-other` }, answerOf(raw))],
    });
    const answer = JSON.parse(raw.text) as WireAnswer;
    if (!answer.valid) {
      // The refusal rewritten as a grant, its signature kept: what a cracker would try first.
      const forged = raw.text.replace(`"valid":false,"code":"${answer.code}"`, '"valid":true,"code":"VALID"');
      cases.push({
        name: `${name}: rewritten as VALID, the signature kept`,
        code,
        tamper: 'forged-valid',
        steps: [step(request, { ...answerOf(raw), body: toBase64(encoder.encode(forged)) })],
      });
    }
  }
  return cases;
}

/** A call case: the real answer, a second after it was signed, and its tampered copies. */
async function callCases(name: string, action: CallStep['action'], request: VectorRequest, when: number, kept: TokenClaims | null = null) {
  const raw = await real(action, request, when);
  const now = when + 1000;
  const expect = trusted(action, raw, kept);
  const code = expect.code;
  const base: Case = {
    name,
    code,
    tamper: null,
    steps: [{ do: 'call', action, request, now, sent: sent(action, request), answer: answerOf(raw), expect }],
  };
  return { raw, expect, cases: [base, ...(await tampered(name, code, action, request, raw, now))] };
}

let nonces = 0;
const req = (key: string, fingerprint: string, extra: Partial<VectorRequest> = {}): VectorRequest => ({
  key,
  fingerprint,
  nonce: `conformance-nonce-${String(++nonces).padStart(3, '0')}`,
  ...extra,
});

const file = (about: string, cases: Case[]): VectorFile => ({
  about: `${about} Generated by \`npm run conformance:generate\` from the real Worker (worker/modules/licensing/test/conformance.test.ts); do not edit.`,
  version: 1,
  publicKey: { pem: server.pem, jwk: server.jwk },
  cases,
});

const json = (value: unknown) => `${JSON.stringify(value, null, 1)}\n`;

const answers: Case[] = [];
const tokens: Case[] = [];
const scenarios: Case[] = [];
const airGapped: Case[] = [];

describe('the SDK conformance vectors', () => {
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at(T0);
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(seededRandom(0x4b455950));
    server = await derivedKey('keypanel conformance vectors: the server key');
    stranger = await derivedKey("keypanel conformance vectors: a stranger's key");
    await applyD1Migrations(env.CONFORMANCE_DB, env.TEST_MIGRATIONS);
    workerEnv = {
      ...(env as unknown as Env),
      DB: env.CONFORMANCE_DB,
      KV: env.CONFORMANCE_KV,
      LICENSE_SIGNING_KEY: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: server.x, d: server.d, kid: 'conformance' }),
    };
  });
  afterAll(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('answers every licensing code, each beside its tampered copies', async () => {
    // Node-locked, 24 h offline tokens, an entitlement.
    const app1 = await product({ maxActivations: 1, offlineTokenHours: 24, entitlements: ['pro'] });
    const a = await licenseKey(app1, { name: 'NODE-LOCKED' });
    const activated = await callCases('activate: a first device takes the slot', 'activate', req(a, 'device-alpha-0001'), T0);
    answers.push(...activated.cases);
    const token = activated.expect.offlineToken!;
    answers.push(...(await callCases('validate: the activated device', 'validate', req(a, 'device-alpha-0001'), T0 + MINUTE)).cases);
    const full = await callCases('activate: a second device, the key full', 'activate', req(a, 'device-beta-00002'), T0 + 2 * MINUTE);
    answers.push(...full.cases);
    answers.push(
      ...(
        await callCases(
          'replace-device: the second device takes the first one’s slot',
          'replace-device',
          req(a, 'device-beta-00002', { replaceDeviceId: full.expect.deviceIds[0] }),
          T0 + 3 * MINUTE,
        )
      ).cases,
    );
    const replacedAway = await callCases(
      'validate: the device replaced by another',
      'validate',
      req(a, 'device-alpha-0001'),
      T0 + 3 * MINUTE + 30_000,
    );
    answers.push(...replacedAway.cases);
    answers.push(
      ...(await callCases('borrow: a node-locked key', 'borrow', req(a, 'device-beta-00002', { hours: 2 }), T0 + 4 * MINUTE)).cases,
    );
    answers.push(
      ...(
        await callCases(
          'consume: a key not metered',
          'consume',
          req(a, 'device-beta-00002', { idempotencyKey: 'conformance-debit-0' }),
          T0 + 5 * MINUTE,
        )
      ).cases,
    );
    answers.push(
      ...(
        await callCases(
          'validate: a key that does not exist',
          'validate',
          req(`${app1.keyTag}-NO-SUCH-KEY`, 'device-alpha-0001'),
          T0 + 6 * MINUTE,
        )
      ).cases,
    );
    const fresh = await licenseKey(app1, { name: 'NEVER-USED' });
    answers.push(
      ...(await callCases('validate: a device never activated', 'validate', req(fresh, 'device-alpha-0001'), T0 + 7 * MINUTE)).cases,
    );
    const revoked = await licenseKey(app1, { name: 'REVOKED', status: 'revoked', revokedAt: new Date(T0 - DAY) });
    answers.push(...(await callCases('validate: a revoked key', 'validate', req(revoked, 'device-alpha-0001'), T0 + 8 * MINUTE)).cases);
    const expired = await licenseKey(app1, {
      name: 'EXPIRED',
      status: 'used',
      purchasedAt: new Date(T0 - 40 * DAY),
      expiresAt: new Date(T0 - 10 * DAY),
      duration: 30,
    });
    answers.push(...(await callCases('validate: an expired key', 'validate', req(expired, 'device-alpha-0001'), T0 + 9 * MINUTE)).cases);
    const leaving = await licenseKey(app1, { name: 'DEACTIVATE' });
    await real('activate', req(leaving, 'device-gamma-0003'), T0 + 10 * MINUTE);
    answers.push(
      ...(await callCases('deactivate: the device lets its slot go', 'deactivate', req(leaving, 'device-gamma-0003'), T0 + 11 * MINUTE))
        .cases,
    );
    await env.CONFORMANCE_DB.prepare(
      'INSERT INTO retired_keys (key, key_id, retired_at) SELECT ?1, id, ?2 FROM license_keys WHERE key = ?3',
    )
      .bind(`${app1.keyTag}-OLD-VALUE`, T0, leaving)
      .run();
    answers.push(
      ...(
        await callCases(
          'validate: a value its holder regenerated',
          'validate',
          req(`${app1.keyTag}-OLD-VALUE`, 'device-gamma-0003'),
          T0 + 12 * MINUTE,
        )
      ).cases,
    );
    // The API's own refusal of a malformed request (a 400 envelope): signed too.
    answers.push(...(await callCases('validate: a malformed request', 'validate', req(a, 'short'), T0 + 13 * MINUTE)).cases);

    // A product no longer sold: its unused keys take no device.
    const retiredProduct = await product({ isActive: false });
    const unsold = await licenseKey(retiredProduct, { name: 'UNSOLD' });
    answers.push(
      ...(await callCases('activate: a product no longer available', 'activate', req(unsold, 'device-alpha-0001'), T0 + 14 * MINUTE)).cases,
    );

    // No swaps allowed: a replacement is refused.
    const noSwaps = await product({ swapLimit: 0 });
    const locked = await licenseKey(noSwaps, { name: 'NO-SWAPS' });
    await real('activate', req(locked, 'device-alpha-0001'), T0 + 15 * MINUTE);
    const lockedFull = trusted('activate', await real('activate', req(locked, 'device-beta-00002'), T0 + 16 * MINUTE), null);
    answers.push(
      ...(
        await callCases(
          'replace-device: the product allows no swaps',
          'replace-device',
          req(locked, 'device-beta-00002', { replaceDeviceId: lockedFull.deviceIds[0] }),
          T0 + 17 * MINUTE,
        )
      ).cases,
    );

    // Floating: one seat, a 10-minute lease, borrowing up to 48 hours.
    const seats = await product({ licenseModel: 'floating', leaseMinutes: 10, borrowMaxHours: 48, entitlements: ['team'] });
    const f = await licenseKey(seats, { name: 'FLOATING' });
    answers.push(
      ...(await callCases('activate: a device takes the floating seat', 'activate', req(f, 'seat-device-0001'), T0 + 20 * MINUTE)).cases,
    );
    answers.push(
      ...(await callCases('heartbeat: the seat’s lease renewed', 'heartbeat', req(f, 'seat-device-0001'), T0 + 25 * MINUTE)).cases,
    );
    answers.push(...(await callCases('activate: every seat leased', 'activate', req(f, 'seat-device-0002'), T0 + 26 * MINUTE)).cases);
    answers.push(
      ...(await callCases('borrow: the seat for 24 hours', 'borrow', req(f, 'seat-device-0001', { hours: 24 }), T0 + 27 * MINUTE)).cases,
    );
    answers.push(
      ...(await callCases('deactivate: the borrowed seat checked in', 'deactivate', req(f, 'seat-device-0001'), T0 + 28 * MINUTE)).cases,
    );
    const g = await licenseKey(seats, { name: 'LAPSED' });
    await real('activate', req(g, 'seat-device-0003'), T0 + 30 * MINUTE);
    answers.push(...(await callCases('validate: a lease that ran out', 'validate', req(g, 'seat-device-0003'), T0 + 45 * MINUTE)).cases);

    // Trials: a 7-day trial of its own product.
    const trialApp = await product({ trialDays: 7 });
    answers.push(
      ...(
        await callCases(
          'trial: a device’s first trial',
          'trial',
          req('', 'trial-device-0001', { keyTag: trialApp.keyTag }),
          T0 + 50 * MINUTE,
        )
      ).cases,
    );
    answers.push(
      ...(
        await callCases(
          'trial: the same device again',
          'trial',
          req('', 'trial-device-0001', { keyTag: trialApp.keyTag }),
          T0 + 51 * MINUTE,
        )
      ).cases,
    );
    answers.push(
      ...(await callCases('trial: a product without one', 'trial', req('', 'trial-device-0001', { keyTag: app1.keyTag }), T0 + 52 * MINUTE))
        .cases,
    );

    // Metered: 10 uses.
    const metered = await product({ usageAllowance: 10 });
    const m = await licenseKey(metered, { name: 'METERED' });
    const meteredToken = (await callCases('activate: a metered key', 'activate', req(m, 'meter-device-0001'), T0 + 55 * MINUTE)).expect
      .offlineToken;
    answers.push(
      ...(
        await callCases(
          'consume: 3 uses debited',
          'consume',
          req(m, 'meter-device-0001', { amount: 3, idempotencyKey: 'conformance-debit-1' }),
          T0 + 56 * MINUTE,
          null,
        )
      ).cases,
    );
    answers.push(
      ...(
        await callCases(
          'consume: more uses than are left',
          'consume',
          req(m, 'meter-device-0001', { amount: 100, idempotencyKey: 'conformance-debit-2' }),
          T0 + 57 * MINUTE,
          null,
        )
      ).cases,
    );
    expect(meteredToken).not.toBeNull();

    // Perpetual fallback: a key that expires at T0 + 1 h, activated while live. Past its expiry, a
    // release dated before the expiry keeps working (UPDATES_ENDED, valid, a token kept); a later one
    // needs the key renewed (EXPIRED).
    const fallbackApp = await product({ expiryModel: 'perpetual-fallback', offlineTokenHours: 24 });
    const pf = await licenseKey(fallbackApp, {
      name: 'PERPETUAL-FALLBACK',
      status: 'used',
      expiryModel: 'perpetual-fallback',
      purchasedAt: new Date(T0 - 30 * DAY),
      expiresAt: new Date(T0 + HOUR),
      duration: 30,
    });
    await real('activate', req(pf, 'fallback-device-0001'), T0 + 58 * MINUTE);
    const updatesEnded = await callCases(
      'validate: a perpetual-fallback key past its expiry, by a release dated before it',
      'validate',
      req(pf, 'fallback-device-0001', { releaseDate: '2029-12-15' }),
      T0 + 61 * MINUTE,
    );
    answers.push(...updatesEnded.cases);
    const releasedLater = await callCases(
      'validate: a perpetual-fallback key past its expiry, by a release dated after it',
      'validate',
      req(pf, 'fallback-device-0001', { releaseDate: '2030-01-02' }),
      T0 + 62 * MINUTE,
    );
    answers.push(...releasedLater.cases);
    expect(updatesEnded.expect).toMatchObject({ valid: true, code: 'UPDATES_ENDED', offlineToken: { key: pf } });
    expect(releasedLater.expect).toMatchObject({ valid: false, code: 'EXPIRED', offlineToken: null });

    // Offline tokens: the one the first activation kept, checked against each expectation and clock.
    const first = (activated.cases[0].steps[0] as CallStep).answer!;
    const issued = (JSON.parse(decoder.decode(Uint8Array.from(atob(first.body), (c) => c.charCodeAt(0)))) as WireAnswer).license!.token!;
    const [head, body, signature] = issued.split('.');
    const verify = (
      name: string,
      tamper: Tamper | null,
      tokenText: string,
      now: number,
      expected: TokenOutcome,
      key = a,
      fp = 'device-alpha-0001',
    ): Case => ({
      name,
      code: null,
      tamper,
      steps: [{ do: 'verifyToken', token: tokenText, key, fingerprint: fp, now, expect: expected }],
    });
    const claims = JSON.parse(decoder.decode(fromBase64Url(body))) as Record<string, unknown>;
    const reencode = (value: unknown) => toBase64Url(encoder.encode(JSON.stringify(value)));
    const header = JSON.parse(decoder.decode(fromBase64Url(head))) as Record<string, unknown>;
    const resigned = async (h: string, b: string) => `${h}.${b}.${toBase64Url(await stranger.sign(encoder.encode(`${h}.${b}`)))}`;
    tokens.push(
      verify('a token within its life', null, issued, token.issuedAt + HOUR, { ok: true, token }),
      verify('a token a millisecond before it expires', null, issued, token.expiresAt - 1, { ok: true, token }),
      verify('the key given in lower case', null, issued, token.issuedAt + HOUR, { ok: true, token }, a.toLowerCase()),
      verify('a token at the second it expires', 'expired', issued, token.expiresAt, { ok: false, problem: 'expired' }),
      verify('a token past its expiry', 'expired', issued, token.expiresAt + DAY, { ok: false, problem: 'expired' }),
      verify(
        'its expiry moved a year on, the signature kept',
        'changed-byte',
        `${head}.${reencode({ ...claims, exp: (claims.exp as number) + 365 * 86400 })}.${signature}`,
        token.issuedAt + HOUR,
        { ok: false, problem: 'signature' },
      ),
      verify(
        'one byte of its signature changed',
        'changed-byte',
        `${head}.${body}.${(signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)}`,
        token.issuedAt + HOUR,
        { ok: false, problem: 'signature' },
      ),
      verify(
        'its header naming alg none, no signature',
        'changed-header',
        `${reencode({ ...header, alg: 'none' })}.${body}.`,
        token.issuedAt + HOUR,
        { ok: false, problem: 'malformed' },
      ),
      verify(
        'its header naming HS256',
        'changed-header',
        `${reencode({ ...header, alg: 'HS256' })}.${body}.${signature}`,
        token.issuedAt + HOUR,
        { ok: false, problem: 'malformed' },
      ),
      verify(
        'its header’s kid changed, the signature kept',
        'changed-header',
        `${reencode({ ...header, kid: 'other' })}.${body}.${signature}`,
        token.issuedAt + HOUR,
        { ok: false, problem: 'signature' },
      ),
      verify('signed by another key', 'wrong-key', await resigned(head, body), token.issuedAt + HOUR, { ok: false, problem: 'signature' }),
      verify(
        'checked for another license key',
        'other-request',
        issued,
        token.issuedAt + HOUR,
        { ok: false, problem: 'key' },
        `${app1.keyTag}-OTHER`,
      ),
      verify(
        'checked for another device',
        'other-request',
        issued,
        token.issuedAt + HOUR,
        { ok: false, problem: 'fingerprint' },
        a,
        'device-other-9999',
      ),
      verify('two parts, not three', 'malformed', `${head}.${body}`, token.issuedAt + HOUR, { ok: false, problem: 'malformed' }),
    );

    // Scenarios over time, on one device's store: the same steps give the same results in every SDK.
    const activateStep = activated.cases[0].steps[0] as CallStep;
    const nap = (now: number, expected: Outcome): CallStep => {
      const request = req(a, 'device-alpha-0001');
      return { do: 'call', action: 'validate', request, now, sent: sent('validate', request), answer: null, expect: expected };
    };
    const check = (now: number, expected: Outcome): Step => ({
      do: 'checkOffline',
      key: a,
      fingerprint: 'device-alpha-0001',
      now,
      expect: expected,
    });
    const gone = refused('UNREACHABLE');
    const behind = refused('CLOCK_BEHIND');
    scenarios.push(
      {
        name: 'offline grace: the kept token answers while the server cannot be reached, until it expires',
        code: null,
        tamper: null,
        steps: [
          activateStep,
          nap(T0 + 6 * HOUR, offline(token)),
          check(token.expiresAt - 1000, offline(token)),
          nap(token.expiresAt + 1000, gone),
          check(token.expiresAt + 2000, gone),
        ],
      },
      {
        name: 'a clock wound back behind the signed time: nothing offline is believed, until it is set right',
        code: null,
        tamper: null,
        steps: [
          activateStep,
          nap(T0 - DAY, behind),
          check(T0 - 10 * MINUTE, behind),
          check(T0 - 4 * MINUTE, offline(token)),
          check(T0 + HOUR, offline(token)),
        ],
      },
      {
        name: 'a token checked with the clock wound back behind the signed time',
        code: null,
        tamper: 'clock-behind',
        steps: [
          activateStep,
          {
            do: 'verifyToken',
            token: issued,
            key: a,
            fingerprint: 'device-alpha-0001',
            now: T0 - DAY,
            expect: { ok: false, problem: 'clock' },
          },
          { do: 'verifyToken', token: issued, key: a, fingerprint: 'device-alpha-0001', now: T0 + HOUR, expect: { ok: true, token } },
        ],
      },
      {
        name: 'a tampered answer changes nothing kept: the token still answers offline',
        code: null,
        tamper: 'changed-byte',
        steps: [
          activateStep,
          answers.find((c) => c.name.startsWith('validate: the activated device: one byte'))!.steps[0],
          check(T0 + HOUR, offline(token)),
        ],
      },
      {
        name: 'the server says no: the kept token is dropped, and offline nothing answers',
        code: null,
        tamper: null,
        steps: [activateStep, replacedAway.cases[0].steps[0], nap(T0 + HOUR, gone), check(T0 + HOUR, gone)],
      },
      {
        name: 'a server error is no answer: the kept token answers; without one, UNREACHABLE',
        code: null,
        tamper: null,
        steps: [
          { ...nap(T0 + HOUR, gone), answer: { status: 503, body: '', signature: null } },
          activateStep,
          { ...nap(T0 + 2 * HOUR, offline(token)), answer: { status: 503, body: '', signature: null } },
        ],
      },
    );
    expect(token.entitlements).toEqual(['pro']);
  });

  it('turns air-gapped requests into responses, each beside its tampered copies', async () => {
    const owner = await createUser(db(), {
      username: 'conformance',
      email: 'conformance@example.com',
      password: null,
      emailVerified: true,
    });
    const session = await createSession(db(), env.JWT_SECRET, owner, { ipAddress: null, userAgent: null, location: null }, true, clock);
    if (!session) throw new Error('no session');
    const offlineApp = await product({ maxActivations: 1, offlineTokenHours: 72, entitlements: ['offline'] });
    const o = await licenseKey(offlineApp, { name: 'AIR-GAPPED', purchasedBy: owner.id, purchasedAt: new Date(T0 - DAY), status: 'used' });
    const device = await derivedKey('keypanel conformance vectors: the air-gapped device key');
    const fingerprint = 'airgapped-device-0001';
    const request = (nonce: string, fp = fingerprint, key = o) => ({
      type: 'keypanel.offline-activation-request',
      key,
      deviceFingerprint: fp,
      nonce,
      deviceKey: device.x,
      createdAt: new Date(clock).toISOString(),
    });
    const upload = async (body: unknown, when: number) => {
      at(when);
      const raw = await send('POST', '/api/users/my-keys/offline-activations', body, { authorization: `Bearer ${session.token}` });
      if (raw.status !== 200) throw new Error(`offline activation: ${raw.status} ${raw.text}`);
      return raw.text;
    };
    const plant = (nonce: string, fp = fingerprint, key = o): Step => ({
      do: 'plantOfflineRequest',
      key,
      fingerprint: fp,
      nonce,
      deviceKey: device.x,
      privateKey: device.d,
    });
    const apply = (response: string, now: number, expected: Outcome, fp = fingerprint): Step => ({
      do: 'applyOfflineResponse',
      fingerprint: fp,
      now,
      response,
      expect: expected,
    });
    /** A response's copies with one byte of the answer, its signature, or its signer changed: refused as INVALID_SIGNATURE. */
    const tamperedResponses = async (
      name: string,
      code: string,
      text: string,
      planted: Step,
      now: number,
      fp = fingerprint,
    ): Promise<Case[]> => {
      const parsed = JSON.parse(text) as { answer: string; signature: string };
      const edit = (changes: Partial<typeof parsed>) => JSON.stringify({ ...parsed, ...changes });
      const refusedHere = (response: string) => [planted, apply(response, now, refused('INVALID_SIGNATURE'), fp)];
      return [
        {
          name: `${name}: one byte of the signed answer changed`,
          code,
          tamper: 'changed-byte',
          steps: refusedHere(edit({ answer: decoder.decode(changedByte(encoder.encode(parsed.answer))) })),
        },
        {
          name: `${name}: its signature changed`,
          code,
          tamper: 'changed-signature',
          steps: refusedHere(edit({ signature: changedSignature(parsed.signature) })),
        },
        {
          name: `${name}: signed by another key`,
          code,
          tamper: 'wrong-key',
          steps: refusedHere(edit({ signature: toBase64(await stranger.sign(encoder.encode(parsed.answer))) })),
        },
      ];
    };
    const nonce = 'conformance-offline-nonce-0001';
    const when = T0 + 2 * HOUR;
    const response = await upload(request(nonce), when);
    const file = JSON.parse(response) as { answer: string; signature: string };
    const answer = JSON.parse(file.answer) as WireAnswer & { ts: string };
    const token = claimsOf(answer.license!.token!);
    const good: Outcome = { ...trusted('activate', { status: 200, text: file.answer } as Raw, null), offlineToken: token };
    const now = when + MINUTE;
    airGapped.push(
      {
        name: 'a response to the request this device wrote: activated, then offline, then not applied twice',
        code: 'OFFLINE_ACTIVATED',
        tamper: null,
        steps: [
          plant(nonce),
          apply(response, now, good),
          { do: 'checkOffline', key: o, fingerprint, now: now + HOUR, expect: offline(token) },
          apply(response, now + HOUR, refused('NOT_THIS_REQUEST')),
        ],
      },
      {
        name: 'applied on another device',
        code: 'OFFLINE_ACTIVATED',
        tamper: 'other-request',
        steps: [plant(nonce, 'airgapped-device-0002'), apply(response, now, refused('NOT_THIS_REQUEST'), 'airgapped-device-0002')],
      },
      {
        name: 'the answer to an earlier request (the device wrote another since)',
        code: 'OFFLINE_ACTIVATED',
        tamper: 'other-request',
        steps: [plant('conformance-offline-nonce-0002'), apply(response, now, refused('NOT_THIS_REQUEST'))],
      },
      {
        name: 'no request written on this device',
        code: 'OFFLINE_ACTIVATED',
        tamper: 'other-request',
        steps: [apply(response, now, refused('NOT_THIS_REQUEST'))],
      },
      {
        name: 'applied with the clock wound back behind the signed time',
        code: 'OFFLINE_ACTIVATED',
        tamper: 'clock-behind',
        steps: [plant(nonce), apply(response, when - DAY, refused('CLOCK_BEHIND'))],
      },
      {
        name: 'applied after its token expired',
        code: 'OFFLINE_ACTIVATED',
        tamper: 'expired',
        steps: [plant(nonce), apply(response, token.expiresAt + MINUTE, refused('INVALID_SIGNATURE'))],
      },
    );
    airGapped.push(
      ...(await tamperedResponses('a response to the request this device wrote', 'OFFLINE_ACTIVATED', response, plant(nonce), now)),
    );
    // The same request again: its nonce is accepted once.
    const again = await upload(request(nonce), when + 2 * MINUTE);
    const againAnswer = (JSON.parse(again) as { answer: string }).answer;
    airGapped.push({
      name: 'a request turned into a response twice',
      code: 'NONCE_ALREADY_USED',
      tamper: null,
      steps: [
        plant(nonce),
        apply(again, when + 3 * MINUTE, { ...trusted('activate', { status: 200, text: againAnswer } as Raw, null), offlineToken: null }),
      ],
    });
    airGapped.push(
      ...(await tamperedResponses('a request turned into a response twice', 'NONCE_ALREADY_USED', again, plant(nonce), when + 3 * MINUTE)),
    );
    // Another device, the key full.
    const second = 'conformance-offline-nonce-0003';
    const full = await upload(request(second, 'airgapped-device-0002'), when + 4 * MINUTE);
    const fullAnswer = (JSON.parse(full) as { answer: string }).answer;
    airGapped.push({
      name: 'a second device, the key full',
      code: 'DEVICE_LIMIT_REACHED',
      tamper: null,
      steps: [
        plant(second, 'airgapped-device-0002'),
        apply(
          full,
          when + 5 * MINUTE,
          { ...trusted('activate', { status: 200, text: fullAnswer } as Raw, null), offlineToken: null },
          'airgapped-device-0002',
        ),
      ],
    });
    airGapped.push(
      ...(await tamperedResponses(
        'a second device, the key full',
        'DEVICE_LIMIT_REACHED',
        full,
        plant(second, 'airgapped-device-0002'),
        when + 5 * MINUTE,
        'airgapped-device-0002',
      )),
    );
  });

  it('covers every licensing code the API answers, and matches the committed vectors', async () => {
    const covered = new Set([...answers, ...airGapped].filter((c) => c.tamper === null).map((c) => c.code));
    const missing = LICENSE_CODES.filter((code: LicenseCode) => !covered.has(code));
    expect(missing, 'licensing codes without a vector: add a scenario here and run `npm run conformance:generate`').toEqual([]);
    // Each code's answer is refused tampered, too.
    for (const code of LICENSE_CODES) {
      const tampers = new Set([...answers, ...airGapped].filter((c) => c.code === code && c.tamper !== null).map((c) => c.tamper));
      expect([...tampers], code).toEqual(expect.arrayContaining(['changed-byte', 'changed-signature', 'wrong-key']));
    }
    await expect(json(file('Signed answers to every licensing call, each with tampered copies.', answers))).toMatchFileSnapshot(
      `${OUT}/answers.json`,
    );
    await expect(json(file('Offline tokens the Worker signed, checked as they are and tampered.', tokens))).toMatchFileSnapshot(
      `${OUT}/tokens.json`,
    );
    await expect(
      json(file('Offline grace, clock rollback and unreachable servers, step by step on one device.', scenarios)),
    ).toMatchFileSnapshot(`${OUT}/scenarios.json`);
    await expect(json(file('Air-gapped activation responses, as they are and tampered.', airGapped))).toMatchFileSnapshot(
      `${OUT}/air-gapped.json`,
    );
  });
});
