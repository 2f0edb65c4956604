// The result codes and shapes the SDK hands to an app. The server's codes and a key's statuses are
// the licensing API's (KeyPanel's worker/platform/vocabulary.ts): the SDK is published on its own, so
// it keeps a copy, and a test fails when the two differ. The SDK adds its own codes for what happens
// on the way.

/** What the licensing API answers, in a signed body. */
export const SERVER_CODES = [
  'VALID',
  'NOT_FOUND',
  'REVOKED',
  'EXPIRED',
  'NOT_ACTIVATED',
  'DEVICE_LIMIT_REACHED',
  'PRODUCT_INACTIVE',
  'DEACTIVATED',
  'KEY_REGENERATED',
] as const;
export type ServerCode = (typeof SERVER_CODES)[number];

/** A license key's status, as the licensing API shows it. */
export const KEY_STATUSES = ['available', 'used', 'revoked', 'expired'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/**
 * What the SDK decides itself:
 * - `INVALID_SIGNATURE`: an answer (or the token in it) whose signature is missing or does not match
 *   the pinned key, or that does not answer this request (another nonce, key or device). Never trusted.
 * - `UNREACHABLE`: no answer (network, timeout, or 429/5xx after every retry) and no offline token
 *   that is still good.
 * - `RATE_LIMITED`: the last answer was a 429; `retryAfter` says when to come back.
 * - `REJECTED`: the API refused the request itself (a malformed key or fingerprint: a 4xx envelope).
 */
export type ClientCode = 'INVALID_SIGNATURE' | 'UNREACHABLE' | 'RATE_LIMITED' | 'REJECTED';

export type ResultCode = ServerCode | ClientCode;

export type LicenseInfo = {
  key: string;
  status: KeyStatus;
  product: { name: string; keyTag: string; productType: string };
  expiresAt: Date | null;
  maxActivations: number;
  activationCount: number;
};

/** The claims of a verified offline token. */
export type OfflineToken = {
  token: string;
  key: string;
  fingerprint: string;
  keyTag: string;
  issuedAt: Date;
  expiresAt: Date;
};

export type LicenseResult = {
  /** True only for VALID: from a verified answer now, or from a verified offline token not yet expired. */
  valid: boolean;
  code: ResultCode;
  /** A sentence for logs or the user (the server's, or the SDK's). */
  detail: string;
  /** `online`: a verified answer to this request; `offline`: the last good token; `none`: neither. */
  source: 'online' | 'offline' | 'none';
  /** The nonce the verified online answer echoed. */
  nonce?: string;
  /** From the online answer; null offline or when the key is unknown. */
  license: LicenseInfo | null;
  /** The verified offline token now kept for this key and device, if any. */
  offlineToken: OfflineToken | null;
  /** Deactivations, and activations refused for slots that released devices still hold. */
  slotFreesAt?: Date | null;
  /** Seconds, after a 429. */
  retryAfter?: number;
};

/** A WebCrypto key, named through `crypto` so the types hold with DOM's lib, Node's or Workers'. */
export type VerifyKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** An Ed25519 public key as a JWK (`{ kty: 'OKP', crv: 'Ed25519', x }`). */
export type PublicJwk = { kty?: string; crv?: string; x?: string; d?: string; kid?: string; alg?: string; use?: string };

/** A public key as the server publishes it (GET /api/v1/licenses/public-key): the PEM, or the JWK. */
export type PublicKeyInput = string | PublicJwk | VerifyKey;
