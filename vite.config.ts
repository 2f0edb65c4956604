import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The SPA lives in web/ and builds into dist/client, which the Worker serves as static assets.
export default defineConfig({
  root: 'web',
  plugins: [react()],
  resolve: { alias: { '@schemas': path.resolve(import.meta.dirname, 'worker/schemas') } },
  build: { outDir: '../dist/client', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://127.0.0.1:8787' } },
});
