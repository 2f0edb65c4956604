// The bundle a deploy uploads (`wrangler deploy --dry-run`, as the benchmark runs it too) imports
// nothing it does not contain: a dynamic import of a package that is not installed stops Miniflare
// and the benchmark, and would ship unresolved (see wrangler.toml [alias]).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '../..');
const outDir = mkdtempSync(path.join(tmpdir(), 'keypanel-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/**
 * The bare packages a bundle still imports at run time: `import("x")`, or a static import statement
 * of its own line (`import ... from "x";`, not one quoted in a comment), node: and cloudflare: built-ins aside.
 */
export function unresolvedImports(bundle: string): string[] {
  const dynamic = [...bundle.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  const statements = [...bundle.matchAll(/^import\s[^;]*?["']([^"']+)["'];?\s*$/gm)].map((m) => m[1]);
  const specifiers = [...dynamic, ...statements];
  return [...new Set(specifiers.filter((s) => !s.startsWith('.') && !/^(node|cloudflare):/.test(s)))].sort();
}

describe("the Worker's bundle", () => {
  it('finds an import left to a package, and none of the runtime built-ins', () => {
    const bundle = [
      'import x from "sury";',
      'import "./a.js";',
      '  * import { Hono } from "hono" (an example in a comment)',
      'const m = await import("effect"); await import("node:crypto");',
    ].join('\n');
    expect(unresolvedImports(bundle)).toEqual(['effect', 'sury']);
  });

  it('imports nothing it does not contain', () => {
    const assets = path.join(outDir, 'empty-assets');
    mkdirSync(assets, { recursive: true });
    const built = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outDir, '--assets', assets], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' },
    });
    expect(built.status, built.stderr).toBe(0);
    expect(unresolvedImports(readFileSync(path.join(outDir, 'index.js'), 'utf8'))).toEqual([]);
  });
});
