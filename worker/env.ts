// The Worker's bindings and secrets (wrangler.toml, .dev.vars locally, `wrangler secret` in production).
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
  LICENSE_IP_LIMITER: RateLimit;
}
