// Encryption at rest for small secrets (two-factor seeds): AES-256-GCM with a fresh 12-byte IV,
// the key derived from TOTP_ENCRYPTION_KEY. A copy of the database alone does not give away
// anyone's authenticator. Format: v1.<iv b64url>.<ciphertext+tag b64url>
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { AppError } from './errors';
import { isolateCache } from './isolate-cache';

const keys = isolateCache<string, Promise<CryptoKey>>('secret-box-keys');

function keyFor(material: string | undefined): Promise<CryptoKey> {
  if (!material || material.length < 32) {
    throw new AppError('NOT_CONFIGURED', 'Two-factor authentication is not configured on this server (TOTP_ENCRYPTION_KEY is missing).');
  }
  return keys.getOrSet(material, () =>
    crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(`keypanel-secret-box:${material}`))
      .then((raw) => crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt'])),
  );
}

export async function sealSecret(material: string | undefined, plain: Uint8Array<ArrayBuffer>): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await keyFor(material), plain);
  return `v1.${encodeBase64urlNoPadding(iv)}.${encodeBase64urlNoPadding(new Uint8Array(sealed))}`;
}

export async function openSecret(material: string | undefined, sealed: string): Promise<Uint8Array> {
  const [version, iv, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !data) throw new Error('Unknown sealed secret format');
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: decodeBase64urlIgnorePadding(iv) as Uint8Array<ArrayBuffer> },
    await keyFor(material),
    decodeBase64urlIgnorePadding(data),
  );
  return new Uint8Array(plain);
}
