// The table, the ratios to the floor, and the verdicts. Two kinds: what must hold (every answer
// correct, the database exact after the writes), which fails the run; and the performance targets,
// ratios to the floor measured in turns with each endpoint (the median of the run's repeats), which
// are printed and recorded only: on a shared machine a missed ratio may be the neighbours', a wrong
// answer never is. With D1 in a process of its own the targets are p99s (at most MAX_P99_VS_FLOOR
// times the floor's, at a steady load); with D1 on the Workers' thread, throughput floors (each
// scenario's minRatio). Endpoints with no minRatio are measured with no target in either.
import type { Measurement } from './load';
import type { D1Placement } from './runtime';
import { MAX_P99_VS_FLOOR, TARGET_CONNECTIONS, type Check, type Scenario } from './scenarios';

/** `floor`: the floor measured in turns with each of the scenario's measurements, which its ratios use. */
export type ScenarioResult = {
  scenario: Scenario;
  missing: boolean;
  measurements: Measurement[];
  checks: Check[];
  floor?: Measurement[];
  /** The measurements in turns with the floor at TARGET_CONNECTIONS, repeated: the verdicts take their medians. */
  repeats?: { floor: Measurement; endpoint: Measurement }[];
  /**
   * With D1 in a process of its own: the floor and the endpoint at the same steady load (paced.ts),
   * each repeat's run pooled, so the p99 verdict reads every answer of the three. `rates`: each repeat's
   * requests a second.
   */
  paced?: { rates: number[]; floor: Measurement; endpoint: Measurement };
  /** Wrong answers to the probe and the warm-up, which are not in the measurements. */
  earlyErrors?: { count: number; first: string | null };
};

/** Something that must hold; any one false fails the run. */
export type Failure = { scenario: string; what: string; pass: boolean; detail: string };

