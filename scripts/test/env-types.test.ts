// The Worker's Env comes from `wrangler types` (worker/worker-configuration.d.ts, `npm run cf-typegen`).
// This fails when wrangler.toml or .dev.vars.example changed and the file was not generated again.
// wrangler 4.86's own `types --check` ignores --env-file (it reads .dev.vars, absent in CI), so the
// types are generated afresh in a copy of the configuration and compared. Offline: wrangler types
// reads local files only, and the banner's update check is off.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { offlineEnv, ROOT } from '../local';

const GENERATED = 'worker/worker-configuration.d.ts';

it(`${GENERATED} is what npm run cf-typegen writes today`, () => {
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[
    'cf-typegen'
  ];
  const [bin, ...args] = script.split(' ');
  expect([bin, args[0], args[1]]).toEqual(['wrangler', 'types', GENERATED]);
  const copy = mkdtempSync(path.join(tmpdir(), 'keypanel-typegen-'));
  try {
    // The same relative layout, so the generated imports and header read the same.
    copyFileSync(path.join(ROOT, 'wrangler.toml'), path.join(copy, 'wrangler.toml'));
    copyFileSync(path.join(ROOT, '.dev.vars.example'), path.join(copy, '.dev.vars.example'));
    mkdirSync(path.join(copy, 'worker'));
    writeFileSync(path.join(copy, 'worker', 'index.ts'), 'export default {};\n');
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'wrangler'), args, {
      cwd: copy,
      env: { ...offlineEnv, WRANGLER_HIDE_BANNER: 'true' },
      stdio: 'pipe',
    });
    const fresh = readFileSync(path.join(copy, GENERATED), 'utf8');
    expect(readFileSync(path.join(ROOT, GENERATED), 'utf8'), 'stale: run `npm run cf-typegen` and commit the file').toBe(fresh);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}, 60_000);
