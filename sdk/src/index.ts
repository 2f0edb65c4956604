// @keypanel/licensing: the licensing API for apps, with WebCrypto alone (Node 20+, browsers,
// Workers, Deno, Electron). The Node device-fingerprint helper is the separate `./node` entry.
export { createLicensing, type DeviceInfo, type LicenseRequest, type Licensing, type LicensingOptions } from './client.js';
export { parseRetryAfter, type FetchLike, type RetryOptions } from './http.js';
export { memoryStore, webStorageStore, type TokenStore, type WebStorage } from './store.js';
export { KEY_STATUSES, SERVER_CODES } from './types.js';
export type {
  ClientCode,
  KeyStatus,
  LicenseInfo,
  LicenseResult,
  OfflineToken,
  PublicJwk,
  PublicKeyInput,
  ResultCode,
  ServerCode,
  VerifyKey,
} from './types.js';
export {
  importPublicKey,
  normalizeKey,
  TOKEN_ISSUER,
  TokenError,
  verifyOfflineToken,
  verifySignature,
  type TokenProblem,
} from './verify.js';
