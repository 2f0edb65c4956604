// The one API client of the web app: JSON, bearer header, 30 s timeout, the server's message
// surfaced, and a 401 that ends the session (a short delay, then /login?expired=true). Paths, bodies,
// queries and answers are typed by the OpenAPI document (worker/platform/api-client.ts): a call the document
// does not describe does not compile.
import type { ApiMethod, PathPattern, QueryParams, RequestBody, ResponseBody } from '../../../worker/platform/api-client';
import { BOOKMARK_HEADER, currentBookmark, rememberBookmark } from './bookmark';
import { HTTP_TIMEOUT_MS, UNAUTHORIZED_REDIRECT_DELAY_MS } from './constants';
import { currentLanguage, hasMessage, translate } from './i18n/runtime';
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

/**
 * What to tell the reader of a refusal: the catalog's words for the server's `code` in the language
 * in force (`error.<CODE>`); in English, or for a code without an entry, the server's own message
 * (English, and the most specific); else the screen's fallback text.
 */
export function errorMessage(err: unknown, fallback: string): string {
  if (!(err instanceof ApiError) || err.status <= 0) return fallback;
  const id = `error.${err.code ?? ''}`;
  if (currentLanguage() !== 'en' && hasMessage(id)) return translate(id);
  return err.message || fallback;
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

type Method = Uppercase<ApiMethod>;
/** The query the document takes, each value optional (an empty one is left out of the address). */
type Query<M extends ApiMethod, P extends string> = { [K in keyof QueryParams<M, P>]?: QueryParams<M, P>[K] | null | '' };
type Options<M extends ApiMethod, P extends string> = {
  body?: RequestBody<M, P>;
  query?: Query<M, P>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

export async function apiRequest<M extends Method, P extends PathPattern<Lowercase<M>>>(
  method: M,
  path: P,
  options: Options<Lowercase<M>, P> = {},
): Promise<ResponseBody<Lowercase<M>, P>> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {}) as [string, string | number | boolean | null | undefined][]) {
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
    throw new ApiError(timedOut ? translate('api.timeout') : translate('api.network'), 0, timedOut ? 'TIMEOUT' : 'NETWORK');
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
  // The server's answer is what the document says it is (the contract tests hold it to that).
  return data as ResponseBody<Lowercase<M>, P>;
}

// An empty object where a POST or PUT takes no body: the API refuses a missing JSON body.
const EMPTY = {} as never;

/**
 * The options as apiRequest types them. They are the same types the method's own parameters have, but
 * with as many operations as the document now holds, TypeScript gives up relating the two generic
 * forms (TS2590, a union too complex to represent); the parameters' types already hold every caller.
 */
const asOptions = <M extends ApiMethod, P extends string>(options: { body?: unknown; query?: unknown; headers?: Record<string, string> }) =>
  options as unknown as Options<M, P>;

export const api = {
  get: <P extends PathPattern<'get'>>(path: P, query?: Query<'get', P>, signal?: AbortSignal) =>
    apiRequest<'GET', P>('GET', path, { query, signal }),
  post: <P extends PathPattern<'post'>>(path: P, body?: RequestBody<'post', P>, headers?: Record<string, string>) =>
    apiRequest<'POST', P>('POST', path, asOptions<'post', P>({ body: body ?? EMPTY, headers })),
  put: <P extends PathPattern<'put'>>(path: P, body?: RequestBody<'put', P>) =>
    apiRequest<'PUT', P>('PUT', path, asOptions<'put', P>({ body: body ?? EMPTY })),
  patch: <P extends PathPattern<'patch'>>(path: P, body: RequestBody<'patch', P>) =>
    apiRequest<'PATCH', P>('PATCH', path, asOptions<'patch', P>({ body })),
  delete: <P extends PathPattern<'delete'>>(path: P, body?: RequestBody<'delete', P>) =>
    apiRequest<'DELETE', P>('DELETE', path, asOptions<'delete', P>({ body })),
};
