// Load over loopback with autocannon: a fixed number of connections for a fixed time, each request
// built on the fly by the scenario (a random key, a fresh key, another customer), each answer checked.
import autocannon from 'autocannon';
import { countInstructions, cpuMsOf } from './cpu';
import type { CallerCost } from './d1-host';

/**
 * What a run reads besides the answers: the Workers' process (CPU time, instructions) and, with D1 in
 * a process of its own, that process's CPU time and what D1 counted for the caller (runtime.ts).
 */
export type Meter = { pid: number | null; d1Pid: number | null; d1Costs: () => Promise<CallerCost | null> };
const NO_METER: Meter = { pid: null, d1Pid: null, d1Costs: () => Promise.resolve(null) };
/** A Worker writes some rows after its answer (waitUntil, in batches closing within 200 ms): they are the request's cost too. */
const SETTLE_MS = 300;

/** `token`: a signed-in call, which also sends back the latest D1 bookmark its session was given, as the web app and the CLI do. */
export type BenchRequest = { method: 'GET' | 'POST'; path: string; body?: unknown; token?: string };

const BOOKMARK_HEADER = 'x-d1-bookmark';
/**
 * The latest bookmark each session token was answered with. Each session stands for one client (a
 * browser tab, the CLI); autocannon's per-request context is the only thing that links a request to
 * its answer (it starts afresh for every request), so it carries the token across.
 */
const bookmarks = new Map<string, string>();
type RequestContext = { token?: string };

/** autocannon passes the answer's headers as they were spelled on the wire. */
function headerOf(headers: Record<string, string | string[] | undefined> | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {}))
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.at(-1) : value;
  return undefined;
}

/** A request's headers: its body's type, its session, and the latest bookmark that session was given. */
export const requestHeaders = (r: BenchRequest): Record<string, string> => ({
  ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
  ...(r.token ? { authorization: `Bearer ${r.token}` } : {}),
  ...(r.token && bookmarks.has(r.token) ? { [BOOKMARK_HEADER]: bookmarks.get(r.token)! } : {}),
});

/** Keeps the bookmark an answer gave its session, for the session's next request. */
export function rememberBookmark(token: string | undefined, headers: Record<string, string | string[] | undefined> | undefined) {
  const bookmark = token && headerOf(headers, BOOKMARK_HEADER);
  if (bookmark) bookmarks.set(token, bookmark);
}

/** Whether an answer is correct; a correct one is recorded (`Expectation.record`). */
export function answeredRight(expect: Expectation, status: number, body: string): boolean {
  if (!expect.statuses.includes(status) || (expect.check && !expect.check(body))) return false;
  expect.record?.(body);
  return true;
}

export type Expectation = {
  /** The statuses a correct answer has; anything else counts as an error. */
  statuses: number[];
  /** A check of the answer's body; a false counts as an error. Kept cheap: it runs on every answer. */
  check?: (body: string) => boolean;
  /** Called with every correct answer's body (e.g. to count activations that took a slot). */
  record?: (body: string) => void;
};

export type Measurement = {
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Connection errors, timeouts, unexpected statuses and answers that failed their check. */
  errors: number;
  statuses: Record<string, number>;
  /** One wrong answer, to show what went wrong. */
  firstError: string | null;
  /** Requests sent whose answer never came back (in flight when the run stopped). */
  unanswered: number;
  /** The runtime's CPU time per answered request, in microseconds (null where it cannot be read). */
  cpuUsPerRequest: number | null;
  /** The runtime's instructions per answered request, in thousands (null where perf cannot count them). */
  kInstructionsPerRequest: number | null;
  /** Bytes of the answers' bodies, per answer. */
  answerBytes: number;
  /**
   * What D1 did per answered request, from its own result metadata (null with D1 on the Workers'
   * thread): round trips (calls of the binding), statements, rows read and rows written, as billed.
   */
  d1: { roundTrips: number; statements: number; rowsRead: number; rowsWritten: number } | null;
  /** The D1 process's CPU time per answered request, in microseconds (null with D1 on the Workers' thread or without /proc). */
  d1CpuUsPerRequest: number | null;
};

/** One run's raw figures, which runs of the same load can be added up from (see `combine`). */
export type Run = {
  connections: number;
  seconds: number;
  requests: number;
  /** Every answer's latency, in milliseconds. */
  times: number[];
  errors: number;
  statuses: Record<string, number>;
  firstError: string | null;
  unanswered: number;
  cpuMs: number | null;
  instructions: number | null;
  answerBytes: number;
  d1: CallerCost | null;
  d1CpuMs: number | null;
};

export async function measure(
  url: URL,
  next: () => BenchRequest,
  expect: Expectation,
  connections: number,
  seconds: number,
  meter: Meter = NO_METER,
): Promise<Measurement> {
  return combine([await run(url, next, expect, connections, seconds, meter)]);
}

/**
 * Two loads measured in turns, `rounds` times `seconds / rounds` each (A, B, A, B, ...), each one's
 * runs added up: when the machine's speed drifts (other machines share its host), both see the same
 * stretches of it, so their ratio is steadier than from two measurements one after the other.
 */
