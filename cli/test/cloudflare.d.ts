// The test setup starts the Worker through scripts/local.ts, which reaches the local D1 through
// wrangler's platform proxy: the D1 type without the rest of the Workers runtime's globals.
declare global {
  type D1Database = import('@cloudflare/workers-types').D1Database;
}
export {};
