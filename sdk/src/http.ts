// One POST to the licensing API, sent again after a 429, a 5xx or no answer at all, waiting as
// Retry-After says or else backing off exponentially with jitter. Every licensing call is safe to
// repeat: activating a device again takes no second slot, a debit repeats with its Idempotency-Key,
// and a 429 is answered before any work.

export type RetryOptions = {
  /** Attempts after the first (default 3). */
  retries?: number;
  /** First backoff in ms, doubled each time (default 500). */
  baseDelayMs?: number;
  /** No single wait is longer (default 30 s); a Retry-After beyond it ends the retries. */
  maxDelayMs?: number;
};

export type RawAnswer = { status: number; bytes: Uint8Array<ArrayBuffer>; signature: string | null; retryAfter?: number };

/** The part of `fetch` the SDK uses: any implementation (a test's, a proxy-aware one) will do. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export type Transport = {
  fetch: FetchLike;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  sleep: (ms: number) => Promise<void>;
};

const retryable = (status: number) => status === 429 || status >= 500;

/** Retry-After as seconds, from either form HTTP allows (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The last answer, or null when none came at all. */
export async function post(
  transport: Transport,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer | null> {
  const { retries, baseDelayMs, maxDelayMs } = transport.retry;
  let last: RawAnswer | null = null;
  for (let attempt = 0; ; attempt++) {
    last = await once(transport, url, body, headers).catch(() => null);
    if (last && !retryable(last.status)) return last;
    if (attempt >= retries) return last;
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    const wait = last?.retryAfter !== undefined ? last.retryAfter * 1000 : backoff;
    if (wait > maxDelayMs) return last;
    await transport.sleep(wait);
  }
}

async function once(transport: Transport, url: string, body: unknown, headers: Record<string, string>): Promise<RawAnswer> {
  const res = await transport.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(transport.timeoutMs),
  });
  return {
    status: res.status,
    bytes: new Uint8Array(await res.arrayBuffer()),
    signature: res.headers.get('x-signature'),
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
  };
}
