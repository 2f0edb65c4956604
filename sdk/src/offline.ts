// Air-gapped activation. The device writes a request (its key, fingerprint, a one-time nonce and the
// public half of an Ed25519 key pair it makes for this activation); its holder turns it into a signed
// response on a connected machine (My Keys, or `keypanel license offline-activate`) and carries it
// back; the device believes the response only when the pinned key signed it and it answers the
// request this device wrote last (same key, fingerprint, nonce and device key), once. Later the
// device writes a deactivation proof signed with its private key, erasing its offline token as it
// does, and the proof brought back frees the slot.
import type { DeviceInfo } from './client.js';
import type { TokenStore } from './store.js';
import { clockBehindDetail, type TrustedClock } from './trusted-time.js';
import {
  SERVER_CODES,
  VALID_CODES,
  type BoundDevice,
  type LicenseInfo,
  type LicenseResult,
  type ServerCode,
  type VerifyKey,
} from './types.js';
import { normalizeKey, TokenError, verifyOfflineToken, verifySignature } from './verify.js';

export const OFFLINE_REQUEST_TYPE = 'keypanel.offline-activation-request';
export const OFFLINE_RESPONSE_TYPE = 'keypanel.offline-activation-response';
export const OFFLINE_PROOF_TYPE = 'keypanel.offline-deactivation-proof';

/** What the device writes for its holder to carry to a connected machine (JSON). */
export type OfflineRequest = {
  type: typeof OFFLINE_REQUEST_TYPE;
  key: string;
  deviceFingerprint: string;
  nonce: string;
  /** The device's Ed25519 public key for this activation (base64url): its deactivation proof is signed with the private half. */
  deviceKey: string;
  deviceInfo?: DeviceInfo;
  createdAt: string;
};

/** What the holder brings back: the signed answer's JSON text and its signature. */
export type OfflineResponse = { type: typeof OFFLINE_RESPONSE_TYPE; answer: string; signature: string };

/** What the device writes to free its slot: the proof's JSON text, signed with the device key. */
export type DeactivationProof = { type: typeof OFFLINE_PROOF_TYPE; proof: string; signature: string };

/** A request written and not yet answered, or the activation a response made: kept in the store. */
/** `privateKey`: the device key's private half, as a JWK's `d` (its public half, `deviceKey`, is the `x`). */
type DeviceKeys = { nonce: string; deviceKey: string; privateKey: string };

type WireOfflineAnswer = {
  valid: boolean;
  code: ServerCode;
  detail: string;
  nonce: string | null;
  ts?: string;
  deviceFingerprint?: string;
  deviceKey?: string;
  slotFreesAt?: string | null;
  devices?: Array<Omit<BoundDevice, 'lastSeenAt' | 'leaseExpiresAt'> & { lastSeenAt: string | null; leaseExpiresAt: string | null }>;
  license: (Omit<LicenseInfo, 'expiresAt'> & { expiresAt: string | null; token: string | null }) | null;
};

/** The nonces of responses applied on this device; the last ones are enough, as each request's nonce is fresh. */
const USED_NONCES_ID = 'keypanel:offline-nonces';
const USED_NONCES_KEPT = 50;
const ED25519 = { name: 'Ed25519' } as const;

const toBase64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

type Context = {
  store: TokenStore;
  publicKey: () => Promise<VerifyKey>;
  clock: TrustedClock;
  slot: (req: { key: string; fingerprint: string }) => string;
  now: () => number;
};

