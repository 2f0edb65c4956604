// npm test: every test. `npm test -- <module>` runs one Worker module's tests alone
// (worker/modules/<module>/test, e.g. `npm test -- licensing`), `npm test -- platform` the platform's;
// anything else goes to vitest as it is (`npm test -- --project cli`, a file, `-t "a test's name"`).
//
// With no arguments, two vitest runs go side by side: the browser tests, one file at a time (they
// share one local server and its settings), and everything else. In one run, vitest keeps a project
// without file parallelism for last, alone, and one of the two cores sat idle for its minutes; side
// by side, the browser files fill that core from the start. The browser run's output is printed
// when it ends, so each run reads as a whole; the exit code fails if either fails.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

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

/** Runs vitest with its output held back, printed whole when it ends; resolves to its exit code. */
function heldRun(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(VITEST, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code) => {
      process.stdout.write(`\n\u25B8 vitest ${args.join(' ')}\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

/** Runs vitest with its output as it comes; resolves to its exit code. */
function liveRun(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(VITEST, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [main, ...beside] = vitestRuns(process.argv.slice(2));
  if (beside.length === 0) {
    process.exit(spawnSync(VITEST, main, { cwd: ROOT, stdio: 'inherit' }).status ?? 1);
  }
  console.log(`\u25B8 vitest ${beside.map((args) => args.join(' ')).join(', ')}: beside this run, printed when it ends`);
  const codes = await Promise.all([liveRun(main), ...beside.map(heldRun)]);
  process.exit(codes.some((code) => code !== 0) ? 1 : 0);
}
