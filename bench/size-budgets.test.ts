// Size budgets on the build output (the performance issue): the Worker as wrangler would upload it,
// and the JavaScript the sign-in page loads, read from Vite's manifest. Sizes are gzip at zlib's
// default level, as a server would send them; 1 KB is 1,024 bytes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineEnv, ROOT } from '../scripts/local';
import { buildWorker } from './runtime';

const KB = 1024;
// The sign-in page's budget grew from 120 KB with the web app's languages (issue 47): react-intl and
// its ICU message parser, about 19 KB, load with the first page, whose words are in the reader's
// language. Each language's catalog is a chunk of its own, loaded when chosen.
export const BUDGETS = { workerGzip: 1024 * KB, signInPageGzip: 140 * KB };

/** Screens that must stay out of the sign-in page and load when opened. */
const ON_DEMAND = [
  'src/features/admin/AdminPage.tsx',
  'src/features/analytics/AnalyticsPage.tsx',
  'src/features/security/SecurityPage.tsx',
  'src/features/dashboard/DashboardPage.tsx',
  'src/features/my-keys/MyKeysPage.tsx',
  'src/features/products/ProductsPage.tsx',
  'src/features/purchase/PurchasePage.tsx',
  'src/features/exchange/ExchangePage.tsx',
  'src/features/auth/RegisterPage.tsx',
];

type ManifestChunk = { file: string; isEntry?: boolean; isDynamicEntry?: boolean; imports?: string[]; dynamicImports?: string[] };

const work = mkdtempSync(path.join(tmpdir(), 'keypanel-budgets-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const gzipSize = (file: string) => gzipSync(readFileSync(file)).length;
const kb = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`;

describe('size budgets', () => {
  it(`the Worker bundle is at most ${kb(BUDGETS.workerGzip)} gzipped`, () => {
    const size = gzipSize(buildWorker(path.join(work, 'worker')));
    console.log(`Worker bundle: ${kb(size)} gzipped (budget ${kb(BUDGETS.workerGzip)})`);
    expect(size).toBeLessThanOrEqual(BUDGETS.workerGzip);
  });

  it(`the sign-in page loads at most ${kb(BUDGETS.signInPageGzip)} of JavaScript gzipped; heavy screens load on demand`, () => {
    const outDir = path.join(work, 'web');
    const vite = path.join(ROOT, 'node_modules', '.bin', 'vite');
    // vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
    const env = { ...offlineEnv, NODE_ENV: 'production' };
    const built = spawnSync(vite, ['build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir', '--manifest'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    });
    expect(built.status, built.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(outDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;

    // index.html's entry chunk and every chunk it imports statically: what /login loads before it renders.
    const [entryKey] = Object.entries(manifest).find(([, c]) => c.isEntry)!;
    const loaded = new Set<string>();
    const visit = (key: string) => {
      if (loaded.has(key)) return;
      loaded.add(key);
      for (const next of manifest[key].imports ?? []) visit(next);
    };
    visit(entryKey);
    const files = [...loaded].map((key) => manifest[key].file).filter((f) => f.endsWith('.js'));
    const size = files.reduce((total, f) => total + gzipSize(path.join(outDir, f)), 0);
    console.log(`Sign-in page JavaScript: ${kb(size)} gzipped in ${files.length} files (budget ${kb(BUDGETS.signInPageGzip)})`);
    expect(size).toBeLessThanOrEqual(BUDGETS.signInPageGzip);

    for (const screen of ON_DEMAND) {
      expect(manifest[screen]?.isDynamicEntry, `${screen} is its own chunk`).toBe(true);
      expect(loaded.has(screen), `${screen} is not loaded with the sign-in page`).toBe(false);
    }
    // zod is the largest library the forms use; the sign-in page checks its fields without it.
    const signInCode = files.map((f) => readFileSync(path.join(outDir, f), 'utf8')).join('\n');
    expect(signInCode.includes('$ZodType')).toBe(false);
  });
});
