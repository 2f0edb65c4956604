// The test setup starts the Worker through scripts/local.ts, which reaches the local D1 through
// wrangler's platform proxy: the D1 type without the rest of the Workers runtime's globals.
declare global {
  type D1Database = import('@cloudflare/workers-types').D1Database;
  type D1DatabaseSession = import('@cloudflare/workers-types').D1DatabaseSession;
  type D1PreparedStatement = import('@cloudflare/workers-types').D1PreparedStatement;
  type D1Result<T = unknown> = import('@cloudflare/workers-types').D1Result<T>;
}
export {};
