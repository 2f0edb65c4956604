import { generateKeyPairSync, randomBytes } from 'node:crypto';

/** A fresh Ed25519 private key as a one-line JWK, for signing licensing answers. */
export function generateLicenseSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return JSON.stringify({ ...jwk, kid: randomBytes(6).toString('hex') });
}
