// `npm run bench`: the Worker as deployed, in local workerd, against a database seeded at scale,
// measured beside the floor (the least a Worker can do in this runtime) under the same load, with
// what each request costs as billed: the Worker's CPU, D1's round trips and rows read and written.
// Options: --seconds N (each measurement, default 10), --only name,name (floor always runs),
// --connections 10,50, --repeat N (measurements in turns with the floor at 10 connections, default
// 3: the targets take their median), --d1 process|thread (where D1 runs, runtime.ts; default
// process), --scale 200k|2m (the shop's size, dataset.ts), --profile name,name (CPU profiles of the
// isolates during an extra run of each, in bench/profiles/ with a text summary of each), --via
// direct|entry (how the load reaches the Workers, runtime.ts). The figures go to bench/results.json
// and bench/results-<scale>-<d1>.json; a 2m run is compared with the 200k run of the same D1
// placement kept there. BENCH_TMPDIR: where the database lives (default: /dev/shm, in memory,
// where there is one; else the system's temporary folder); BENCH_KEEP=1 keeps it afterwards, to
// look at the seeded data and its query plans.
// Exits 1 when an endpoint answers wrongly (an unexpected status or body) or an exactness check fails;
// the performance targets (ratios to the floor, report.ts) are printed and recorded in results.json only.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from '../scripts/generate';
import { applyMigrations, freePort, ROOT } from '../scripts/local';
import { SCALES, seedBenchDatabase, type ScaleName } from './dataset';
import { combine, measure, measurePaired, type Measurement, type Meter, type Run } from './load';
import { pacedRuns } from './paced';
import { compareScales, mustHold, printReport, printScaleComparison, ratios, type ScenarioResult } from './report';
import { profile, saveProfile } from './profile';
import { bundleModules, formatSummary, summarise } from './profile-summary';
import {
  buildBenchWorker,
  buildWorker,
  D1_PLACEMENTS,
  startRuntime,
  WORKER_NAME,
  type D1Caller,
  type D1Placement,
  type Runtime,
  type Via,
} from './runtime';
import { PACED_SHARE, SCENARIOS, TARGET_CONNECTIONS, type Check, type Prepared } from './scenarios';

const WARMUP_SECONDS = 2;
const RESULTS_FILE = path.join(ROOT, 'bench', 'results.json');
const PROFILES_DIR = path.join(ROOT, 'bench', 'profiles');
const inspectorPort = (runtime: Runtime) => runtime.inspectorPort!;
/** The Worker's isolate and the one that runs local D1 (Miniflare's names for them). */
const PROFILED_ISOLATES = [`core:user:${WORKER_NAME}`, 'd1:db', 'kv:ns', 'core:entry'];

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10,50' },
    only: { type: 'string' },
    profile: { type: 'string' },
    via: { type: 'string', default: 'direct' },
    repeat: { type: 'string', default: '3' },
    d1: { type: 'string', default: 'process' },
    scale: { type: 'string', default: '200k' },
  },
});
const seconds = Number(args.seconds);
/** Turns of the floor and the endpoint within each measurement (measurePaired): 2-second turns by default. */
const rounds = Math.max(1, Math.round(seconds / 2));
const connectionCounts = args.connections.split(',').map(Number);
const via = args.via as Via;
const repeat = Number(args.repeat);
const d1 = args.d1 as D1Placement;
const scaleName = args.scale as ScaleName;
if (
  !(seconds >= 1) ||
  connectionCounts.some((c) => !Number.isInteger(c) || c < 1) ||
  (via !== 'direct' && via !== 'entry') ||
  !Number.isInteger(repeat) ||
  repeat < 1 ||
  !D1_PLACEMENTS.includes(d1) ||
  !Object.hasOwn(SCALES, scaleName)
) {
  console.error(
    'Usage: npm run bench -- [--seconds N] [--connections 10,50] [--repeat N] [--d1 process|thread] [--scale 200k|2m] [--only name,name] [--profile name,name] [--via direct|entry]',
  );
  process.exit(2);
}
const SCALE = SCALES[scaleName];
const only = args.only?.split(',').map((s) => s.trim());
const profiled = new Set(args.profile?.split(',').map((s) => s.trim()) ?? []);
const scenarios = SCENARIOS.filter((s) => s.name === 'floor' || !only || only.includes(s.name));

