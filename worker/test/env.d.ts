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
      /** The fuzz test's own database, so its before-and-after snapshots see only its own requests. */
      FUZZ_DB: D1Database;
      /** The generated access test's own database (access.test.ts), for the same reason. */
      ACCESS_DB: D1Database;
      /** resellers.test.ts's own database, where a default tier would change every other file's reseller prices. */
      RESELLERS_DB: D1Database;
      /** The import tests' own database (portability/test/import.test.ts), and the empty shop a round trip imports into. */
      IMPORT_DB: D1Database;
      IMPORT_TARGET_DB: D1Database;
      /** The SDK conformance vectors' own database and settings (licensing/test/conformance.test.ts), at a faked time. */
      CONFORMANCE_DB: D1Database;
      CONFORMANCE_KV: KVNamespace;
      /** A stand-in for a D1 replica behind the primary (licensing/test/replica.test.ts). */
      REPLICA_DB: D1Database;
      /** Runs per operation and the seed for worker/test/fuzz.test.ts (empty: the CI defaults). */
      FUZZ_RUNS: string;
      FUZZ_SEED: string;
    }
  }
}
