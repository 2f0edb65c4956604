// Ids shaped like the original's `_id`: 24 hex characters, time-ordered (4 bytes of seconds, 8 random).
export function newId(now = Date.now()): string {
  const random = crypto.getRandomValues(new Uint8Array(8));
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0');
  return seconds + Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Random token as URL-safe base64 (no padding) of `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** Hex SHA-256 of a string, for tokens stored hashed. */
export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
