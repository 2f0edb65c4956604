import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { generate } from './scripts/generate.ts';
import { SCALAR_BUNDLE_PATH } from './worker/platform/api-reference-bundle.ts';

/**
 * Emits Scalar's standalone browser bundle for the API reference page (/api/docs) as a plain asset:
 * served from our own origin, and outside the SPA's module graph, so no screen of the app loads it.
 */
function scalarBundle(): Plugin {
  return {
    name: 'keypanel:scalar-bundle',
    apply: 'build',
    generateBundle() {
      const file = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
      this.emitFile({ type: 'asset', fileName: SCALAR_BUNDLE_PATH.slice(1), source: readFileSync(file) });
    },
  };
}

// The common-password list the strength meter imports (generated/, written by `npm install`).
await generate();

// The SPA lives in web/ and builds into dist/client, which the Worker serves as static assets.
export default defineConfig({
  root: 'web',
  plugins: [react(), scalarBundle()],
  build: { outDir: '../dist/client', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://127.0.0.1:8787' } },
});
