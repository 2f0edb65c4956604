// The licensing API for licensed software: public, no session, limited per key and, for unknown
// keys, per address (decided before the lookup), every answer signed over its exact bytes.
import { Hono, type Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context';
import { addressGuard } from '../domain/license-throttle';
import { activateLicense, deactivateLicense, validateLicense, type LicenseResult } from '../domain/licensing';
import { AppError } from '../lib/errors';
import { signBytes, signingKeys, signOfflineToken } from '../lib/license-signing';
import { clientNetwork, inBackground } from '../lib/request';
import { getSettings } from '../lib/settings';
import { jsonBody } from '../lib/validate';
import { activateLicenseSchema, deactivateLicenseSchema, validateLicenseSchema, type LicenseAnswer } from '../schemas/licensing';

export const LICENSES_PATH = '/api/v1/licenses';
const RETRY_AFTER_SECONDS = 60;
const PUBLIC_KEY_PATH = `${LICENSES_PATH}/public-key`;

async function throttleKey(c: Context<AppEnv>, key: string) {
  // Counted per key string, known or not, so this 429 says nothing about the key either.
  const { success } = await c.env.LICENSE_KEY_LIMITER.limit({ key: `key:${key}` });
  if (!success) {
    throw new AppError('RATE_LIMITED', 'Too many licensing requests. Please retry in a minute.', {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
}

/**
 * Signs the exact bytes of every answer under the licensing API, errors included (the body limit's
 * 413, the validator's 400, a 429), and keeps them out of every cache. Mounted on the app before
 * the body limit, so that no answer leaves unsigned.
 */
export const signLicensingAnswers = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  // The public key is the same for everyone and may be cached; every other answer is one device's.
  const cacheable = c.req.path === PUBLIC_KEY_PATH && c.res.status === 200;
  if (signedAnswers.has(c.res)) return;
  const bytes = new Uint8Array(await c.res.arrayBuffer());
  const signed = new Response(bytes, c.res);
  signed.headers.set('X-Signature', await signBytes(c.env, bytes));
  if (!cacheable) signed.headers.set('Cache-Control', 'no-store');
  c.res = signed;
});

async function answer(c: Context<AppEnv>, result: LicenseResult, input: { deviceFingerprint: string; nonce?: string }, now: number) {
  const license = result.license;
  const token =
    result.valid && license && result.tokenExpiresAt
      ? await signOfflineToken(
          c.env,
          { key: license.key, fingerprint: input.deviceFingerprint, keyTag: license.product.keyTag, tokenExpiresAt: result.tokenExpiresAt },
          now,
        )
      : null;
  const body: LicenseAnswer = {
    valid: result.valid,
    code: result.code,
    detail: result.detail,
    nonce: input.nonce ?? null,
    ts: new Date(now).toISOString(),
    ...(result.slotFreesAt !== undefined
      ? { slotFreesAt: result.slotFreesAt === null ? null : new Date(result.slotFreesAt).toISOString() }
      : {}),
    license: license
      ? { ...license, expiresAt: license.expiresAt === null ? null : new Date(license.expiresAt).toISOString(), token }
      : null,
  };
  return signedJson(c, body);
}

const encoder = new TextEncoder();
/** Answers `answer` signed as it wrote them, which signLicensingAnswers passes as they are. */
const signedAnswers = new WeakSet<Response>();

/**
 * The answer's JSON, signed over the bytes it is sent as, in one Response: signing it afterwards
 * (signLicensingAnswers) reads the body back and makes two more Responses, about 20 µs of CPU on
 * every answer (bench/unit-costs.ts). The /api middleware's `Cache-Control: no-store` is already on it.
 */
async function signedJson(c: Context<AppEnv>, body: LicenseAnswer) {
  const bytes = encoder.encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>;
  const res = c.body(bytes, 200, { 'Content-Type': 'application/json', 'X-Signature': await signBytes(c.env, bytes) });
  signedAnswers.add(res);
  return res;
}

/** Per-key limit first, then the address's limit on unknown keys, read with the lookup. */
async function prepare(c: Context<AppEnv>, key: string) {
  await throttleKey(c, key);
  const now = Date.now();
  // An IPv6 address counts by its /64 (lib/network.ts).
  return { now, guard: addressGuard(clientNetwork(c), now) };
}

export const licenses = new Hono<AppEnv>()
  .get('/public-key', async (c) => {
    const { publicJwk, pem } = await signingKeys(c.env);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.json({ jwk: publicJwk, pem }, 200);
  })
  .post('/activate', jsonBody(activateLicenseSchema), async (c) => {
    const input = c.req.valid('json');
    const { now, guard } = await prepare(c, input.key);
    const result = await activateLicense(c.var.db.$client, await getSettings(c.env.KV), input, now, guard);
    return answer(c, result, input, now);
  })
  .post('/validate', jsonBody(validateLicenseSchema), async (c) => {
    const input = c.req.valid('json');
    const { now, guard } = await prepare(c, input.key);
    // The device's lastUsed, when due, is written after the answer has gone.
    const result = await validateLicense(c.var.db.$client, await getSettings(c.env.KV), input, now, (work) => inBackground(c, work), guard);
    return answer(c, result, input, now);
  })
  .post('/deactivate', jsonBody(deactivateLicenseSchema), async (c) => {
    const input = c.req.valid('json');
    const { now, guard } = await prepare(c, input.key);
    return answer(c, await deactivateLicense(c.var.db.$client, input, now, guard), input, now);
  });
