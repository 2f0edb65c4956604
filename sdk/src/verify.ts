// The one verification path: Ed25519 signatures over an answer's exact bytes (X-Signature) and
// offline tokens (compact JWS, EdDSA), checked with WebCrypto against the key pinned in the app.
import { fromBase64, fromBase64Url } from './base64.js';
import { EXPIRY_MODELS, type ExpiryModel, type OfflineToken, type PublicJwk, type PublicKeyInput, type VerifyKey } from './types.js';

/** The issuer the server signs offline tokens with. */
export const TOKEN_ISSUER = 'keypanel';

const ED25519 = { name: 'Ed25519' } as const;

/** Imports the pinned key: the PEM (SPKI) or the JWK that GET /api/v1/licenses/public-key gives. */
export async function importPublicKey(input: PublicKeyInput): Promise<VerifyKey> {
  if (typeof input === 'object' && input !== null && 'algorithm' in input && 'type' in input) return input;
  try {
    if (typeof input === 'string' && input.trim().startsWith('-----BEGIN PUBLIC KEY-----')) {
      const body = input.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
      return await crypto.subtle.importKey('spki', fromBase64(body), ED25519, false, ['verify']);
    }
    const jwk = (typeof input === 'string' ? JSON.parse(input) : input) as PublicJwk;
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || 'd' in jwk) throw new Error('not an Ed25519 public JWK');
    return await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, ED25519, false, ['verify']);
  } catch {
    throw new TypeError('The public key must be the Ed25519 public key of the KeyPanel server, as PEM (SPKI) or JWK');
  }
}

/** True when `signature` (standard base64, as in X-Signature) signs exactly `bytes`. */
export async function verifySignature(key: VerifyKey, bytes: Uint8Array<ArrayBuffer>, signature: string | null): Promise<boolean> {
  if (!signature || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return await crypto.subtle.verify(ED25519, key, fromBase64(signature), bytes);
  } catch {
    return false;
  }
}

export type TokenProblem = 'malformed' | 'signature' | 'expired' | 'issuer' | 'key' | 'fingerprint' | 'clock';

export class TokenError extends Error {
  constructor(
    readonly problem: TokenProblem,
    message: string,
  ) {
    super(message);
    this.name = 'TokenError';
  }
}

const TOKEN_MESSAGES: Record<TokenProblem, string> = {
  malformed: 'it is malformed',
  signature: 'the signature does not match this public key',
  expired: 'it has expired',
  issuer: 'its iss claim is wrong',
  key: 'it was issued for another license key',
  fingerprint: 'it was issued for another device fingerprint',
  clock: "this device's clock is behind a time the licensing server signed",
};

const fail = (problem: TokenProblem): never => {
  throw new TokenError(problem, TOKEN_MESSAGES[problem]);
};

/**
 * Verifies an offline token: signature (EdDSA only, whatever the header claims otherwise), issuer,
 * expiry against `now`, and when given, the license key and device it must be for.
 */
export async function verifyOfflineToken(
  key: VerifyKey,
  token: string,
  expect: { now?: number; key?: string; fingerprint?: string } = {},
): Promise<OfflineToken> {
  const parts = token.trim().split('.');
  if (parts.length !== 3) fail('malformed');
  const [head, body, signature] = parts;
  let header: { alg?: unknown };
  let claims: {
    sub?: unknown;
    iss?: unknown;
    fp?: unknown;
    product?: unknown;
    iat?: unknown;
    exp?: unknown;
    ent?: unknown;
    model?: unknown;
    lexp?: unknown;
  };
  let sig: Uint8Array<ArrayBuffer>;
  try {
    const text = new TextDecoder();
    header = JSON.parse(text.decode(fromBase64Url(head))) as typeof header;
    claims = JSON.parse(text.decode(fromBase64Url(body))) as typeof claims;
    sig = fromBase64Url(signature);
  } catch {
    return fail('malformed');
  }
  // The algorithm is pinned: a token naming another (or "none") is refused before any check.
  if (header?.alg !== 'EdDSA' || typeof claims !== 'object' || claims === null) fail('malformed');
  const ok = await crypto.subtle.verify(ED25519, key, sig, new TextEncoder().encode(`${head}.${body}`)).catch(() => false);
  if (!ok) fail('signature');
  if (typeof claims.sub !== 'string' || typeof claims.fp !== 'string' || typeof claims.exp !== 'number' || typeof claims.iat !== 'number')
    fail('malformed');
  if (claims.iss !== TOKEN_ISSUER) fail('issuer');
  if ((claims.exp as number) * 1000 <= (expect.now ?? Date.now())) fail('expired');
  if (expect.key !== undefined && claims.sub !== normalizeKey(expect.key)) fail('key');
  if (expect.fingerprint !== undefined && claims.fp !== expect.fingerprint) fail('fingerprint');
  return {
    token: token.trim(),
    key: claims.sub as string,
    fingerprint: claims.fp as string,
    keyTag: typeof claims.product === 'string' ? claims.product : '',
    issuedAt: new Date((claims.iat as number) * 1000),
    expiresAt: new Date((claims.exp as number) * 1000),
    entitlements: Array.isArray(claims.ent) ? claims.ent.filter((e): e is string => typeof e === 'string') : [],
    expiryModel: (EXPIRY_MODELS as readonly unknown[]).includes(claims.model) ? (claims.model as ExpiryModel) : null,
    licenseExpiresAt: typeof claims.lexp === 'number' ? new Date(claims.lexp * 1000) : null,
  };
}

/**
 * Whether the key behind a verified token covers a release of the app dated `releaseDate`: any
 * release while the key has not expired (or never does), and, past the expiry of a
 * perpetual-fallback key, a release dated before that expiry (updates ended, the release works on).
 */
export function releaseCovered(
  token: Pick<OfflineToken, 'expiryModel' | 'licenseExpiresAt'>,
  releaseDate: Date | string,
  now = Date.now(),
): boolean {
  const end = token.licenseExpiresAt?.getTime() ?? null;
  if (end === null || end > now) return true;
  return token.expiryModel === 'perpetual-fallback' && new Date(releaseDate).getTime() < end;
}

/** License keys are compared as the server stores them: trimmed, upper case. */
export const normalizeKey = (key: string) => key.trim().toUpperCase();