export async function measurePaired(
  a: { url: URL; next: () => BenchRequest; expect: Expectation; meter: Meter },
  b: { url: URL; next: () => BenchRequest; expect: Expectation; meter: Meter },
  connections: number,
  seconds: number,
  rounds: number,
): Promise<[Measurement, Measurement]> {
  const runsA: Run[] = [];
  const runsB: Run[] = [];
  const each = seconds / rounds;
  for (let i = 0; i < rounds; i++) {
    runsA.push(await run(a.url, a.next, a.expect, connections, each, a.meter));
    runsB.push(await run(b.url, b.next, b.expect, connections, each, b.meter));
  }
  return [combine(runsA), combine(runsB)];
}

export function combine(runs: Run[]): Measurement {
  const sum = (f: (r: Run) => number) => runs.reduce((n, r) => n + f(r), 0);
  const known = (f: (r: Run) => number | null) => (runs.every((r) => f(r) !== null) ? sum((r) => f(r)!) : null);
  const times = runs.flatMap((r) => r.times).sort((x, y) => x - y);
  const percentile = (p: number) => (times.length ? times[Math.min(times.length - 1, Math.floor(p * times.length))] : 0);
  const seconds = sum((r) => r.seconds);
  const requests = sum((r) => r.requests);
  const statuses: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const cpuMs = known((r) => r.cpuMs);
  const instructions = known((r) => r.instructions);
  const d1CpuMs = known((r) => r.d1CpuMs);
  const d1 = runs.every((r) => r.d1)
    ? (['roundTrips', 'statements', 'rowsRead', 'rowsWritten'] as const).map((k) => [k, sum((r) => r.d1![k])] as const)
    : null;
  const perRequest = (n: number) => (requests > 0 ? Math.round((n / requests) * 100) / 100 : 0);
  return {
    connections: runs[0].connections,
    seconds,
    requests,
    rps: requests / seconds,
    p50: percentile(0.5),
    p90: percentile(0.9),
    p99: percentile(0.99),
    max: times.at(-1) ?? 0,
    errors: sum((r) => r.errors),
    statuses,
    firstError: runs.find((r) => r.firstError)?.firstError ?? null,
    unanswered: sum((r) => r.unanswered),
    cpuUsPerRequest: cpuMs !== null && requests > 0 ? (cpuMs * 1000) / requests : null,
    kInstructionsPerRequest: instructions !== null && requests > 0 ? instructions / requests / 1000 : null,
    answerBytes: requests > 0 ? Math.round(sum((r) => r.answerBytes) / requests) : 0,
    d1: d1 && (Object.fromEntries(d1.map(([k, n]) => [k, perRequest(n)])) as Measurement['d1']),
    d1CpuUsPerRequest: d1CpuMs !== null && requests > 0 ? (d1CpuMs * 1000) / requests : null,
  };
}

const costDelta = (before: CallerCost | null, after: CallerCost | null): CallerCost | null =>
  before && after
    ? {
        roundTrips: after.roundTrips - before.roundTrips,
        statements: after.statements - before.statements,
        rowsRead: after.rowsRead - before.rowsRead,
        rowsWritten: after.rowsWritten - before.rowsWritten,
      }
    : null;

async function run(
  url: URL,
  next: () => BenchRequest,
  expect: Expectation,
  connections: number,
  seconds: number,
  meter: Meter,
): Promise<Run> {
  let wrong = 0;
  let answerBytes = 0;
  let sent = 0;
  let answered = 0;
  let firstError: string | null = null;
  const options: autocannon.Options = {
    url: url.origin,
    connections,
    duration: seconds,
    // A stuck request is an error, not a long wait.
    timeout: 10,
    requests: [
      {
        setupRequest: (req, context: RequestContext) => {
          const r = next();
          sent++;
          req.method = r.method;
          req.path = r.path;
          req.headers = requestHeaders(r);
          context.token = r.token;
          req.body = r.body === undefined ? undefined : JSON.stringify(r.body);
          return req;
        },
        onResponse: (status, body, context: RequestContext, headers) => {
          answered++;
          answerBytes += body.length;
          rememberBookmark(context.token, headers);
          if (!answeredRight(expect, status, body)) {
            wrong++;
            firstError ??= `${status} ${body.slice(0, 300)}`;
          }
        },
      },
    ],
  };
  // autocannon's own percentiles are whole milliseconds; each response's time is kept here exactly.
  const times: number[] = [];
  const costsBefore = await meter.d1Costs();
  const cpuBefore = cpuMsOf(meter.pid);
  const d1CpuBefore = cpuMsOf(meter.d1Pid);
  const instructions = countInstructions(meter.pid);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err: Error | null, r) => (err ? reject(err) : resolve(r)));
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  if (costsBefore) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const cpuAfter = cpuMsOf(meter.pid);
  const d1CpuAfter = cpuMsOf(meter.d1Pid);
  const instructionCount = await instructions.stop();
  const costsAfter = await meter.d1Costs();
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
  return {
    connections,
    seconds: result.duration,
    requests: Object.values(statuses).reduce((a, b) => a + b, 0),
    times,
    // autocannon counts a timeout as an error too.
    errors: result.errors + wrong,
    statuses,
    firstError:
      firstError ??
      (result.errors || result.timeouts
        ? `${result.timeouts} timeouts (no answer within 10 s), ${result.errors - result.timeouts} connection errors`
        : null),
    unanswered: sent - answered,
    cpuMs: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
    instructions: instructionCount,
    answerBytes,
    d1: costDelta(costsBefore, costsAfter),
    d1CpuMs: costsBefore && d1CpuBefore !== null && d1CpuAfter !== null ? d1CpuAfter - d1CpuBefore : null,
  };
}
