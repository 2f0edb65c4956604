// The CLI's one HTTP client: JSON, the bearer token, a 30 s timeout, the API's own error message,
// and a patient retry when the server says to slow down (429 with Retry-After).
import type { PathPattern, QueryParams, RequestBody, ResponseBody } from '../../worker/platform/api-client';
import { version } from '../../package.json';
import { BOOKMARK_HEADER, readBookmark, rememberBookmark } from './bookmark';
import type { Connection } from './config';
import { ApiError, CliError, LOGIN_HINT, UsageError } from './errors';
import { notice } from './output';

export const HTTP_TIMEOUT_MS = 30_000;

let insecureAllowed = false;
/** `--insecure`: allow a plain http:// server that is not this machine, for this run. */
export const allowInsecure = (value: boolean) => (insecureAllowed = value);

/** This machine: plain http:// never leaves it, so it needs no TLS. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1';
}

/**
 * Refuses a plain http:// server other than this machine: a password, a session token or an API
 * token sent there can be read and changed by anyone on the way (a café's Wi-Fi, say).
 */
export function assertSecureUrl(url: string) {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'https:' || isLoopback(hostname) || insecureAllowed) return;
  throw new UsageError(
    `Refusing to talk to ${url} over plain http://: passwords and tokens would cross the network unencrypted. Use https://, or pass --insecure if you accept that risk.`,
  );
}
const MAX_RETRIES = 3;
const MAX_RETRY_WAIT_S = 60;

type Query = Record<string, string | number | boolean | undefined>;
type Options = { query?: Query; body?: unknown; headers?: Record<string, string>; raw?: boolean };

/**
 * Calls typed by the OpenAPI document: a path the document has for that method (parameters as
 * `${string}`), its query and body, and its success answer.
 */
export type Client = {
  readonly url: string;
  get<P extends PathPattern<'get'>>(path: P, query?: QueryParams<'get', P>): Promise<ResponseBody<'get', P>>;
  post<P extends PathPattern<'post'>>(
    path: P,
    body?: RequestBody<'post', P>,
    headers?: Record<string, string>,
  ): Promise<ResponseBody<'post', P>>;
  put<P extends PathPattern<'put'>>(path: P, body?: RequestBody<'put', P>): Promise<ResponseBody<'put', P>>;
  delete<P extends PathPattern<'delete'>>(path: P, body?: RequestBody<'delete', P>): Promise<ResponseBody<'delete', P>>;
  /** A GET whose success is a file (an export): the answer itself, its body unread, to stream; errors as for any call. */
  download<P extends PathPattern<'get'>>(path: P, query?: QueryParams<'get', P>, accept?: string): Promise<Response>;
};

/**
 * A client for the signed-in API (`signedIn`: a missing token fails before any request, with the
 * login hint) or for the public licensing API and sign-in (no token sent).
 */
export function createClient(connection: Connection, mode: 'signedIn' | 'public'): Client {
  const { url, token } = connection;
  assertSecureUrl(url);
  if (mode === 'signedIn' && !token)
    throw new CliError('You are not signed in.', `${LOGIN_HINT} Scripts can set KEYPANEL_TOKEN to an API token instead.`);
  const rejectedHint =
    connection.tokenSource === 'KEYPANEL_TOKEN'
      ? 'Check KEYPANEL_TOKEN (it may have been revoked), or unset it and run `keypanel login`.'
      : 'Run `keypanel login` to sign in again.';

  // The answer is what the document says it is (the API's contract tests hold the server to it).
  async function request<T>(method: string, path: string, options: Options = {}): Promise<T> {
    const target = new URL(url + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== '') target.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `keypanel-cli/${version}`, ...options.headers };
    if (mode === 'signedIn') headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const bookmark = readBookmark(url);
    if (bookmark) headers[BOOKMARK_HEADER] = bookmark;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      // A download (raw) is timed until its answer starts: its body may stream for longer than that.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new DOMException('timed out', 'TimeoutError')), HTTP_TIMEOUT_MS);
      try {
        response = await fetch(target, { method, headers, body, signal: controller.signal });
        if (options.raw) clearTimeout(timer);
      } catch (err) {
        clearTimeout(timer);
        const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${HTTP_TIMEOUT_MS / 1000} s` : networkReason(err);
        throw new CliError(
          `Could not reach KeyPanel at ${url}: ${reason}.`,
          'Check the address (KEYPANEL_URL or `keypanel login --url`) and that the server is running.',
        );
      }
      rememberBookmark(url, response.headers.get(BOOKMARK_HEADER));
      if (response.ok && options.raw) return response as T;
      let text: string;
      try {
        text = await response.text();
      } catch (err) {
        const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${HTTP_TIMEOUT_MS / 1000} s` : networkReason(err);
        throw new CliError(`Could not read KeyPanel's answer at ${url}: ${reason}.`);
      } finally {
        clearTimeout(timer);
      }
      const data = parseJson(text);
      if (response.ok) {
        // Every answer of the API is a JSON object or array: anything else is not KeyPanel talking
        // (a proxy's page, a captive portal, another service on that address).
        if (data === null || typeof data !== 'object') throw notKeyPanel(url, response, 'an answer that is not a JSON object');
        return data as T;
      }
      const retryAfter = Number(response.headers.get('retry-after'));
      // A 429 is answered before the request does anything, so sending it again is always safe.
      if (response.status === 429 && attempt < MAX_RETRIES && retryAfter > 0 && retryAfter <= MAX_RETRY_WAIT_S) {
        notice(`Rate limited by the server; retrying in ${retryAfter} s.`);
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        continue;
      }
      const error = (data ?? {}) as { message?: unknown; code?: unknown; details?: unknown };
      const message =
        typeof error.message === 'string' && error.message
          ? error.message
          : `The server answered ${response.status} ${response.statusText}`.trim();
      const code = typeof error.code === 'string' ? error.code : undefined;
      const details = error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : undefined;
      throw new ApiError(
        message,
        response.status,
        code,
        response.status === 401 && mode === 'signedIn' ? rejectedHint : undefined,
        details,
      );
    }
  }

  return {
    url,
    get: (path, query) => request('GET', path, { query: query as Query | undefined }),
    post: (path, body, headers) => request('POST', path, { body, headers }),
    put: (path, body) => request('PUT', path, { body }),
    delete: (path, body) => request('DELETE', path, { body }),
    download: (path, query, accept = '*/*') => request('GET', path, { query: query as Query | undefined, raw: true, headers: { accept } }),
  };
}

export function notKeyPanel(url: string, response: Pick<Response, 'status' | 'headers'> | null, what: string) {
  const type = response?.headers.get('content-type')?.split(';')[0];
  const detail = response ? ` (HTTP ${response.status}${type ? `, ${type}` : ''})` : '';
  return new CliError(
    `The server at ${url} sent ${what}${detail}.`,
    'Check that KEYPANEL_URL (or `keypanel login --url`) is the address of a KeyPanel server.',
  );
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Node's fetch hides the socket error in `cause`: ECONNREFUSED reads better than "fetch failed". */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND') return 'host not found';
  return cause?.code ?? cause?.message ?? (err as Error).message ?? 'network error';
}
