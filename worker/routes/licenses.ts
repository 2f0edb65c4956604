// The licensing API for licensed software: public, no session, limited per key (and per IP for
// unknown keys), every answer signed over its exact bytes.
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../context';
import { activateLicense, deactivateLicense, validateLicense, type LicenseResult } from '../domain/licensing';
import { AppError } from '../lib/errors';
import { signBytes, signingKeys, signOfflineToken } from '../lib/license-signing';
import { clientNetwork, inBackground } from '../lib/request';
import { getSettings } from '../lib/settings';
import { jsonBody } from '../lib/validate';
import { activateLicenseSchema, deactivateLicenseSchema, validateLicenseSchema, type LicenseAnswer } from '../schemas/licensing';

const RETRY_AFTER_SECONDS = 60;

async function throttle(limiter: RateLimit, key: string) {
  const { success } = await limiter.limit({ key });
  if (!success) {
    throw new AppError('RATE_LIMITED', 'Too many licensing requests. Please retry in a minute.', {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
}

async function answer(c: Context<AppEnv>, result: LicenseResult, input: { key: string; deviceFingerprint: string; nonce?: string }, now: number) {
  if (result.code === 'NOT_FOUND') {
    // Guessing keys is limited per address; real keys are limited per key, not per shared NAT address.
    await throttle(c.env.LICENSE_IP_LIMITER, `ip:${clientNetwork(c)}`);
  }
  const license = result.license;
  const token =
    result.valid && license
      ? await signOfflineToken(c.env, { key: license.key, fingerprint: input.deviceFingerprint, keyTag: license.product.keyTag, expiresAt: license.expiresAt }, now)
      : null;
  const body: LicenseAnswer = {
    valid: result.valid,
    code: result.code,
    detail: result.detail,
    nonce: input.nonce ?? null,
    ts: new Date(now).toISOString(),
    license: license ? { ...license, expiresAt: license.expiresAt === null ? null : new Date(license.expiresAt).toISOString(), token } : null,
  };
  // Signed here, from the bytes as they are made; the middleware below signs only what arrives unsigned (errors).
  const bytes = new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>;
  c.header('X-Signature', await signBytes(c.env, bytes));
  return c.body(bytes, 200, { 'Content-Type': 'application/json' });
}

export const licenses = new Hono<AppEnv>()
  .use(async (c, next) => {
    await next();
    // Sign the exact bytes that leave, errors included, so an app can trust every answer.
    if (c.res.headers.has('X-Signature')) return;
    const bytes = new Uint8Array(await c.res.arrayBuffer());
    const signed = new Response(bytes, c.res);
    signed.headers.set('X-Signature', await signBytes(c.env, bytes));
    c.res = signed;
  })
  .get('/public-key', async (c) => {
    const { publicJwk, pem } = await signingKeys(c.env);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.json({ jwk: publicJwk, pem }, 200);
  })
  .post('/activate', jsonBody(activateLicenseSchema), async (c) => {
    const input = c.req.valid('json');
    await throttle(c.env.LICENSE_KEY_LIMITER, `key:${input.key}`);
    const now = Date.now();
    const result = await activateLicense(c.var.db.$client, await getSettings(c.env.KV), input, now);
    return answer(c, result, input, now);
  })
  .post('/validate', jsonBody(validateLicenseSchema), async (c) => {
    const input = c.req.valid('json');
    await throttle(c.env.LICENSE_KEY_LIMITER, `key:${input.key}`);
    const now = Date.now();
    // The device's lastUsed, when due, is written after the answer has gone.
    const result = await validateLicense(c.var.db.$client, await getSettings(c.env.KV), input, now, (work) => inBackground(c, work));
    return answer(c, result, input, now);
  })
  .post('/deactivate', jsonBody(deactivateLicenseSchema), async (c) => {
    const input = c.req.valid('json');
    await throttle(c.env.LICENSE_KEY_LIMITER, `key:${input.key}`);
    const now = Date.now();
    return answer(c, await deactivateLicense(c.var.db.$client, input, now), input, now);
  });
