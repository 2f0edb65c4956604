// Builds the `keypanel` CLI into one file, dist/cli/keypanel.js (run by `npm install` through
// `prepare`, and by the CLI tests). Bundled, so the installed command needs nothing but Node.
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
export const CLI_OUTFILE = path.join(ROOT, 'dist', 'cli', 'keypanel.js');

export async function buildCli(outfile = CLI_OUTFILE) {
  await build({
    entryPoints: [path.join(ROOT, 'cli', 'index.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // commander is CommonJS: inside an ES module bundle its require() calls need a real require.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __keypanelRequire } from 'node:module';\nconst require = __keypanelRequire(import.meta.url);",
    },
    minify: true,
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o755);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await buildCli();
}
