// Latency at a steady load: requests sent on a schedule of their own (an open loop), each timed from
// the moment it was due, not from when it left. A closed loop (autocannon's connections, each waiting
// for its answer before the next request) sends only when the Worker has answered, so at saturation
// its latency is the queue: connections / throughput by Little's law, the throughput ratio again, and
// a stall delays the requests that would have been sent during it without counting them late
// ("coordinated omission"). In production requests arrive whenever their clients send them.
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import { cpuMsOf } from './cpu';
import {
  answeredRight,
  costDelta,
  rememberBookmark,
  requestHeaders,
  SETTLE_MS,
  type BenchRequest,
  type Expectation,
  type Meter,
  type Run,
} from './load';

/** A stuck request is an error, not a long wait (as in the closed loop). */
const TIMEOUT_MS = 10_000;
/** How often the schedule is looked at; every request due since is sent then, timed from when it was due. */
const TICK_MS = 1;
/**
 * PACED_TRACE=<file>: each answer's due moment (ms into its run) and latency, a line each, under a
 * `# run <port>` line per run (the floor's port or the Worker's), to see when the slow answers came.
 */
const TRACE_FILE = process.env.PACED_TRACE;

export type PacedOptions = {
  /** Requests a second, spread evenly over the run. */
  rate: number;
  seconds: number;
  /** Connections the sender may open; a request due while all are busy waits for one, and the wait counts. */
  maxSockets?: number;
  meter?: Meter;
};

/** `rate` requests a second for `seconds`, each answer's latency counted from when its request was due. */
export async function pacedRun(url: URL, next: () => BenchRequest, expect: Expectation, options: PacedOptions): Promise<Run> {
  const { rate, seconds, maxSockets = 64, meter } = options;
  if (!(rate > 0) || !(seconds > 0)) throw new Error(`pacedRun needs a positive rate and duration (rate ${rate}, seconds ${seconds})`);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const total = Math.round(rate * seconds);
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let answerBytes = 0;
  let firstError: string | null = null;
  let answered = 0;
  const cpuBefore = cpuMsOf(meter?.pid ?? null);
  const d1CpuBefore = cpuMsOf(meter?.d1Pid ?? null);
  const costsBefore = meter ? await meter.d1Costs() : null;

  const trace: string[] = [];
  const start = performance.now();
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const r = next();
      const body = r.body === undefined ? undefined : JSON.stringify(r.body);
      const req = http.request(
        { host: url.hostname, port: url.port, method: r.method, path: r.path, headers: requestHeaders(r), agent, timeout: TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            times.push(performance.now() - due);
            if (TRACE_FILE) trace.push(`${(due - start).toFixed(1)} ${(performance.now() - due).toFixed(1)}`);
            answered++;
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            statuses[status] = (statuses[status] ?? 0) + 1;
            answerBytes += text.length;
            rememberBookmark(r.token, res.headers);
            if (!answeredRight(expect, status, text)) {
              errors++;
              firstError ??= `${status} ${text.slice(0, 300)}`;
            }
            resolve();
          });
        },
      );
      const fail = (what: string) => {
        errors++;
        firstError ??= what;
        resolve();
      };
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', (err) => fail(`${err.message}`));
      req.end(body);
    });

  const inFlight: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    // Every request due by now goes out, each timed from its own due moment.
    while (sent < total && start + (sent * 1000) / rate <= now) inFlight.push(send(start + (sent++ * 1000) / rate));
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(inFlight);
  if (TRACE_FILE) appendFileSync(TRACE_FILE, `# run ${url.port}\n${trace.join('\n')}\n`);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  if (costsBefore) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const cpuAfter = cpuMsOf(meter?.pid ?? null);
  const d1CpuAfter = cpuMsOf(meter?.d1Pid ?? null);
  const costsAfter = meter ? await meter.d1Costs() : null;
  return {
    connections: maxSockets,
    seconds: elapsed,
    requests: answered,
    times,
    errors,
    statuses,
    firstError,
    unanswered: sent - answered,
    cpuMs: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
    instructions: null,
    answerBytes,
    d1: costDelta(costsBefore, costsAfter),
    d1CpuMs: costsBefore && d1CpuBefore !== null && d1CpuAfter !== null ? d1CpuAfter - d1CpuBefore : null,
  };
}
