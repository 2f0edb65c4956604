import type { D1Migration } from '@cloudflare/vitest-pool-workers';

declare global {
  namespace Cloudflare {
    interface Env {
      DB: D1Database;
      KV: KVNamespace;
      ASSETS: Fetcher;
      JWT_SECRET: string;
      APP_URL?: string;
      LICENSE_SIGNING_KEY: string;
      LICENSE_KEY_LIMITER: RateLimit;
      CALL_LIMITER: RateLimit;
      TOTP_ENCRYPTION_KEY: string;
      GOOGLE_CLIENT_ID?: string;
      GOOGLE_CLIENT_SECRET?: string;
      MAIL_API_URL?: string;
      MAIL_API_KEY?: string;
      MAIL_FROM?: string;
      THROTTLE_EXEMPT_IPS?: string;
      STRIPE_SECRET_KEY?: string;
      STRIPE_WEBHOOK_SECRET?: string;
      STRIPE_API_BASE?: string;
      WEBHOOK_QUEUE: Queue<import('../domain/webhook-outbox').WebhookMessage>;
      WEBHOOKS_ALLOW_LOOPBACK_HTTP?: string;
      TEST_MIGRATIONS: D1Migration[];
      /** A database for the one test file that needs whole tables to itself (see sandbox.ts). */
      ISOLATED_DB: D1Database;
      /** A database of its own for admin-stats-scale.test.ts, which fills it past 10,000 keys. */
      STATS_DB: D1Database;
      /** The fuzz test's own database, so its before-and-after snapshots see only its own requests. */
      FUZZ_DB: D1Database;
      /** Runs per operation and the seed for worker/test/fuzz.test.ts (empty: the CI defaults). */
      FUZZ_RUNS: string;
      FUZZ_SEED: string;
    }
    interface GlobalProps {
      mainModule: typeof import('../index');
    }
  }
}
