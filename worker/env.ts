// The Worker's bindings and secrets (wrangler.toml, .dev.vars locally, `wrangler secret` in production).
export interface Env {
  DB: D1Database;
  KV: KVNamespace;
  ASSETS: Fetcher;
  APP_NAME?: string;
  JWT_SECRET: string;
  /** Public origin of the app, used in links sent by email and OAuth redirects. */
  APP_URL?: string;
}
