// What the cron runs of the keys module: auto-renewing keys from their customers' credits, marking keys
// past their expiry, and deleting old expired ones.
export { cleanupExpiredKeys, expireKeys } from './key-lifecycle';
export { autoRenewKeys } from './auto-renew';
