// Nothing is committed that a package or a build already gives: generated files live in the
// git-ignored generated/ (written by `npm install`, scripts/generate.ts), and no tracked file has
// the size of one. A file that outgrows the limits is generated bulk to generate instead, or code to split.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..', '..');
const MAX_LINES = 1_500;
const MAX_BYTES = 200_000;

/** Committed on purpose, each with its reason. */
const ALLOWED = [
  'package-lock.json', // npm's record of the installed tree
  'docs/openapi.json', // the reviewed public contract; worker/test/openapi.test.ts holds it current
  'migrations/', // drizzle-kit's numbered SQL and snapshots, applied as committed
  'sdk/conformance/', // the SDKs' conformance vectors: generated from the real Worker, committed so an SDK in any language runs them without one (a test holds them current)
  'web/src/styles.css', // the web app's one stylesheet, written by hand
];
const allowed = (file: string) => ALLOWED.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const tracked = () =>
  git('ls-files', '-z')
    .split('\0')
    .filter((file) => file && existsSync(path.join(ROOT, file)));

describe('committed files', () => {
  it(`are none of them generated bulk: at most ${MAX_LINES.toLocaleString('en-US')} lines and ${MAX_BYTES / 1000} kB each`, () => {
    const bulky: string[] = [];
    for (const file of tracked()) {
      if (allowed(file)) continue;
      const content = readFileSync(path.join(ROOT, file));
      const binary = content.includes(0);
      const lines = binary ? 0 : content.toString('utf8').split('\n').length;
      if (content.length > MAX_BYTES || lines > MAX_LINES) bulky.push(`${file}: ${lines} lines, ${content.length} bytes`);
    }
    expect(bulky, 'generate these into generated/ (scripts/generate.ts) rather than commit them').toEqual([]);
  });

  it('leave generated/ to `npm install`: it is ignored and nothing in it is tracked', () => {
    const files = ['generated/common-passwords.ts', 'generated/api-paths.ts'];
    // check-ignore prints the paths git ignores (and exits 1 when it ignores none).
    const ignored = spawnSync('git', ['check-ignore', '--no-index', ...files], { cwd: ROOT, encoding: 'utf8' }).stdout;
    expect(ignored.split('\n').filter(Boolean), 'add generated/ to .gitignore').toEqual(files);
    expect(tracked().filter((file) => file.startsWith('generated/'))).toEqual([]);
  });
});
