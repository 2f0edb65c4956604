// The table, the ratios to the floor, and the verdict on each target of the performance issue.
import type { Measurement } from './load';
import { P99_LIMIT_CONNECTIONS, P99_LIMIT_MS, type Check, type Scenario } from './scenarios';

/** `floor`: the floor measured just before each of the scenario's measurements, which its ratios use. */
export type ScenarioResult = { scenario: Scenario; missing: boolean; measurements: Measurement[]; checks: Check[]; floor?: Measurement[] };
export type Verdict = { scenario: string; target: string; pass: boolean; detail: string };

const floorOf = (results: ScenarioResult[], connections: number, paired?: Measurement[]) =>
  (paired ?? results.find((r) => r.scenario.name === 'floor')?.measurements)?.find((m) => m.connections === connections);

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function evaluate(results: ScenarioResult[]): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const { scenario, missing, measurements, checks, floor: paired } of results) {
    const add = (target: string, pass: boolean, detail: string) => verdicts.push({ scenario: scenario.name, target, pass, detail });
    if (missing) {
      add('exists', false, `${scenario.endpoint} is not built yet`);
      continue;
    }
    const idle = measurements.filter((m) => m.requests === 0);
    if (idle.length) add('answers', false, `no request completed at ${idle.map((m) => m.connections).join(', ')} connections`);
    const errors = measurements.reduce((n, m) => n + m.errors, 0);
    add('no errors', errors === 0, errors === 0 ? 'none' : `${errors} (first: ${measurements.find((m) => m.firstError)?.firstError})`);
    if (scenario.name === 'floor') continue;
    const at10 = measurements.find((m) => m.connections === P99_LIMIT_CONNECTIONS);
    if (at10?.requests) add(`p99 < ${P99_LIMIT_MS} ms at ${P99_LIMIT_CONNECTIONS} connections`, at10.p99 < P99_LIMIT_MS, `${fmt(at10.p99, 1)} ms`);
    for (const m of measurements) {
      const floor = floorOf(results, m.connections, paired);
      if (!floor) continue;
      const { minRatio, maxP99VsFloor } = scenario.targets;
      if (minRatio !== undefined) {
        const ratio = m.rps / floor.rps;
        add(`throughput >= ${minRatio} x floor at ${m.connections} connections`, ratio >= minRatio, `${fmt(ratio, 2)} (${fmt(m.rps)} vs ${fmt(floor.rps)} req/s)`);
      }
      if (maxP99VsFloor !== undefined) {
        add(`p99 <= ${maxP99VsFloor} x floor at ${m.connections} connections`, m.p99 <= maxP99VsFloor * floor.p99, `${fmt(m.p99, 1)} ms vs floor ${fmt(floor.p99, 1)} ms`);
      }
    }
    for (const c of checks) add(c.name, c.pass, c.detail);
  }
  return verdicts;
}

export function printReport(results: ScenarioResult[], verdicts: Verdict[]) {
  const rows: string[][] = [['endpoint', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x floor', 'floor req/s', 'cpu \u00b5s/req', 'k instr/req']];
  for (const { scenario, missing, measurements, floor: paired } of results) {
    if (missing) {
      rows.push([scenario.name, '-', 'not built', '', '', '', '', '', '', '']);
      continue;
    }
    for (const m of measurements) {
      const floor = floorOf(results, m.connections, paired);
      rows.push([scenario.name, String(m.connections), fmt(m.rps), fmt(m.p50, 1), fmt(m.p99, 1), fmt(m.errors), floor ? fmt(m.rps / floor.rps, 2) : '', floor ? fmt(floor.rps) : '', m.cpuUsPerRequest === null ? '?' : fmt(m.cpuUsPerRequest), m.kInstructionsPerRequest === null ? '?' : fmt(m.kInstructionsPerRequest)]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log('');
  for (const [i, row] of rows.entries()) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log('\nTargets:');
  for (const v of verdicts) console.log(`  ${v.pass ? '\u2713' : '\u2717'} ${v.scenario}: ${v.target} (${v.detail})`);
}
