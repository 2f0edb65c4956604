// Load over loopback with autocannon: a fixed number of connections for a fixed time, each request
// built on the fly by the scenario (a random key, a fresh key, another customer), each answer checked.
import autocannon from 'autocannon';
import { countInstructions, cpuMsOf } from './cpu';

export type BenchRequest = { method: 'GET' | 'POST'; path: string; body?: unknown; token?: string };

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
};

export async function measure(url: URL, next: () => BenchRequest, expect: Expectation, connections: number, seconds: number, runtimePid: number | null = null): Promise<Measurement> {
  let wrong = 0;
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
        setupRequest: (req) => {
          const r = next();
          sent++;
          req.method = r.method;
          req.path = r.path;
          req.headers = {
            ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(r.token ? { authorization: `Bearer ${r.token}` } : {}),
          };
          req.body = r.body === undefined ? undefined : JSON.stringify(r.body);
          return req;
        },
        onResponse: (status, body) => {
          answered++;
          if (!expect.statuses.includes(status) || (expect.check && !expect.check(body))) {
            wrong++;
            firstError ??= `${status} ${body.slice(0, 300)}`;
            return;
          }
          expect.record?.(body);
        },
      },
    ],
  };
  // autocannon's own percentiles are whole milliseconds; each response's time is kept here exactly.
  const times: number[] = [];
  const cpuBefore = cpuMsOf(runtimePid);
  const instructions = countInstructions(runtimePid);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err, r) => (err ? reject(err) : resolve(r)));
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  const cpuAfter = cpuMsOf(runtimePid);
  const instructionCount = await instructions.stop();
  times.sort((a, b) => a - b);
  const percentile = (p: number) => (times.length ? times[Math.min(times.length - 1, Math.floor(p * times.length))] : 0);
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
  const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    connections,
    seconds: result.duration,
    requests,
    rps: requests / result.duration,
    p50: percentile(0.5),
    p90: percentile(0.9),
    p99: percentile(0.99),
    max: times.at(-1) ?? 0,
    // autocannon counts a timeout as an error too.
    errors: result.errors + wrong,
    statuses,
    firstError: firstError ?? (result.errors || result.timeouts ? `${result.timeouts} timeouts (no answer within 10 s), ${result.errors - result.timeouts} connection errors` : null),
    unanswered: sent - answered,
    cpuUsPerRequest: cpuBefore !== null && cpuAfter !== null && requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / requests : null,
    kInstructionsPerRequest: instructionCount !== null && requests > 0 ? instructionCount / requests / 1000 : null,
  };
}
