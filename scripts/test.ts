// npm test: every test. `npm test -- <module>` runs one Worker module's tests alone
// (worker/modules/<module>/test, e.g. `npm test -- licensing`), `npm test -- platform` the platform's;
// anything else goes to vitest as it is (`npm test -- --project cli`, a file, `-t "a test's name"`).
//
// With no arguments, two vitest runs go side by side: the browser tests, one file at a time (they
// share one local server and its settings), and everything else. In one run, vitest keeps a project
// without file parallelism for last, alone, and one of the two cores sat idle for its minutes; side
// by side, the browser files fill that core from the start. The browser run's output is printed
// when it ends, so each run reads as a whole; the exit code fails if either fails, and the last lines
// printed name every failed test of both runs. The Python and Go SDKs' tests run beside them
// (scripts/sdk-languages.ts; skipped, and said so, where their toolchains are missing).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import path from 'node:path';
import { ensureDevVars } from './local';
import { runLanguageSdks } from './sdk-languages';

const ROOT = path.join(import.meta.dirname, '..');

/** Where a module's tests are, or null when `name` names no module. */
export function moduleTests(name: string): string | null {
  if (!/^[a-z][a-z-]*$/.test(name)) return null;
  if (name === 'platform') return 'worker/platform/test';
  return existsSync(path.join(ROOT, 'worker/modules', name, 'test')) ? `worker/modules/${name}/test` : null;
}

export const MODULES = readdirSync(path.join(ROOT, 'worker/modules'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(path.join(ROOT, 'worker/modules', entry.name, 'test')))
  .map((entry) => entry.name);

/** The browser tests' project, run beside the rest on a full run. */
export const BROWSER_PROJECT = 'e2e';
/**
 * Files at a time for the rest on a full run. Most of them wait on a child process, a local server
 * or D1 rather than on the CPU: with two at a time and the browser tests beside them, a CI run kept
 * the two cores busy only 62% of the time.
 */
export const BESIDE_WORKERS = 3;

/** The vitest runs for `npm test -- ...args`: two side by side for a full run, else one. */
export function vitestRuns(args: string[]): string[][] {
  if (args.length === 0)
    return [
      ['run', '--project', `!${BROWSER_PROJECT}`, '--maxWorkers', String(BESIDE_WORKERS)],
      ['run', '--project', BROWSER_PROJECT],
    ];
  return [vitestArgs(args)];
}

/** The vitest arguments for `npm test -- ...args`. */
export function vitestArgs(args: string[]): string[] {
  const [first, ...rest] = args;
  const tests = first === undefined ? null : moduleTests(first);
  return tests ? ['run', '--project', 'worker', tests, ...rest] : ['run', ...args];
}

const VITEST = path.join(ROOT, 'node_modules', '.bin', 'vitest');

/** What vitest's JSON reporter writes, as far as the recap reads it. */
export interface JsonReport {
  testResults?: {
    name: string;
    status: string;
    message?: string;
    assertionResults?: JsonTestResult[];
  }[];
}

/** One test in that report; `meta` is what e2e/setup.ts records on a browser test. */
export interface JsonTestResult {
  fullName: string;
  status: string;
  failureMessages?: string[];
  meta?: { retried?: number; browser?: string[] };
}

const firstLines = (text: string, count: number) =>
  stripVTControlCharacters(text)
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .slice(0, count);

/** A failed test's (or failed attempt's) first lines, then what the browser showed then (e2e/evidence.ts). */
const failureLines = (test: JsonTestResult) =>
  [
    ...firstLines(test.failureMessages?.[0] ?? '', 4),
    ...(test.meta?.browser?.length ? ['what the browser showed:', ...test.meta.browser.map((line) => `  ${line}`)] : []),
  ].map((line) => `      ${line}`);

/**
 * The failures of one run, a few lines each: the last thing a full run prints, so a log cut to its
 * tail still says what failed, whichever of the two runs it was in.
 */
export function recap(label: string, code: number, report: JsonReport | null, outputTail: string): string[] {
  const root = ROOT + path.sep;
  const relative = (name: string) => (name.startsWith(root) ? name.slice(root.length) : name);
  // A browser test that passed only on its retry (e2e/setup.ts): named, pass or fail, with what its
  // failed attempt said (the report keeps that attempt's error beside the pass).
  const retried = (report?.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((test) => test.status === 'passed' && (test.meta?.retried ?? 0) > 0)
      .flatMap((test) => [
        `  \u21BB ${relative(file.name)} \u203A ${test.fullName}: passed on retry ${test.meta!.retried} (flaky: look into it)`,
        ...failureLines(test),
      ]),
  );
  if (code === 0) return [`${label}: passed`, ...retried];
  const lines = [`${label}: FAILED (exit ${code})`];
  for (const file of report?.testResults ?? []) {
    const name = relative(file.name);
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) {
      lines.push(`  \u2717 ${name} \u203A ${test.fullName}`);
      lines.push(...failureLines(test));
    }
    if (failed.length === 0 && file.status === 'failed') {
      lines.push(`  \u2717 ${name}`);
      lines.push(...firstLines(file.message ?? '', 4).map((line) => `      ${line}`));
    }
  }
  if (lines.length === 1) {
    // No failed test in the report (a setup that threw, a crash): the end of what the run printed.
    lines.push('  no failed test reported; the end of its output:');
    lines.push(
      ...firstLines(outputTail, 400)
        .slice(-30)
        .map((line) => `      ${line}`),
    );
  }
  return [...lines, ...retried];
}

