// The table, the ratios to the floor, and the verdicts. Two kinds: what must hold (every answer
// correct, the database exact after the writes), which fails the run; and the performance targets,
// ratios to the floor measured in turns with each endpoint, which are printed and recorded only:
// on a shared machine a missed ratio may be the neighbours', a wrong answer never is.
import type { Measurement } from './load';
import { MAX_P99_VS_FLOOR, TARGET_CONNECTIONS, type Check, type Scenario } from './scenarios';

/** `floor`: the floor measured in turns with each of the scenario's measurements, which its ratios use. */
export type ScenarioResult = {
  scenario: Scenario;
  missing: boolean;
  measurements: Measurement[];
  checks: Check[];
  floor?: Measurement[];
  /** Wrong answers to the probe and the warm-up, which are not in the measurements. */
  earlyErrors?: { count: number; first: string | null };
};

/** Something that must hold; any one false fails the run. */
export type Failure = { scenario: string; what: string; pass: boolean; detail: string };

/** A scenario's performance target at TARGET_CONNECTIONS, as recorded in results.json. */
export type RatioVerdict = {
  scenario: string;
  connections: number;
  /** Requests a second as a share of the floor's. */
  ratio: number;
  target: number;
  met: boolean;
  /** p99 as a multiple of the floor's p99. */
  p99Ratio: number;
  p99Target: number;
  p99Met: boolean;
  /**
   * The floor's CPU time per request over the endpoint's, both measured in turns: not a target, but
   * steadier than `ratio` when other programs take the cores (null where /proc cannot be read).
   */
  cpuRatio: number | null;
  detail: string;
};

const floorOf = (results: ScenarioResult[], connections: number, paired?: Measurement[]) =>
  (paired ?? results.find((r) => r.scenario.name === 'floor')?.measurements)?.find((m) => m.connections === connections);

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** What must hold: the endpoint exists and answers, every answer is correct, every exactness check passes. */
export function mustHold(results: ScenarioResult[]): Failure[] {
  const out: Failure[] = [];
  for (const { scenario, missing, measurements, checks, earlyErrors } of results) {
    const add = (what: string, pass: boolean, detail: string) => out.push({ scenario: scenario.name, what, pass, detail });
    if (missing) {
      add('exists', false, `${scenario.endpoint} answers the 404 of unknown API routes`);
      continue;
    }
    const idle = measurements.filter((m) => m.requests === 0);
    if (idle.length) add('answers', false, `no request completed at ${idle.map((m) => m.connections).join(', ')} connections`);
    const errors = measurements.reduce((n, m) => n + m.errors, 0) + (earlyErrors?.count ?? 0);
    const first = earlyErrors?.first ?? measurements.find((m) => m.firstError)?.firstError;
    add('no errors', errors === 0, errors === 0 ? 'none' : `${errors} (first: ${first})`);
    for (const c of checks) add(c.name, c.pass, c.detail);
  }
  return out;
}

/** Each endpoint's ratios to the floor at TARGET_CONNECTIONS, against its targets. */
export function ratios(results: ScenarioResult[]): RatioVerdict[] {
  const out: RatioVerdict[] = [];
  for (const { scenario, missing, measurements, floor: paired } of results) {
    const { minRatio } = scenario.targets;
    if (missing || minRatio === undefined) continue;
    const m = measurements.find((x) => x.connections === TARGET_CONNECTIONS);
    const floor = floorOf(results, TARGET_CONNECTIONS, paired);
    if (!m?.requests || !floor?.requests) continue;
    const ratio = m.rps / floor.rps;
    const p99Ratio = m.p99 / floor.p99;
    out.push({
      scenario: scenario.name,
      connections: TARGET_CONNECTIONS,
      ratio: round(ratio),
      target: minRatio,
      met: ratio >= minRatio,
      p99Ratio: round(p99Ratio),
      p99Target: MAX_P99_VS_FLOOR,
      p99Met: p99Ratio <= MAX_P99_VS_FLOOR,
      cpuRatio: m.cpuUsPerRequest && floor.cpuUsPerRequest ? round(floor.cpuUsPerRequest / m.cpuUsPerRequest) : null,
      detail: `${fmt(m.rps)} vs ${fmt(floor.rps)} req/s; p99 ${fmt(m.p99, 1)} vs ${fmt(floor.p99, 1)} ms`,
    });
  }
  return out;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export function printReport(results: ScenarioResult[], failures: Failure[], verdicts: RatioVerdict[]) {
  const rows: string[][] = [
    ['endpoint', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x floor', 'p99 x floor', 'floor req/s', 'cpu \u00b5s/req', 'k instr/req'],
  ];
  for (const { scenario, missing, measurements, floor: paired } of results) {
    if (missing) {
      rows.push([scenario.name, '-', 'not built', '', '', '', '', '', '', '', '']);
      continue;
    }
    for (const m of measurements) {
      const floor = floorOf(results, m.connections, paired);
      rows.push([
        scenario.name,
        String(m.connections),
        fmt(m.rps),
        fmt(m.p50, 1),
        fmt(m.p99, 1),
        fmt(m.errors),
        floor ? fmt(m.rps / floor.rps, 2) : '',
        floor ? fmt(m.p99 / floor.p99, 2) : '',
        floor ? fmt(floor.rps) : '',
        m.cpuUsPerRequest === null ? '?' : fmt(m.cpuUsPerRequest),
        m.kInstructionsPerRequest === null ? '?' : fmt(m.kInstructionsPerRequest),
      ]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log('');
  for (const [i, row] of rows.entries()) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  const mark = (pass: boolean) => (pass ? '\u2713' : '\u2717');
  console.log(`\nTargets at ${TARGET_CONNECTIONS} connections, as ratios to the floor (recorded; a miss does not fail the run):`);
  for (const v of verdicts) {
    console.log(
      `  ${mark(v.met)} ${v.scenario}: ${fmt(v.ratio, 2)} x floor, target >= ${v.target}   ${mark(v.p99Met)} p99 ${fmt(v.p99Ratio, 2)} x floor's, target <= ${v.p99Target}   (${v.detail}${v.cpuRatio === null ? '' : `; in CPU per request ${fmt(v.cpuRatio, 2)} x floor`})`,
    );
  }
  if (!verdicts.length) console.log(`  none measured (no run at ${TARGET_CONNECTIONS} connections)`);
  console.log('\nWhat must hold (any miss fails the run):');
  for (const f of failures) console.log(`  ${mark(f.pass)} ${f.scenario}: ${f.what} (${f.detail})`);
}
