import type { D1Migration } from '@cloudflare/vitest-pool-workers';

// The tests' own bindings, beside the Worker's (worker-configuration.d.ts, from `wrangler types`).
declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** A database for the one test file that needs whole tables to itself (see sandbox.ts). */
      ISOLATED_DB: D1Database;
      /** A database of its own for admin-stats-scale.test.ts, which fills it past 10,000 keys. */
      STATS_DB: D1Database;
    }
  }
}