const started = Date.now();
const step = (text: string) => console.log(`\u25B8 ${text} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));

const loadBefore = load();
if (loadBefore[0] > os.cpus().length / 2) {
  console.warn(
    `\u26A0 The machine is busy (load ${loadBefore[0]} on ${os.cpus().length} cores): the figures will measure CPU contention, not KeyPanel.`,
  );
}

// Local D1 writes and fsyncs its SQLite file on every call, reads included; production D1 has no
// such disk. A folder in memory keeps the disk's stalls out of the figures, for the floor and KeyPanel alike.
const MEMORY_DIR = '/dev/shm';
const work = mkdtempSync(path.join(process.env.BENCH_TMPDIR ?? (existsSync(MEMORY_DIR) ? MEMORY_DIR : os.tmpdir()), 'keypanel-bench-'));
const stateDir = path.join(work, 'state');
let exitCode = 1;
let runtime: Runtime | undefined;
try {
  step('Building the Worker as deployed (wrangler deploy --dry-run) and the floor Worker');
  await generate(); // the common-password list the Worker imports
  const workerScript = buildWorker(path.join(work, 'worker'));
  const floorScript = await buildBenchWorker('floor-worker', path.join(work, 'floor'));
  const d1HostScript = await buildBenchWorker('d1-host', path.join(work, 'd1-host'));
  step('Applying migrations');
  applyMigrations(stateDir);
  runtime = await startRuntime({
    stateDir,
    workerScript,
    floorScript,
    via,
    d1,
    d1HostScript,
    inspectorPort: profiled.size ? await freePort() : undefined,
  });
  step(d1 === 'process' ? 'D1 runs in a process of its own, reached over HTTP' : "D1 runs on the Workers' thread");
  step(
    `Seeding ${SCALE.users.toLocaleString('en-US')} users, ${SCALE.products} products, ${SCALE.keys.toLocaleString('en-US')} keys, ${SCALE.activations.toLocaleString('en-US')} activations`,
  );
  const seedStart = Date.now();
  const data = await seedBenchDatabase(runtime, SCALE);
  const live = runtime;
  const meterOf = (caller: D1Caller): Meter => ({
    pid: live.pid,
    d1Pid: live.d1 === 'process' ? live.d1Pid : null,
    d1Costs: async () => (await live.d1Costs())?.[caller] ?? null,
  });
  const seedSeconds = (Date.now() - seedStart) / 1000;
  step(`Seeded in ${seedSeconds.toFixed(1)} s; Worker at ${runtime.url.origin}`);

  const results: ScenarioResult[] = [];
  let floorRun: Prepared | undefined;
  for (const scenario of scenarios) {
    // The every-minute cron, between endpoints (each measured for about a minute), so the keys lapsed
    // since it last ran are as few as in production; its own work is in no endpoint's figures.
    await runtime.runKeyJobs();
    const prepared = scenario.prepare(data);
    const url = scenario.name === 'floor' ? runtime.floorUrl : runtime.url;
    // One request first: an endpoint not built yet answers the JSON 404 of unknown API routes.
    const probe = prepared.next();
    let early = { count: 0, first: null as string | null };
    const res = await fetch(new URL(probe.path, url), {
      method: probe.method,
      headers: {
        ...(probe.body ? { 'content-type': 'application/json' } : {}),
        ...(probe.token ? { authorization: `Bearer ${probe.token}` } : {}),
      },
      body: probe.body ? JSON.stringify(probe.body) : undefined,
    });
    const text = await res.text();
    // The probe is a request like the others: its answer counts toward the scenario's checks.
    if (prepared.expect.statuses.includes(res.status) && (!prepared.expect.check || prepared.expect.check(text)))
      prepared.expect.record?.(text);
    else early = { count: 1, first: `${res.status} ${text.slice(0, 300)}` };
    if (res.status === 404 && text.includes('No API route')) {
      step(`${scenario.name}: ${scenario.endpoint} does not exist yet; skipped`);
      results.push({ scenario, missing: true, measurements: [], checks: [] });
      continue;
    }
    step(`${scenario.name}: ${scenario.endpoint}`);
    const meter = meterOf(scenario.name === 'floor' ? 'floor' : 'keypanel');
    const warmup = await measure(url, prepared.next, prepared.expect, connectionCounts[0], WARMUP_SECONDS);
    let unanswered = warmup.unanswered;
    early = { count: early.count + warmup.errors, first: early.first ?? warmup.firstError };
    const measurements: Measurement[] = [];
    const pairedFloor: Measurement[] = [];
    const repeats: { floor: Measurement; endpoint: Measurement }[] = [];
    const paced: { rate: number; floor: Run; endpoint: Run }[] = [];
    for (const connections of connectionCounts) {
      let m: Measurement;
      if (floorRun && scenario.name !== 'floor') {
        // The floor in turns with the endpoint, so both see the machine as it is then (its speed
        // drifts by a third or more over a run when other machines share the host); at the targets'
        // connections, `repeat` times, so a verdict is a median rather than one draw.
        const times = connections === TARGET_CONNECTIONS ? repeat : 1;
        let first: [Measurement, Measurement] | undefined;
        for (let i = 0; i < times; i++) {
          const [floor, endpoint] = await measurePaired(
            { url: runtime.floorUrl, ...floorRun, meter: meterOf('floor') },
            { url, ...prepared, meter },
            connections,
            seconds,
            rounds,
          );
          first ??= [floor, endpoint];
          if (connections === TARGET_CONNECTIONS) repeats.push({ floor, endpoint });
          if (i > 0) unanswered += endpoint.unanswered;
          if (d1 === 'process' && connections === TARGET_CONNECTIONS && endpoint.rps > 0) {
            // The p99 verdict's load: a share (PACED_SHARE) of what the endpoint just served, offered
            // to the floor and to it alike, at once, on a schedule (paced.ts).
            const rate = endpoint.rps * PACED_SHARE;
            const [floorPaced, endpointPaced] = await pacedRuns(
              [
                { url: runtime.floorUrl, next: floorRun.next, expect: floorRun.expect },
                { url, next: prepared.next, expect: prepared.expect },
              ],
              { rate, seconds },
            );
            unanswered += endpointPaced.unanswered;
            paced.push({ rate, floor: floorPaced, endpoint: endpointPaced });
          }
        }
        pairedFloor.push(first![0]);
        m = first![1];
      } else {
        m = await measure(url, prepared.next, prepared.expect, connections, seconds, meter);
      }
      unanswered += m.unanswered;
      measurements.push(m);
    }
    if (profiled.has(scenario.name)) {
      // An extra run, so the profiler's own cost is not in the figures above.
      const { profiles, heaps } = await profile(inspectorPort(runtime), PROFILED_ISOLATES, async () => {
        unanswered += (await measure(url, prepared.next, prepared.expect, connectionCounts[0], seconds)).unanswered;
      });
      mkdirSync(PROFILES_DIR, { recursive: true });
      // The Worker's functions are named by the module of the bundle they came from.
      const moduleOf = bundleModules(readFileSync(workerScript, 'utf8'), path.basename(workerScript));
      for (const [isolate, cpu] of profiles) {
        const file = path.join(
          PROFILES_DIR,
          `${scenario.name.replace(/[^a-z0-9]+/gi, '-')}.${isolate.split(':').slice(0, 2).join('-')}.cpuprofile`,
        );
        saveProfile(file, cpu);
        // Shares within the isolate only: every isolate runs on workerd's one thread, and a profile
        // also samples the time its isolate waits while the others run, so its busy time is no
        // measure of its cost (the cpu \u00b5s/req column is).
        const summary = formatSummary(`${scenario.name}, isolate ${isolate}`, summarise(cpu, moduleOf));
        const summaryFile = file.replace(/\.cpuprofile$/, '.txt');
        writeFileSync(summaryFile, summary);
        console.log(`  ${isolate}: ${path.relative(process.cwd(), file)} (Chrome DevTools), ${path.relative(process.cwd(), summaryFile)}`);
        if (isolate === PROFILED_ISOLATES[0]) console.log(summary.replace(/^/gm, '    '));
      }
      for (const [isolate, h] of heaps) {
        const mb = (n: number) => n.toFixed(1);
        console.log(
          `  ${isolate}: heap ${mb(h.startMb)} MB at the start, ${mb(h.lowMb)}-${mb(h.highMb)} MB during, ${mb(h.endMb)} MB at the end`,
        );
      }
      const claimed = [...profiles.values()].reduce((sum, cpu) => sum + summarise(cpu).busyMs, 0);
      const span = Math.max(...[...profiles.values()].map((cpu) => (cpu.endTime - cpu.startTime) / 1000));
      console.log(
        `  The isolates claim ${(claimed / 1000).toFixed(1)} s of busy time within ${(span / 1000).toFixed(1)} s on one thread: ` +
          'each profile also counts time spent in the others, so read shares within a profile, not times (docs/performance.md).',
      );
    }
    const checks: Check[] = prepared.verify ? await prepared.verify(runtime.db, unanswered) : [];
    results.push({
      scenario,
      missing: false,
      measurements,
      checks,
      earlyErrors: early,
      ...(pairedFloor.length ? { floor: pairedFloor } : {}),
      ...(repeats.length ? { repeats } : {}),
      ...(paced.length
        ? {
            paced: {
              rates: paced.map((r) => Math.round(r.rate)),
              floor: combine(paced.map((r) => r.floor)),
              endpoint: combine(paced.map((r) => r.endpoint)),
            },
          }
        : {}),
    });
    if (scenario.name === 'floor') floorRun = prepared;
  }

  const loadAfter = load();
  const failures = mustHold(results);
  const verdicts = ratios(results, d1);
  printReport(results, failures, verdicts);
  const passed = failures.every((f) => f.pass);
  const report = {
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadBefore, loadAfter },
    settings: {
      secondsPerMeasurement: seconds,
      connections: connectionCounts,
      warmupSeconds: WARMUP_SECONDS,
      via,
      repeat,
      d1,
      databaseFolder: path.dirname(work),
    },
    dataset: { scale: scaleName, ...SCALE, seedSeconds },
    results: results.map((r) => ({
      name: r.scenario.name,
      endpoint: r.scenario.endpoint,
      drives: r.scenario.drives,
      missing: r.missing,
      // Its performance target at TARGET_CONNECTIONS: ratio, target, met, p99Ratio, p99Target, p99Met.
      target: verdicts.find((v) => v.scenario === r.scenario.name) ?? null,
      measurements: r.measurements,
      ...(r.floor ? { floorInTurns: r.floor } : {}),
      ...(r.repeats ? { repeats: r.repeats } : {}),
      ...(r.paced ? { paced: r.paced } : {}),
      ...(r.earlyErrors?.count ? { probeAndWarmupErrors: r.earlyErrors } : {}),
      checks: r.checks,
    })),
    mustHold: failures,
    targetsMet: verdicts.filter((v) => v.met !== false && v.p99Met !== false).length,
    targetsMissed: verdicts.filter((v) => v.met === false || v.p99Met === false).map((v) => v.scenario),
    passed,
    totalSeconds: (Date.now() - started) / 1000,
  };
  // Ten times the shop against the smaller shop's last run with D1 placed the same way.
  const baseFile = path.join(ROOT, 'bench', `results-200k-${d1}.json`);
  const scaleComparison =
    scaleName !== '200k' && existsSync(baseFile)
      ? compareScales(report.results, (JSON.parse(readFileSync(baseFile, 'utf8')) as typeof report).results)
      : null;
  if (scaleComparison) printScaleComparison(scaleComparison, `the 200k shop's run in ${path.relative(process.cwd(), baseFile)}`);
  else if (scaleName !== '200k')
    console.log(`\nNo 200k run with --d1 ${d1} in ${path.relative(process.cwd(), baseFile)} to compare with: run one first.`);
  const recorded = JSON.stringify({ ...report, ...(scaleComparison ? { scaleComparison } : {}) }, null, 2) + '\n';
  writeFileSync(RESULTS_FILE, recorded);
  if (!only) writeFileSync(path.join(ROOT, 'bench', `results-${scaleName}-${d1}.json`), recorded);
  console.log(
    `\nLoad average before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')}. Figures in ${path.relative(process.cwd(), RESULTS_FILE)}.`,
  );
  exitCode = passed ? 0 : 1;
  const missed = report.targetsMissed.length
    ? `performance targets missed by ${report.targetsMissed.join(', ')} (recorded, not a failure)`
    : 'every performance target met';
  console.log(
    passed
      ? `Every answer correct and every exactness check held; ${missed}.`
      : `FAILED: an endpoint answered wrongly or an exactness check failed (above); ${missed}.`,
  );
} catch (err) {
  console.error(err);
} finally {
  await runtime?.dispose();
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);
