// Latency at a steady load: requests sent on a schedule of their own (an open loop), each timed from
// the moment it was due, not from when it left. A closed loop (autocannon's connections, each waiting
// for its answer before the next request) sends only when the Worker has answered, so at saturation
// its latency is the queue: connections / throughput by Little's law, the throughput ratio again, and
// a stall delays the requests that would have been sent during it without counting them late
// ("coordinated omission"). In production requests arrive whenever their clients send them.
//
// Several targets (the floor and an endpoint) run at once on one schedule, their requests taking
// turns: this machine pauses its processes whole now and then, for 50-300 ms, and a p99 is made of
// such pauses. Measured one after the other, the target a pause fell on loses; measured together,
// each pause holds up both alike, and what differs between them is their own time.
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import { answeredRight, rememberBookmark, requestHeaders, type BenchRequest, type Expectation, type Run } from './load';

/** A stuck request is an error, not a long wait (as in the closed loop). */
const TIMEOUT_MS = 10_000;
/** How often the schedule is looked at; every request due since is sent then, timed from when it was due. */
const TICK_MS = 1;
/**
 * PACED_TRACE=<file>: each answer's due moment (ms into the run) and latency, a line each, under a
 * `# run <port>` line per target (the floor's port or the Worker's), to see when the slow answers came.
 */
const TRACE_FILE = process.env.PACED_TRACE;

export type PacedTarget = { url: URL; next: () => BenchRequest; expect: Expectation };

export type PacedOptions = {
  /** Requests a second to each target, spread evenly over the run. */
  rate: number;
  seconds: number;
  /** Connections the sender may open to each target (10, as the closed loop); a request due while all are busy waits for one, and the wait counts. */
  maxSockets?: number;
};

/** One target's answers as they come, made into a Run at the end. */
class Tally {
  readonly times: number[] = [];
  readonly statuses: Record<string, number> = {};
  readonly trace: string[] = [];
  errors = 0;
  answerBytes = 0;
  answered = 0;
  sent = 0;
  firstError: string | null = null;

  fail(what: string) {
    this.errors++;
    this.firstError ??= what;
  }

  run(seconds: number, connections: number): Run {
    return {
      connections,
      seconds,
      requests: this.answered,
      times: this.times,
      errors: this.errors,
      statuses: this.statuses,
      firstError: this.firstError,
      unanswered: this.sent - this.answered,
      // The load's cost is the closed loop's to measure; a paced run measures time only.
      cpuMs: null,
      instructions: null,
      answerBytes: this.answerBytes,
      d1: null,
      d1CpuMs: null,
    };
  }
}

/**
 * `rate` requests a second to each target for `seconds`, all at once, the targets' requests in
 * turns on one schedule; each answer's latency is counted from when its request was due. One Run
 * per target, in their order.
 */
export async function pacedRuns(targets: PacedTarget[], options: PacedOptions): Promise<Run[]> {
  const { rate, seconds, maxSockets = 10 } = options;
  if (!(rate > 0) || !(seconds > 0)) throw new Error(`pacedRuns needs a positive rate and duration (rate ${rate}, seconds ${seconds})`);
  if (!targets.length) throw new Error('pacedRuns needs a target');
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const tallies = targets.map(() => new Tally());
  const start = performance.now();

  const send = (target: PacedTarget, tally: Tally, due: number) =>
    new Promise<void>((resolve) => {
      const r = target.next();
      tally.sent++;
      const req = http.request(
        {
          host: target.url.hostname,
          port: target.url.port,
          method: r.method,
          path: r.path,
          headers: requestHeaders(r),
          agent,
          timeout: TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const latency = performance.now() - due;
            tally.times.push(latency);
            if (TRACE_FILE) tally.trace.push(`${(due - start).toFixed(1)} ${latency.toFixed(1)}`);
            tally.answered++;
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
            tally.answerBytes += text.length;
            rememberBookmark(r.token, res.headers);
            if (!answeredRight(target.expect, status, text)) tally.fail(`${status} ${text.slice(0, 300)}`);
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', (err) => {
        tally.fail(err.message);
        resolve();
      });
      req.end(r.body === undefined ? undefined : JSON.stringify(r.body));
    });

  // The k-th moment of the schedule goes to target k mod n: each target at `rate`, in turns.
  const total = Math.round(rate * seconds) * targets.length;
  const every = 1000 / (rate * targets.length);
  const inFlight: Promise<void>[] = [];
  let k = 0;
  while (k < total) {
    const now = performance.now();
    for (; k < total && start + k * every <= now; k++) {
      const i = k % targets.length;
      inFlight.push(send(targets[i], tallies[i], start + k * every));
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  if (TRACE_FILE)
    for (const [i, t] of targets.entries()) appendFileSync(TRACE_FILE, `# run ${t.url.port}\n${tallies[i].trace.join('\n')}\n`);
  return tallies.map((t) => t.run(elapsed, maxSockets));
}
