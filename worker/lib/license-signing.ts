// Ed25519 keys for the licensing API: every answer's body is signed (X-Signature), and VALID answers
// carry an offline token (a compact JWS, EdDSA) that an app can verify with the public key alone.
import { importJWK, SignJWT, type JWK } from 'jose';
import { isolateCache } from './isolate-cache';

export const LICENSE_TOKEN_ISSUER = 'keypanel';

type SigningKeys = { privateKey: CryptoKey; publicJwk: JWK; pem: string };
const imported = isolateCache<string, Promise<SigningKeys>>('license-signing-keys');

const toBase64 = (bytes: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

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
  const publicKey = (await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, true, [
    'verify',
  ])) as CryptoKey;
  const spki = (await crypto.subtle.exportKey('spki', publicKey)) as ArrayBuffer;
  const pem = `-----BEGIN PUBLIC KEY-----\n${toBase64(spki)
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END PUBLIC KEY-----\n`;
  return { privateKey, publicJwk, pem };
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
export type OfflineTokenClaims = { key: string; fingerprint: string; keyTag: string; tokenExpiresAt: number };

/** A compact JWS valid until `tokenExpiresAt` (whole seconds, rounded down so it never outlives it). */
export async function signOfflineToken(env: { LICENSE_SIGNING_KEY: string }, claims: OfflineTokenClaims, now: number): Promise<string> {
  const { privateKey, publicJwk } = await signingKeys(env);
  const exp = claims.tokenExpiresAt;
  return new SignJWT({ fp: claims.fingerprint, product: claims.keyTag })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', ...(publicJwk.kid ? { kid: publicJwk.kid } : {}) })
    .setSubject(claims.key)
    .setIssuer(LICENSE_TOKEN_ISSUER)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(exp / 1000))
    .sign(privateKey);
}