export function offlineActivation({ store, publicKey, clock, slot, now }: Context) {
  const pendingId = (req: { key: string; fingerprint: string }) => `keypanel:offline-request:${slot(req)}`;
  const deviceId = (req: { key: string; fingerprint: string }) => `keypanel:offline-device:${slot(req)}`;

  async function readKeys(id: string): Promise<DeviceKeys | null> {
    const text = await store.get(id);
    if (!text) return null;
    try {
      const keys = JSON.parse(text) as DeviceKeys;
      return typeof keys.nonce === 'string' && typeof keys.deviceKey === 'string' && typeof keys.privateKey === 'string' ? keys : null;
    } catch {
      return null;
    }
  }

  async function usedNonces(): Promise<string[]> {
    try {
      const list = JSON.parse((await store.get(USED_NONCES_ID)) ?? '[]') as unknown;
      return Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : [];
    } catch {
      return [];
    }
  }

  const refusal = (code: 'INVALID_SIGNATURE' | 'NOT_THIS_REQUEST' | 'CLOCK_BEHIND', detail: string): LicenseResult => ({
    valid: false,
    code,
    detail,
    source: 'none',
    license: null,
    offlineToken: null,
  });

  /**
   * Writes an activation request for this device (no network needed): give it to the key's holder
   * to turn into a response. Writing another replaces the one before (its response is then refused).
   */
  async function createOfflineRequest(req: { key: string; fingerprint: string; deviceInfo?: DeviceInfo }): Promise<OfflineRequest> {
    const pair = (await crypto.subtle.generateKey(ED25519, true, ['sign', 'verify'])) as { privateKey: VerifyKey };
    const { x, d } = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as { x?: string; d?: string };
    if (!x || !d) throw new Error('This platform cannot make an Ed25519 key pair (WebCrypto)');
    const nonce = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
    const keys: DeviceKeys = { nonce, deviceKey: x, privateKey: d };
    await store.set(pendingId(req), JSON.stringify(keys));
    return {
      type: OFFLINE_REQUEST_TYPE,
      key: normalizeKey(req.key),
      deviceFingerprint: req.fingerprint,
      nonce,
      deviceKey: keys.deviceKey,
      ...(req.deviceInfo ? { deviceInfo: req.deviceInfo } : {}),
      createdAt: new Date(now()).toISOString(),
    };
  }

  /**
   * Verifies the response to this device's last request, offline: signed by the pinned key, for this
   * fingerprint, this request's nonce and device key, never applied before, and not from a time this
   * device's clock is behind. Valid: its offline token is kept, as an online activation's is.
   */
  async function applyOfflineResponse(response: OfflineResponse | string, req: { fingerprint: string }): Promise<LicenseResult> {
    let file: Partial<OfflineResponse>;
    try {
      file = (typeof response === 'string' ? JSON.parse(response) : response) as Partial<OfflineResponse>;
    } catch {
      return refusal('INVALID_SIGNATURE', 'This is not an offline activation response (not JSON)');
    }
    if (file?.type !== OFFLINE_RESPONSE_TYPE || typeof file.answer !== 'string' || typeof file.signature !== 'string')
      return refusal('INVALID_SIGNATURE', 'This is not an offline activation response');
    const key = await publicKey();
    if (!(await verifySignature(key, new Uint8Array(new TextEncoder().encode(file.answer)), file.signature)))
      return refusal('INVALID_SIGNATURE', 'The response is not signed by the pinned public key');
    let answer: WireOfflineAnswer;
    try {
      answer = JSON.parse(file.answer) as WireOfflineAnswer;
    } catch {
      return refusal('INVALID_SIGNATURE', 'The signed response is not a licensing answer');
    }
    if (
      !(SERVER_CODES as readonly string[]).includes(answer?.code) ||
      typeof answer.detail !== 'string' ||
      !answer.license ||
      !answer.nonce
    )
      return refusal('INVALID_SIGNATURE', 'The signed response is not a licensing answer');
    if (answer.deviceFingerprint !== req.fingerprint)
      return refusal('NOT_THIS_REQUEST', 'This response was written for another device (its fingerprint differs)');
    const target = { key: answer.license.key, fingerprint: req.fingerprint };
    if ((await usedNonces()).includes(answer.nonce))
      return refusal('NOT_THIS_REQUEST', 'This response was applied on this device before (its nonce is accepted once)');
    const pending = await readKeys(pendingId(target));
    if (!pending || pending.nonce !== answer.nonce || pending.deviceKey !== answer.deviceKey)
      return refusal('NOT_THIS_REQUEST', 'This response does not answer the request this device wrote last (another nonce)');
    const ts = answer.ts === undefined ? NaN : Date.parse(answer.ts);
    const base = {
      detail: answer.detail,
      source: 'online' as const,
      nonce: answer.nonce,
      license: toLicense(answer.license),
      // A refusal because the key is full says when a slot frees and which devices hold it, as online.
      ...(answer.slotFreesAt !== undefined ? { slotFreesAt: answer.slotFreesAt === null ? null : new Date(answer.slotFreesAt) } : {}),
      ...(answer.devices
        ? {
            devices: answer.devices.map((d) => ({
              ...d,
              lastSeenAt: d.lastSeenAt === null ? null : new Date(d.lastSeenAt),
              leaseExpiresAt: d.leaseExpiresAt === null ? null : new Date(d.leaseExpiresAt),
            })),
          }
        : {}),
    };
    if (!(VALID_CODES as readonly string[]).includes(answer.code) || !answer.license.token) {
      // Refused (the key is full, revoked...): the request may be brought again, unless its nonce is spent.
      if (answer.code === 'NONCE_ALREADY_USED') await store.delete(pendingId(target));
      await clock.see(ts);
      return { ...base, valid: false, code: answer.code, offlineToken: null };
    }
    let token;
    try {
      token = await verifyOfflineToken(key, answer.license.token, { now: Math.max(now(), ts), ...target });
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      return refusal('INVALID_SIGNATURE', `The offline token in the response is not valid: ${err.message}`);
    }
    // The response's signed times are trusted from here on; a clock behind them is refused (the request stays).
    await clock.see(ts, token.issuedAt.getTime());
    const reading = await clock.read();
    if (reading.behind) return refusal('CLOCK_BEHIND', clockBehindDetail(reading));
    if (token.expiresAt.getTime() <= reading.now) return refusal('INVALID_SIGNATURE', 'The offline token in the response has expired');
    await store.set(USED_NONCES_ID, JSON.stringify([...(await usedNonces()), answer.nonce].slice(-USED_NONCES_KEPT)));
    await store.set(slot(target), token.token);
    await store.set(deviceId(target), JSON.stringify(pending));
    await store.delete(pendingId(target));
    return { ...base, valid: true, code: answer.code, offlineToken: token };
  }

  /**
   * Writes the proof that frees this device's slot, signed with the key of its offline activation,
   * and erases the device's offline token and that key: from then on the device is not licensed.
   */
  async function createDeactivationProof(req: { key: string; fingerprint: string }): Promise<DeactivationProof> {
    const keys = await readKeys(deviceId(req));
    if (!keys) throw new Error('No offline activation of this key is kept on this device: nothing to deactivate');
    const proof = JSON.stringify({
      type: OFFLINE_PROOF_TYPE,
      key: normalizeKey(req.key),
      deviceFingerprint: req.fingerprint,
      nonce: keys.nonce,
      deactivatedAt: new Date(now()).toISOString(),
    });
    const privateKey = await crypto.subtle.importKey(
      'jwk',
      { kty: 'OKP', crv: 'Ed25519', x: keys.deviceKey, d: keys.privateKey },
      ED25519,
      false,
      ['sign'],
    );
    const signature = toBase64(await crypto.subtle.sign(ED25519, privateKey, new TextEncoder().encode(proof)));
    await store.delete(slot(req));
    await store.delete(deviceId(req));
    return { type: OFFLINE_PROOF_TYPE, proof, signature };
  }

  return { createOfflineRequest, applyOfflineResponse, createDeactivationProof };
}

const toLicense = ({ token: _token, ...wire }: NonNullable<WireOfflineAnswer['license']>): LicenseInfo => ({
  ...wire,
  expiresAt: wire.expiresAt === null ? null : new Date(wire.expiresAt),
});
