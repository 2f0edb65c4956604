// The Worker's bindings and secrets (wrangler.toml, .dev.vars locally, `wrangler secret` in production).
import type { WebhookMessage } from './domain/webhook-outbox';

export interface Env {
  DB: D1Database;
  KV: KVNamespace;
  ASSETS: Fetcher;
  APP_NAME?: string;
  JWT_SECRET: string;
  /** Public origin of the app, used in links sent by email and OAuth redirects. */
  APP_URL?: string;
  /** Ed25519 private key as a JWK (JSON), signing licensing answers and offline tokens. */
  LICENSE_SIGNING_KEY: string;
  LICENSE_KEY_LIMITER: RateLimit;
  /** Calls per signed-in session or API token (middleware/auth.ts). */
  CALL_LIMITER: RateLimit;
  /** AES-GCM key material (32+ characters) that encrypts two-factor secrets at rest. */
  TOTP_ENCRYPTION_KEY: string;
  /** Google sign-in; without both, Google answers 501 NOT_CONFIGURED. */
  GOOGLE_CLIENT_ID?: string;
  GOOGLE_CLIENT_SECRET?: string;
  /** An HTTP email API (POST JSON {from, to, subject, text} with a bearer key); unset: the local outbox. */
  MAIL_API_URL?: string;
  MAIL_API_KEY?: string;
  MAIL_FROM?: string;
  /** Comma-separated addresses exempt from the per-IP limit on sign-in calls (e.g. a test runner). */
  THROTTLE_EXEMPT_IPS?: string;
  /** Stripe's secret API key; without it card top-ups are off. */
  STRIPE_SECRET_KEY?: string;
  /** The signing secret of the Stripe webhook endpoint (whsec_...). */
  STRIPE_WEBHOOK_SECRET?: string;
  /** Base URL of the Stripe API (tests and local stand-ins); Stripe's own by default. */
  STRIPE_API_BASE?: string;
  /** Outbound webhooks: the queue whose consumer (this Worker) delivers them. */
  WEBHOOK_QUEUE: Queue<WebhookMessage>;
  /** "true" while running locally (npm start, tests): webhook URLs may then be http on loopback. */
  WEBHOOKS_ALLOW_LOOPBACK_HTTP?: string;
}
