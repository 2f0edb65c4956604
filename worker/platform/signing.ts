// Ed25519 keys for the licensing API: every answer's body is signed (X-Signature), and VALID answers
// carry an offline token (a compact JWS, EdDSA) that an app can verify with the public key alone.
import { importJWK, type JWK } from 'jose';
import { isolateCache } from './isolate-cache';

export const LICENSE_TOKEN_ISSUER = 'keypanel';

/** `tokenHeader`: the offline tokens' protected header, encoded once (it is the same for every token). */
type SigningKeys = { privateKey: CryptoKey; publicJwk: JWK; pem: string; tokenHeader: string };
const imported = isolateCache<string, Promise<SigningKeys>>('license-signing-keys');

const encoder = new TextEncoder();
const toBase64 = (bytes: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const toBase64Url = (bytes: ArrayBuffer | Uint8Array) => toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

async function loadKeys(source: string): Promise<SigningKeys> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(source) as JWK;
  } catch {
    throw new Error('LICENSE_SIGNING_KEY must be an Ed25519 private key as a JSON JWK');
  }
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) {
    throw new Error('LICENSE_SIGNING_KEY must be an Ed25519 private key as a JSON JWK');
  }
  const privateKey = (await importJWK(jwk, 'EdDSA')) as CryptoKey;
  const publicJwk: JWK = { kty: 'OKP', crv: 'Ed25519', x: jwk.x, alg: 'EdDSA', use: 'sig', kid: jwk.kid };
  const publicKey = await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, true, ['verify']);
  const spki = (await crypto.subtle.exportKey('spki', publicKey)) as ArrayBuffer;
  const pem = `-----BEGIN PUBLIC KEY-----\n${toBase64(spki)
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END PUBLIC KEY-----\n`;
  const tokenHeader = toBase64Url(encoder.encode(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', ...(jwk.kid ? { kid: jwk.kid } : {}) })));
  return { privateKey, publicJwk, pem, tokenHeader };
}

/** The keys from the environment, imported once per isolate. */
export function signingKeys(env: { LICENSE_SIGNING_KEY: string }): Promise<SigningKeys> {
  const source = env.LICENSE_SIGNING_KEY ?? '';
  return imported.getOrSet(source, () => loadKeys(source));
}

/** Standard base64 Ed25519 signature of the exact bytes. */
export async function signBytes(env: { LICENSE_SIGNING_KEY: string }, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const { privateKey } = await signingKeys(env);
  return toBase64(await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, bytes));
}

/** `tokenExpiresAt` (ms) is decided by the licensing domain: the product's lifetime, capped by the key's end. */
export type OfflineTokenClaims = {
  key: string;
  fingerprint: string;
  keyTag: string;
  tokenExpiresAt: number;
  /** The key's entitlements (`ent`), so an app can check a feature offline. */
  entitlements?: readonly string[];
  /** How the key ends (`model`: time-limited, perpetual, perpetual-fallback), so an app knows offline too. */
  expiryModel?: string;
  /** The key's own expiry in ms (`lexp`, whole seconds; absent: none): a perpetual-fallback app compares its release date with it offline. */
  licenseExpiresAt?: number | null;
};

/**
 * A compact JWS (EdDSA) valid until `tokenExpiresAt` (whole seconds, rounded down so it never outlives
 * it). Written here rather than with jose's SignJWT, whose claim builder cost as much CPU as the
 * signature itself on every validation; Ed25519 is deterministic, so the bytes are the ones SignJWT
 * gives (worker/test/license-signing.test.ts).
 */
export async function signOfflineToken(env: { LICENSE_SIGNING_KEY: string }, claims: OfflineTokenClaims, now: number): Promise<string> {
  const { privateKey, tokenHeader } = await signingKeys(env);
  const payload = {
    fp: claims.fingerprint,
    product: claims.keyTag,
    sub: claims.key,
    iss: LICENSE_TOKEN_ISSUER,
    iat: Math.floor(now / 1000),
    exp: Math.floor(claims.tokenExpiresAt / 1000),
    ...(claims.entitlements ? { ent: claims.entitlements } : {}),
    ...(claims.expiryModel ? { model: claims.expiryModel } : {}),
    ...(claims.licenseExpiresAt != null ? { lexp: Math.floor(claims.licenseExpiresAt / 1000) } : {}),
  };
  const input = `${tokenHeader}.${toBase64Url(encoder.encode(JSON.stringify(payload)))}`;
  return `${input}.${toBase64Url(await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, encoder.encode(input)))}`;
}