interface Run {
  args: string[];
  /** Printed as it comes, or held and printed whole when it ends. */
  live: boolean;
}

/** Runs vitest, with a JSON report beside its usual output; resolves to its code, report and output's end. */
function runVitest({ args, live }: Run, reportFile: string): Promise<{ code: number; report: JsonReport | null; tail: string }> {
  return new Promise((resolve) => {
    const child = spawn(VITEST, [...args, '--reporter', 'default', '--reporter', 'json', '--outputFile.json', reportFile], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
    });
    const held: Buffer[] = [];
    let tail = '';
    const take = (chunk: Buffer) => {
      if (live) process.stdout.write(chunk);
      else held.push(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => {
      if (!live) {
        process.stdout.write(`\n\u25B8 vitest ${args.join(' ')}\n`);
        process.stdout.write(Buffer.concat(held));
      }
      let report: JsonReport | null = null;
      try {
        report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
      } catch {
        // No report: the recap prints the end of the output instead.
      }
      resolve({ code: code ?? 1, report, tail });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [main, ...beside] = vitestRuns(process.argv.slice(2));
  if (beside.length === 0) {
    process.exit(spawnSync(VITEST, main, { cwd: ROOT, stdio: 'inherit' }).status ?? 1);
  }
  // Both runs' local servers read .dev.vars: written here, once, rather than by both at the same time.
  ensureDevVars();
  console.log(`\u25B8 vitest ${beside.map((args) => args.join(' ')).join(', ')}: beside this run, printed when it ends`);
  const reports = mkdtempSync(path.join(tmpdir(), 'keypanel-test-'));
  const runs: Run[] = [{ args: main, live: true }, ...beside.map((args) => ({ args, live: false }))];
  // The Python and Go SDKs (scripts/sdk-languages.ts) beside both, their output printed when they end.
  const languages = runLanguageSdks().then((sdks) => {
    process.stdout.write(`${sdks.output}\n`);
    return sdks;
  });
  const results = await Promise.all(runs.map((run, i) => runVitest(run, path.join(reports, `${i}.json`))));
  const sdks = await languages;
  rmSync(reports, { recursive: true, force: true });
  const lines = results.flatMap((result, i) => recap(`vitest ${runs[i].args.join(' ')}`, result.code, result.report, result.tail));
  process.stdout.write(`\n\u25B8 npm test\n${[...lines, ...sdks.recap].join('\n')}\n`);
  process.exit(results.some((result) => result.code !== 0) || sdks.code !== 0 ? 1 : 0);
}
