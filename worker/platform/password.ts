// PBKDF2-SHA256 through WebCrypto. 100,000 iterations is the production Workers ceiling;
// the format is versioned so the cost can move without breaking stored hashes:
//   pbkdf2-sha256$v1$<iterations>$<salt b64>$<hash b64>
export const PBKDF2_ITERATIONS = 100_000;
const HASH_BYTES = 32;
const SALT_BYTES = 16;

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, material, HASH_BYTES * 8);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return ['pbkdf2-sha256', 'v1', String(PBKDF2_ITERATIONS), b64(salt), b64(hash)].join('$');
}

export function parsePasswordHash(stored: string) {
  const [scheme, version, iterations, salt, hash] = stored.split('$');
  if (scheme !== 'pbkdf2-sha256' || version !== 'v1' || !salt || !hash) return null;
  return { iterations: Number(iterations), salt: unb64(salt), hash: unb64(hash) };
}

/** Constant-time comparison: the time taken does not depend on where the bytes differ. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored ? parsePasswordHash(stored) : null;
  if (!parsed || parsed.iterations !== PBKDF2_ITERATIONS) {
    // Spend the same time as a real check so a missing account is not revealed by timing.
    await derive(password, new Uint8Array(SALT_BYTES), PBKDF2_ITERATIONS);
    return false;
  }
  return timingSafeEqual(await derive(password, parsed.salt, parsed.iterations), parsed.hash);
}
