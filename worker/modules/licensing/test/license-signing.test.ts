// The offline token is written by hand (platform/signing.ts) for speed: it must be the very JWS
// jose's SignJWT gives for the same claims (Ed25519 signatures are deterministic), so every verifier
// that accepted the old tokens accepts these, byte for byte.
import { env } from 'cloudflare:workers';
import { importJWK, SignJWT, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { LICENSE_TOKEN_ISSUER, signOfflineToken } from '../../../platform/signing';

const jwk = JSON.parse(env.LICENSE_SIGNING_KEY) as JWK;

describe('offline token', () => {
  it.each([
    ['a plain key', { key: 'ABCD-EFGH-IJKL', fingerprint: 'device-123456', keyTag: 'APP' }],
    ['text JSON escapes', { key: 'K"\\/\u00e9\u2028', fingerprint: 'f\u00fcr-ger\u00e4t', keyTag: 'T\u00c4G' }],
  ])('is the JWS jose would sign (%s)', async (_, claims) => {
    const now = 1_790_000_000_123;
    const tokenExpiresAt = now + 86_400_999;
    const ours = await signOfflineToken(env, { ...claims, tokenExpiresAt }, now);
    const privateKey = await importJWK(jwk, 'EdDSA');
    const theirs = await new SignJWT({ fp: claims.fingerprint, product: claims.keyTag })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', ...(jwk.kid ? { kid: jwk.kid } : {}) })
      .setSubject(claims.key)
      .setIssuer(LICENSE_TOKEN_ISSUER)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(tokenExpiresAt / 1000))
      .sign(privateKey);
    expect(ours).toBe(theirs);
  });
});