/** A scenario's performance target at TARGET_CONNECTIONS, as recorded in results.json. */
export type RatioVerdict = {
  scenario: string;
  connections: number;
  /** Requests a second as a share of the floor's: the median of the repeats. */
  ratio: number;
  /** Each repeat's ratio, in the order measured. */
  ratios: number[];
  /** The throughput floor (D1 on the Workers' thread), or null where none applies. */
  target: number | null;
  met: boolean | null;
  /**
   * p99 as a multiple of the floor's p99: at the same steady load where one was measured (D1 in a
   * process of its own, `paced`), else in the closed loop, the median of the repeats.
   */
  p99Ratio: number;
  /** In the closed loop at TARGET_CONNECTIONS (the median of the repeats), where the paced one is the verdict's. */
  closedP99Ratio: number;
  /** The p99 bound (D1 in a process of its own), or null where none applies. */
  p99Target: number | null;
  p99Met: boolean | null;
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
  for (const { scenario, missing, measurements, checks, earlyErrors, paced } of results) {
    const add = (what: string, pass: boolean, detail: string) => out.push({ scenario: scenario.name, what, pass, detail });
    if (missing) {
      add('exists', false, `${scenario.endpoint} answers the 404 of unknown API routes`);
      continue;
    }
    const idle = measurements.filter((m) => m.requests === 0);
    if (idle.length) add('answers', false, `no request completed at ${idle.map((m) => m.connections).join(', ')} connections`);
    const pacedRuns = paced ? [paced.endpoint, paced.floor] : [];
    const errors = [...measurements, ...pacedRuns].reduce((n, m) => n + m.errors, 0) + (earlyErrors?.count ?? 0);
    const first = earlyErrors?.first ?? [...measurements, ...pacedRuns].find((m) => m.firstError)?.firstError;
    add('no errors', errors === 0, errors === 0 ? 'none' : `${errors} (first: ${first})`);
    for (const c of checks) add(c.name, c.pass, c.detail);
  }
  return out;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Each endpoint's ratios to the floor at TARGET_CONNECTIONS (medians of the repeats), against the targets of the D1 placement. */
export function ratios(results: ScenarioResult[], d1: D1Placement): RatioVerdict[] {
  const out: RatioVerdict[] = [];
  for (const { scenario, missing, repeats, paced } of results) {
    if (missing || scenario.name === 'floor') continue;
    const pairs = (repeats ?? []).filter((r) => r.endpoint.requests && r.floor.requests);
    if (!pairs.length) continue;
    const each = pairs.map((r) => r.endpoint.rps / r.floor.rps);
    const ratio = median(each);
    const closedP99Ratio = median(pairs.map((r) => r.endpoint.p99 / r.floor.p99));
    const pacedP99 = paced && paced.floor.requests && paced.endpoint.requests ? paced.endpoint.p99 / paced.floor.p99 : null;
    const p99Ratio = pacedP99 ?? closedP99Ratio;
    const target = d1 === 'thread' ? (scenario.targets.minRatio ?? null) : null;
    // The guard's endpoints (a throughput floor) have a p99 bound too; the analytics pages are measured only.
    const p99Target = d1 === 'process' && scenario.targets.minRatio !== undefined ? MAX_P99_VS_FLOOR : null;
    const cpu = pairs.filter((r) => r.endpoint.cpuUsPerRequest && r.floor.cpuUsPerRequest);
    const last = pairs.at(-1)!;
    out.push({
      scenario: scenario.name,
      connections: TARGET_CONNECTIONS,
      ratio: round(ratio),
      ratios: each.map(round),
      target,
      met: target === null ? null : ratio >= target,
      p99Ratio: round(p99Ratio),
      closedP99Ratio: round(closedP99Ratio),
      p99Target,
      p99Met: p99Target === null ? null : p99Ratio <= p99Target,
      cpuRatio: cpu.length ? round(median(cpu.map((r) => r.floor.cpuUsPerRequest! / r.endpoint.cpuUsPerRequest!))) : null,
      detail:
        `${pairs.length} repeat${pairs.length === 1 ? '' : 's'}; last ${fmt(last.endpoint.rps)} vs ${fmt(last.floor.rps)} req/s, p99 ${fmt(last.endpoint.p99, 1)} vs ${fmt(last.floor.p99, 1)} ms` +
        (pacedP99 === null
          ? ''
          : `; paced at ${paced!.rates.map((r) => fmt(r)).join('/')} req/s: p99 ${fmt(paced!.endpoint.p99, 1)} vs ${fmt(paced!.floor.p99, 1)} ms over ${fmt(paced!.endpoint.requests)} and ${fmt(paced!.floor.requests)} answers (closed loop ${fmt(closedP99Ratio, 2)} x)`),
    });
  }
  return out;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

const num = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? '?' : fmt(n, digits));

export function printReport(results: ScenarioResult[], failures: Failure[], verdicts: RatioVerdict[]) {
  const counted = results.some((r) => r.measurements.some((m) => m.kInstructionsPerRequest !== null));
  const head = ['endpoint', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x floor', 'p99 x floor', 'floor req/s', 'cpu \u00b5s/req'];
  const d1Head = ['d1 trips', 'rows read', 'rows written', 'answer B', 'd1 cpu \u00b5s'];
  const rows: string[][] = [[...head, ...d1Head, ...(counted ? ['k instr/req'] : [])]];
  for (const { scenario, missing, measurements, floor: paired } of results) {
    if (missing) {
      rows.push([scenario.name, '-', 'not built', ...Array<string>(rows[0].length - 3).fill('')]);
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
        num(m.cpuUsPerRequest),
        num(m.d1?.roundTrips, 2),
        num(m.d1?.rowsRead, 1),
        num(m.d1?.rowsWritten, 2),
        fmt(m.answerBytes),
        num(m.d1CpuUsPerRequest),
        ...(counted ? [num(m.kInstructionsPerRequest)] : []),
      ]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log('');
  for (const [i, row] of rows.entries()) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log(
    "\ncpu \u00b5s/req: the Workers' process per answer; d1 trips, rows read and written: per answer, as D1 counts and bills them; answer B: the body's bytes.",
  );
  const mark = (pass: boolean | null) => (pass === null ? '\u00b7' : pass ? '\u2713' : '\u2717');
  console.log(
    `\nTargets at ${TARGET_CONNECTIONS} connections, medians of the repeats as ratios to the floor; p99s at the same steady load where one was paced, every answer of the repeats pooled (recorded; a miss does not fail the run):`,
  );
  for (const v of verdicts) {
    const throughput =
      v.target === null ? `${fmt(v.ratio, 2)} x floor` : `${mark(v.met)} ${fmt(v.ratio, 2)} x floor, target >= ${v.target}`;
    const p99 =
      v.p99Target === null
        ? `p99 ${fmt(v.p99Ratio, 2)} x floor's`
        : `${mark(v.p99Met)} p99 ${fmt(v.p99Ratio, 2)} x floor's, target <= ${v.p99Target}`;
    console.log(
      `  ${v.scenario}: ${throughput}   ${p99}   (repeats ${v.ratios.map((r) => fmt(r, 2)).join(', ')}; ${v.detail}${v.cpuRatio === null ? '' : `; in CPU per request ${fmt(v.cpuRatio, 2)} x floor`})`,
    );
  }
  if (!verdicts.length) console.log(`  none measured (no run at ${TARGET_CONNECTIONS} connections)`);
  console.log('\nWhat must hold (any miss fails the run):');
  for (const f of failures) console.log(`  ${mark(f.pass)} ${f.scenario}: ${f.what} (${f.detail})`);
}

/** One scenario at two sizes of the shop: rows read per request and throughput (as a share of the floor). */
export type ScaleComparison = {
  scenario: string;
  rowsRead: { base: number; now: number; change: number; pass: boolean } | null;
  ratio: { base: number; now: number; change: number; pass: boolean } | null;
};
/** Ten times the shop: rows read per request within 10% of the smaller shop's, throughput within 15%. */
export const SCALE_LIMITS = { rowsRead: 0.1, ratio: 0.15 };

type Recorded = { name: string; target: RatioVerdict | null; measurements: Measurement[] };

/** Each scenario of this run against the same scenario in `base` (a run on the smaller shop, same D1 placement). */
export function compareScales(now: Recorded[], base: Recorded[]): ScaleComparison[] {
  const at = (r: Recorded) => r.measurements.find((m) => m.connections === TARGET_CONNECTIONS);
  return now.flatMap((r) => {
    const b = base.find((x) => x.name === r.name);
    if (!b || r.name === 'floor') return [];
    const rowsNow = at(r)?.d1?.rowsRead;
    const rowsBase = at(b)?.d1?.rowsRead;
    const change = (n: number, base: number) => (base === 0 ? (n === 0 ? 0 : Infinity) : (n - base) / base);
    return [
      {
        scenario: r.name,
        rowsRead:
          rowsNow === undefined || rowsBase === undefined
            ? null
            : {
                base: rowsBase,
                now: rowsNow,
                change: round(change(rowsNow, rowsBase)),
                pass: rowsNow <= rowsBase * (1 + SCALE_LIMITS.rowsRead),
              },
        ratio:
          r.target && b.target
            ? {
                base: b.target.ratio,
                now: r.target.ratio,
                change: round(change(r.target.ratio, b.target.ratio)),
                pass: r.target.ratio >= b.target.ratio * (1 - SCALE_LIMITS.ratio),
              }
            : null,
      },
    ];
  });
}

export function printScaleComparison(comparisons: ScaleComparison[], baseLabel: string) {
  const pct = (n: number) => `${n >= 0 ? '+' : ''}${(n * 100).toFixed(0)}%`;
  const mark = (pass: boolean) => (pass ? '\u2713' : '\u2717');
  console.log(
    `\nAgainst ${baseLabel}: rows read per request within ${SCALE_LIMITS.rowsRead * 100}%, throughput (x floor) within ${SCALE_LIMITS.ratio * 100}%:`,
  );
  for (const c of comparisons) {
    const rows = c.rowsRead
      ? `${mark(c.rowsRead.pass)} rows read ${fmt(c.rowsRead.base, 1)} -> ${fmt(c.rowsRead.now, 1)} (${pct(c.rowsRead.change)})`
      : 'rows read ?';
    const ratio = c.ratio
      ? `${mark(c.ratio.pass)} x floor ${fmt(c.ratio.base, 2)} -> ${fmt(c.ratio.now, 2)} (${pct(c.ratio.change)})`
      : 'x floor ?';
    console.log(`  ${c.scenario}: ${rows}   ${ratio}`);
  }
}
