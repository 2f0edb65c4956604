// The two cron triggers of wrangler.toml (worker/scheduled.ts runs them): the keys' jobs every minute,
// the rest every quarter of an hour. Apart from scheduled.ts so the benchmark can fire one.
export const KEY_JOBS_CRON = '* * * * *';
export const HOUSEKEEPING_CRON = '*/15 * * * *';
