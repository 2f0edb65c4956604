// npm test: every test, as `vitest run`. `npm test -- <module>` runs one Worker module's tests alone
// (worker/modules/<module>/test, e.g. `npm test -- licensing`), `npm test -- platform` the platform's;
// anything else goes to vitest as it is (`npm test -- --project cli`, a file, `-t "a test's name"`).
import { spawnSync } from 'node:child_process';
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

/** The vitest arguments for `npm test -- ...args`. */
export function vitestArgs(args: string[]): string[] {
  const [first, ...rest] = args;
  const tests = first === undefined ? null : moduleTests(first);
  return tests ? ['run', '--project', 'worker', tests, ...rest] : ['run', ...args];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const result = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'vitest'), vitestArgs(process.argv.slice(2)), {
    cwd: ROOT,
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
