// The one API client of the web app: JSON, bearer header, 30 s timeout, the server's message
// surfaced, and a 401 that ends the session (a short
// delay, then /login?expired=true).
import { BOOKMARK_HEADER, currentBookmark, rememberBookmark } from './bookmark';
import { HTTP_TIMEOUT_MS, UNAUTHORIZED_REDIRECT_DELAY_MS } from './constants';
import { noteMaintenance } from './maintenance';
import { appStore, clearSession, tokenAtom } from './session/store';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly details?: Record<string, unknown>,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server's message when it sent one, else the screen's fallback text. */
export function errorMessage(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.status > 0 && err.message) return err.message;
  return fallback;
}

// Their 401 means wrong credentials or an expired sign-in step, not an ended session.
const AUTH_CALLS = ['/api/auth/login', '/api/auth/register', '/api/auth/login/2fa', '/api/auth/google/complete'];
const PUBLIC_PAGES = ['/login', '/register', '/forgot-password', '/reset-password'];

let redirectScheduled = false;
function handleUnauthorized() {
  clearSession();
  if (PUBLIC_PAGES.includes(window.location.pathname) || redirectScheduled) return;
  redirectScheduled = true;
  setTimeout(() => window.location.assign('/login?expired=true'), UNAUTHORIZED_REDIRECT_DELAY_MS);
}

type Query = Record<string, string | number | boolean | null | undefined>;

export async function apiRequest<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  options: { body?: unknown; query?: Query; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<T> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const token = appStore.get(tokenAtom);
  if (token) headers.Authorization = `Bearer ${token}`;
  const bookmark = currentBookmark();
  if (bookmark) headers[BOOKMARK_HEADER] = bookmark;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const timeout = AbortSignal.timeout(HTTP_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

  let response: Response;
  try {
    response = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal });
  } catch (err) {
    const timedOut = (err as Error)?.name === 'TimeoutError' || timeout.aborted;
    if ((err as Error)?.name === 'AbortError' && !timedOut) throw err;
    throw new ApiError(
      timedOut
        ? 'The server took too long to answer. Please try again.'
        : 'Could not reach the server. Check your connection and try again.',
      0,
      timedOut ? 'TIMEOUT' : 'NETWORK',
    );
  }
  rememberBookmark(response.headers.get(BOOKMARK_HEADER));
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const body = (data ?? {}) as { message?: string; code?: string; details?: Record<string, unknown> };
    if (response.status === 401 && !AUTH_CALLS.includes(url.pathname)) handleUnauthorized();
    if (response.status === 503 && body.code === 'MAINTENANCE') noteMaintenance(body.message ?? 'KeyPanel is under maintenance.');
    const retryAfter = Number(response.headers.get('Retry-After')) || undefined;
    throw new ApiError(body.message ?? '', response.status, body.code, body.details, retryAfter);
  }
  // Any answer that got through means maintenance is over (or does not concern this user).
  noteMaintenance(null);
  return data as T;
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => apiRequest<T>('GET', path, { query, signal }),
  post: <T>(path: string, body?: unknown, headers?: Record<string, string>) => apiRequest<T>('POST', path, { body: body ?? {}, headers }),
  put: <T>(path: string, body?: unknown) => apiRequest<T>('PUT', path, { body: body ?? {} }),
  delete: <T>(path: string, body?: unknown) => apiRequest<T>('DELETE', path, { body }),
};
