// What the licensing routes share: the per-key and per-address limits, and the answer they give.
import type { Context } from 'hono';
import type { AppEnv } from '../../platform/context';
import { addressGuard } from './throttle';
import type { LicenseResult } from './licensing';
import type { LicenseAnswer } from './schemas';
import { AppError } from '../../platform/errors';
import { signBytes, signOfflineToken } from '../../platform/signing';
import { clientNetwork } from '../../platform/request';
import { usageJson } from '../catalog';

const RETRY_AFTER_SECONDS = 60;

export async function throttleKey(c: Context<AppEnv>, key: string) {
  // Counted per key string, known or not, so this 429 says nothing about the key either.
  const { success } = await c.env.LICENSE_KEY_LIMITER.limit({ key: `key:${key}` });
  if (!success) {
    throw new AppError('RATE_LIMITED', 'Too many licensing requests. Please retry in a minute.', {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
}

/**
 * The answer to a licensing call: the result, an offline token when valid, and the caller's nonce;
 * `extra` fields go in signed with it (an air-gapped activation's, offline.ts).
 */
export async function licenseAnswer(
  c: Context<AppEnv>,
  result: LicenseResult,
  input: { deviceFingerprint: string; nonce?: string },
  now: number,
  extra: Record<string, string | null> = {},
) {
  const license = result.license;
  const token =
    result.valid && license && result.tokenExpiresAt
      ? await signOfflineToken(
          c.env,
          {
            key: license.key,
            fingerprint: input.deviceFingerprint,
            keyTag: license.product.keyTag,
            tokenExpiresAt: result.tokenExpiresAt,
            entitlements: license.entitlements,
            expiryModel: license.expiryModel,
            licenseExpiresAt: license.expiresAt,
          },
          now,
        )
      : null;
  const body: LicenseAnswer = {
    valid: result.valid,
    code: result.code,
    detail: result.detail,
    nonce: input.nonce ?? null,
    ts: new Date(now).toISOString(),
    ...extra,
    ...moment('slotFreesAt', result.slotFreesAt),
    ...moment('leaseExpiresAt', result.leaseExpiresAt),
    ...moment('borrowedUntil', result.borrowedUntil),
    ...moment('nextSwapAt', result.nextSwapAt),
    ...(result.devices
      ? {
          devices: result.devices.map((d) => ({
            ...d,
            lastSeenAt: d.lastSeenAt === null ? null : new Date(d.lastSeenAt).toISOString(),
            leaseExpiresAt: d.leaseExpiresAt === null ? null : new Date(d.leaseExpiresAt).toISOString(),
          })),
        }
      : {}),
    license: license
      ? {
          ...license,
          expiresAt: license.expiresAt === null ? null : new Date(license.expiresAt).toISOString(),
          usage: usageJson(license.usage),
          token,
        }
      : null,
  };
  return signedJson(c, body);
}

/** An optional moment of the answer, as ISO text: left out when the result has none to say. */
function moment<K extends string>(name: K, ms: number | null | undefined): Partial<Record<K, string | null>> {
  if (ms === undefined) return {};
  return { [name]: ms === null ? null : new Date(ms).toISOString() } as Partial<Record<K, string | null>>;
}

const encoder = new TextEncoder();
/** Answers licenseAnswer signed as it wrote them, which signLicensingAnswers passes as they are. */
const signedAnswers = new WeakSet<Response>();
export const isSignedAnswer = (res: Response) => signedAnswers.has(res);

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

/**
 * A trial: limited per device and per network a minute (the per-key limiter, under their own names),
 * and per network a day in D1 by the trial itself (trials.ts), so trials cannot be minted in bulk.
 */
export async function prepareTrialCall(c: Context<AppEnv>, deviceFingerprint: string) {
  const network = clientNetwork(c);
  await throttleKey(c, `trial-device:${deviceFingerprint}`);
  await throttleKey(c, `trial-network:${network ?? 'unknown'}`);
  return { now: Date.now(), network };
}

/** Per-key limit first, then the address's limit on unknown keys, read with the lookup. */
export async function prepareLicenseCall(c: Context<AppEnv>, key: string) {
  await throttleKey(c, key);
  const now = Date.now();
  // An IPv6 address counts by its /64 (platform/network.ts).
  return { now, guard: addressGuard(clientNetwork(c), now) };
}
