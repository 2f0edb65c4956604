// What the cron runs of the keys module: marking keys past their expiry, and deleting old expired ones.
export { cleanupExpiredKeys, expireKeys } from './key-lifecycle';
