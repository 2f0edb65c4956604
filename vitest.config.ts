import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { freePort } from './scripts/free-port';
import { generate } from './scripts/generate';
import { generateLicenseSigningKey } from './scripts/secrets';

process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

export default defineConfig(async () => {
  // The common-password list the Worker and the web app import (generated/, written by `npm install`).
  await generate();
  const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'));
  // The Worker tests' Stripe stand-in (worker/test/stripe-global-setup.ts) listens here.
  process.env.STRIPE_STAND_IN_PORT ??= String(await freePort());
  return {
    test: {
      // Two files at a time in each project: vitest's default is one fewer than the cores (one, here),
      // and most files wait on I/O (a CLI child, a local server, D1), not on the CPU.
      maxWorkers: 2,
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                // A database of its own for tests that need the whole table to themselves (the
                // last owner, exact totals, the fuzz and access tests' before and after), while the other files share DB.
                d1Databases: [
                  'ISOLATED_DB',
                  'STATS_DB',
                  'FUZZ_DB',
                  'ACCESS_DB',
                  'RESELLERS_DB',
                  'IMPORT_DB',
                  'IMPORT_TARGET_DB',
                  'CONFORMANCE_DB',
                  'REPLICA_DB',
                ],
                // The SDK conformance vectors' settings: the defaults, whatever other files change.
                kvNamespaces: ['CONFORMANCE_KV'],
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
                  APP_URL: 'http://localhost:8787',
                  LICENSE_SIGNING_KEY: generateLicenseSigningKey(),
                  TOTP_ENCRYPTION_KEY: 'test-totp-encryption-key-long-enough-0123456789',
                  STRIPE_SECRET_KEY: 'sk_test_stand_in',
                  STRIPE_WEBHOOK_SECRET: 'whsec_test_stand_in',
                  STRIPE_API_BASE: `http://127.0.0.1:${process.env.STRIPE_STAND_IN_PORT}`,
                  // Running locally: the test receiver listens on http://127.0.0.1.
                  WEBHOOKS_ALLOW_LOOPBACK_HTTP: 'true',
                  // Local development: mail goes to the local outbox the tests read (lib/mail.ts).
                  LOCAL_DEVELOPMENT: 'true',
                  // `npm run fuzz` (scripts/fuzz.ts) runs the fuzz test longer, with a seed it prints.
                  FUZZ_RUNS: process.env.FUZZ_RUNS ?? '',
                  FUZZ_SEED: process.env.FUZZ_SEED ?? '',
                },
              },
            }),
          ],
          test: {
            name: 'worker',
            include: ['worker/**/*.test.ts'],
            // Mail goes by the queue, whose consumer takes a batch at most a second after it fills:
            // a test waiting for a mail polls for longer than vitest's default second.
            expect: { poll: { timeout: 10_000 } },
            // Tests of per-minute limits may first wait out a minute's last seconds (clearOfMinuteEdge).
            testTimeout: 15_000,
            setupFiles: ['worker/test/apply-migrations.ts'],
            // The Stripe stand-in (payments.test.ts) and the local receiver webhooks are delivered to (webhooks.test.ts).
            globalSetup: ['worker/test/stripe-global-setup.ts', 'worker/test/webhook-receiver.ts'],
          },
        },
        {
          // The web app's logic (hooks, forms, the session, price and CSV math) in a simulated DOM.
          plugins: [react()],
          test: {
            name: 'web',
            include: ['web/test/**/*.test.{ts,tsx}'],
            environment: 'happy-dom',
            // The API client resolves paths against the page's origin.
            environmentOptions: { happyDOM: { url: 'http://localhost:5173/' } },
            setupFiles: ['web/test/setup.ts'],
            // The DOM tests are quick alone, but run beside the Worker and browser suites on two cores.
            testTimeout: 15_000,
          },
        },
        {
          // The licensing SDK's build and its Node entry (its tests against the Worker are in worker/test).
          test: { name: 'sdk', include: ['sdk/test/**/*.test.ts'], environment: 'node', testTimeout: 60_000 },
        },
        {
          // Checks of the repository itself: links and citations in the docs, the generated Env types, the OpenAPI document's validity.
          test: { name: 'repo', include: ['scripts/test/**/*.test.ts'], environment: 'node', testTimeout: 60_000 },
        },
        {
          // Node-side checks of the build output (bundle sizes); the benchmark itself is `npm run bench`.
          test: { name: 'budgets', include: ['bench/**/*.test.ts'], environment: 'node', testTimeout: 300_000 },
        },
        {
          test: {
            name: 'e2e',
            include: ['e2e/**/*.test.ts'],
            environment: 'node',
            globalSetup: ['e2e/global-setup.ts'],
            // One retry, and a test that needed it is named at the end of `npm test` (e2e/setup.ts).
            retry: 1,
            setupFiles: ['e2e/setup.ts'],
            fileParallelism: false,
            testTimeout: 60_000,
            hookTimeout: 180_000,
          },
        },
        {
          // The real `keypanel` CLI, built fresh and run as a child process against a local Worker.
          test: {
            name: 'cli',
            include: ['cli/test/**/*.test.ts'],
            environment: 'node',
            globalSetup: ['cli/test/global-setup.ts'],
            testTimeout: 60_000,
            hookTimeout: 180_000,
          },
        },
      ],
    },
  };
});
