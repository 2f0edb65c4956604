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
  'NO_SEAT_AVAILABLE',
  'LEASE_EXPIRED',
  'SEAT_RELEASED',
  'BORROW_NOT_ALLOWED',
  'DEVICE_REPLACED',
  'SWAP_BUDGET_EXHAUSTED',
  'TRIAL_STARTED',
  'TRIAL_ALREADY_USED',
  'TRIAL_NOT_OFFERED',
  'CONSUMED',
  'USAGE_EXHAUSTED',
  'USAGE_NOT_METERED',
  'OFFLINE_ACTIVATED',
  'NONCE_ALREADY_USED',
  'UPDATES_ENDED',
] as const;
export type ServerCode = (typeof SERVER_CODES)[number];

/**
 * The codes of a valid answer: the device may use the software, and the answer's token is kept
 * (CONSUMED: the uses were debited; it carries no token and leaves the kept one as it is).
 */
export const VALID_CODES = [
  'VALID',
  'DEVICE_REPLACED',
  'TRIAL_STARTED',
  'CONSUMED',
  'OFFLINE_ACTIVATED',
  'UPDATES_ENDED',
] as const satisfies readonly ServerCode[];
export type ValidCode = (typeof VALID_CODES)[number];

/** How a product licenses its keys: fixed devices, or seats leased at a time. */
export type LicenseModel = 'node-locked' | 'floating';

/**
 * How a key ends: `time-limited` at its expiry; `perpetual` never; `perpetual-fallback` at its
 * expiry, but releases of the app dated before it keep working (validate answers UPDATES_ENDED,
 * valid, when the app sends its `releaseDate`).
 */
export const EXPIRY_MODELS = ['time-limited', 'perpetual', 'perpetual-fallback'] as const;
export type ExpiryModel = (typeof EXPIRY_MODELS)[number];

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
 * - `CLOCK_BEHIND`: the device's clock is behind the latest time a signed answer or token showed it
 *   (wound back?): no offline token or response is trusted until it is set right.
 * - `NOT_THIS_REQUEST`: a signed air-gapped response that does not answer the request this device
 *   wrote last (another device, another nonce), or that was applied here before.
 */
export type ClientCode = 'INVALID_SIGNATURE' | 'UNREACHABLE' | 'RATE_LIMITED' | 'REJECTED' | 'CLOCK_BEHIND' | 'NOT_THIS_REQUEST';

export type ResultCode = ServerCode | ClientCode;

export type LicenseInfo = {
  key: string;
  status: KeyStatus;
  product: { name: string; keyTag: string; productType: string };
  expiresAt: Date | null;
  /** Devices (node-locked) or seats (floating). */
  maxActivations: number;
  /** Devices holding a slot now (floating: live leases). */
  activationCount: number;
  licenseModel: LicenseModel;
  /** How the key ends (see ExpiryModel); `expiresAt` is when (null: perpetual). */
  expiryModel: ExpiryModel;
  trial: boolean;
  /** The key's entitlements: its product's and those granted to it. */
  entitlements: string[];
  /** A metered key's uses (null: its product is not metered). */
  usage: Usage | null;
};

/** A metered key's uses, as the signed answer says them. */
export type Usage = {
  /** The uses a key of the product starts with. */
  allowance: number;
  /** The uses left now (after a CONSUMED answer's debit). */
  remaining: number;
  /** Every refillDays the uses left are raised to this many (null: no refill). */
  refillAmount: number | null;
  refillDays: number | null;
  /** When the next refill falls due (null: none, or no use yet). */
  nextRefillAt: Date | null;
};

/** A device the key is bound to, as a refusal because the key is full lists it: offer to replace one. */
export type BoundDevice = { id: string; name: string | null; model: string | null; lastSeenAt: Date | null; leaseExpiresAt: Date | null };

/** The claims of a verified offline token. */
export type OfflineToken = {
  token: string;
  key: string;
  fingerprint: string;
  keyTag: string;
  issuedAt: Date;
  expiresAt: Date;
  /** The key's entitlements when the token was issued (its `ent` claim; none in a token without it). */
  entitlements: string[];
  /** How the key ends (its `model` claim; null in a token issued before the claim existed). */
  expiryModel: ExpiryModel | null;
  /**
   * The key's own expiry (its `lexp` claim; null: none, a perpetual key). For a perpetual-fallback
   * key, a release dated before it keeps working after it: `releaseCovered` says so offline.
   */
  licenseExpiresAt: Date | null;
};

export type LicenseResult = {
  /** True only for a valid code (VALID_CODES): from a verified answer now, or from a verified offline token not yet expired. */
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
  /** A floating seat: until when this device holds it. */
  leaseExpiresAt?: Date | null;
  /** A borrowed floating seat: until when. */
  borrowedUntil?: Date | null;
  /** SWAP_BUDGET_EXHAUSTED: when the next swap is allowed (null: never). */
  nextSwapAt?: Date | null;
  /** DEVICE_LIMIT_REACHED / NO_SEAT_AVAILABLE: the devices holding the key. */
  devices?: BoundDevice[];
  /** Seconds, after a 429. */
  retryAfter?: number;
};

/** A WebCrypto key, named through `crypto` so the types hold with DOM's lib, Node's or Workers'. */
export type VerifyKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** An Ed25519 public key as a JWK (`{ kty: 'OKP', crv: 'Ed25519', x }`). */
export type PublicJwk = { kty?: string; crv?: string; x?: string; d?: string; kid?: string; alg?: string; use?: string };

/** A public key as the server publishes it (GET /api/v1/licenses/public-key): the PEM, or the JWK. */
export type PublicKeyInput = string | PublicJwk | VerifyKey;
