// @keypanel/licensing: the licensing API for apps, with WebCrypto alone (Node 20+, browsers,
// Workers, Deno, Electron). The Node device-fingerprint helper is the separate `./node` entry.
export {
  createLicensing,
  type DeviceInfo,
  type HeartbeatOptions,
  type LicenseRequest,
  type Licensing,
  type LicensingOptions,
  type Timers,
} from './client.js';
export { NEXT_STEPS, nextStep, type NextStep } from './codes.js';
export {
  OFFLINE_PROOF_TYPE,
  OFFLINE_REQUEST_TYPE,
  OFFLINE_RESPONSE_TYPE,
  type DeactivationProof,
  type OfflineRequest,
  type OfflineResponse,
} from './offline.js';
export { CLOCK_SKEW_MS } from './trusted-time.js';
export { parseRetryAfter, type FetchLike, type RetryOptions } from './http.js';
export { memoryStore, webStorageStore, type TokenStore, type WebStorage } from './store.js';
export { EXPIRY_MODELS, KEY_STATUSES, SERVER_CODES, VALID_CODES } from './types.js';
export type {
  BoundDevice,
  ClientCode,
  ExpiryModel,
  LicenseModel,
  KeyStatus,
  LicenseInfo,
  LicenseResult,
  OfflineToken,
  PublicJwk,
  PublicKeyInput,
  ResultCode,
  ServerCode,
  Usage,
  ValidCode,
  VerifyKey,
} from './types.js';
export {
  importPublicKey,
  normalizeKey,
  releaseCovered,
  TOKEN_ISSUER,
  TokenError,
  verifyOfflineToken,
  verifySignature,
  type TokenProblem,
} from './verify.js';
