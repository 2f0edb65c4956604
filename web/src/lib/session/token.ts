// The session token lives in localStorage under `token`, so a reload stays signed in.
const STORAGE_KEY = 'token';
const JWT_SHAPE = /[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

/**
 * Strips a leading 'Bearer ', trims, expects three dot-separated parts; otherwise tries to
 * extract such a pattern; returns null when that is impossible.
 */
export function sanitizeToken(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const value = raw.replace(/^Bearer\s+/i, '').trim();
  const parts = value.split('.');
  if (parts.length === 3 && parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return value;
  const match = value.match(JWT_SHAPE);
  return match ? match[0] : null;
}

export function readStoredToken(): string | null {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    const clean = sanitizeToken(stored);
    if (stored !== null && clean === null) localStorage.removeItem(STORAGE_KEY);
    return clean;
  } catch {
    return null;
  }
}

export function storeToken(token: string): boolean {
  try {
    localStorage.setItem(STORAGE_KEY, token);
    return localStorage.getItem(STORAGE_KEY) === token;
  } catch {
    return false;
  }
}

export function removeStoredToken() {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    /* storage unavailable: nothing to remove */
  }
}
