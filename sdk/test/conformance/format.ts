// The conformance vectors' format (sdk/conformance/README.md says it in prose): what the generator
// (worker/modules/licensing/test/conformance.test.ts) writes and every SDK's runner reads.

/** The licensing calls a vector can make. */
export type Action = 'activate' | 'validate' | 'deactivate' | 'heartbeat' | 'borrow' | 'replace-device' | 'trial' | 'consume';

/**
 * What the app passes to the call (`keyTag` for a trial, whose `key` is empty; `releaseDate`, an ISO
 * date, for a validate by a release that names its date).
 */
export type VectorRequest = {
  key: string;
  fingerprint: string;
  nonce: string;
  keyTag?: string;
  hours?: number;
  amount?: number;
  idempotencyKey?: string;
  replaceDeviceId?: string;
  releaseDate?: string;
};

/** The HTTP answer the SDK receives: status, exact body bytes (base64) and the X-Signature header. */
export type VectorAnswer = { status: number; body: string; signature: string | null };

/** A verified offline token's claims; moments in ms since the epoch. */
export type TokenClaims = {
  key: string;
  fingerprint: string;
  keyTag: string;
  issuedAt: number;
  expiresAt: number;
  entitlements: string[];
};

/** What a correct SDK concludes: every field is compared. Moments in ms; null when the answer has none. */
export type Outcome = {
  valid: boolean;
  code: string;
  source: 'online' | 'offline' | 'none';
  licenseKey: string | null;
  usageRemaining: number | null;
  leaseExpiresAt: number | null;
  slotFreesAt: number | null;
  borrowedUntil: number | null;
  nextSwapAt: number | null;
  deviceIds: string[];
  offlineToken: TokenClaims | null;
};

export type TokenProblem = 'malformed' | 'signature' | 'expired' | 'issuer' | 'key' | 'fingerprint' | 'clock';
export type TokenOutcome = { ok: true; token: TokenClaims } | { ok: false; problem: TokenProblem };

export type CallStep = {
  do: 'call';
  action: Action;
  request: VectorRequest;
  /** The device's clock (ms). */
  now: number;
  /** What the SDK must send: the path, the JSON body's fields, and for consume the Idempotency-Key header. */
  sent: { path: string; body: Record<string, unknown>; idempotencyKey?: string };
  /** null: no answer at all (the network is down). */
  answer: VectorAnswer | null;
  expect: Outcome;
};
export type CheckOfflineStep = { do: 'checkOffline'; key: string; fingerprint: string; now: number; expect: Outcome };
export type VerifyTokenStep = { do: 'verifyToken'; token: string; key: string; fingerprint: string; now: number; expect: TokenOutcome };
/** The device wrote an air-gapped request with this nonce and device key pair (its store holds them). */
export type PlantOfflineRequestStep = {
  do: 'plantOfflineRequest';
  key: string;
  fingerprint: string;
  nonce: string;
  deviceKey: string;
  privateKey: string;
};
export type ApplyOfflineResponseStep = { do: 'applyOfflineResponse'; fingerprint: string; now: number; response: string; expect: Outcome };

export type Step = CallStep | CheckOfflineStep | VerifyTokenStep | PlantOfflineRequestStep | ApplyOfflineResponseStep;

export type Tamper =
  | 'changed-byte'
  | 'changed-signature'
  | 'no-signature'
  | 'wrong-key'
  | 'other-request'
  | 'forged-valid'
  | 'changed-header'
  | 'expired'
  | 'clock-behind'
  | 'malformed';

/** One vector: steps on one fresh device (its own store). `code`: the licensing code of the real answer it is built on. */
export type Case = { name: string; code: string | null; tamper: Tamper | null; steps: Step[] };

export type VectorFile = {
  about: string;
  version: 1;
  /** The key the vectors are signed with: what the SDK pins while it runs them. */
  publicKey: { pem: string; jwk: { kty: string; crv: string; x: string } };
  cases: Case[];
};

/** The vector files, in sdk/conformance/. */
export const VECTOR_FILES = ['answers.json', 'tokens.json', 'scenarios.json', 'air-gapped.json'] as const;
