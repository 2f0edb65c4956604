import { and, lt, lte } from 'drizzle-orm';
import { createDb } from './platform/db/client';
import { heldSlots, idempotencyKeys, rateLimits, sessions, signInFailures, spentChallenges } from './platform/db/schema';
import type { Env } from './platform/env';
import { HOUSEKEEPING_CRON, KEY_JOBS_CRON } from './platform/crons';
import { ACCOUNT_LOCKOUT } from './platform/throttle';
import { DAY_MS } from './platform/vocabulary';
import { autoRenewKeys, cleanupExpiredKeys, expireKeys } from './modules/keys/jobs';
import { getSettings } from './modules/settings';
import { redispatchWebhooks } from './modules/webhooks/jobs';
import { clearRecoveredBalances, redispatchMails, remindExpiringKeys } from './modules/mail/jobs';

type JobsEnv = Pick<Env, 'DB' | 'KV' | 'WEBHOOK_QUEUE' | 'MAIL_QUEUE'>;

/**
 * What a cron trigger runs: `KEY_JOBS_CRON` the keys' jobs, `HOUSEKEEPING_CRON` the rest (at a quarter
 * hour both fire), any other cron (a hand-made run) everything. Each job is idempotent: running it
 * twice changes nothing more.
 */
export function runCron(env: JobsEnv, cron: string, now = Date.now()) {
  if (cron === KEY_JOBS_CRON) return runKeyJobs(env, now);
  if (cron === HOUSEKEEPING_CRON) return runHousekeeping(env, now);
  return runScheduledJobs(env, now);
}

/**
 * Auto-renewal and expiry, every minute: until the job marks a lapsed key expired, every count of keys
 * by status (the Overview, the key list's totals) reads it from the short range of keys lapsed since
 * the last run, so the shorter the interval, the fewer the rows, whatever the shop's size.
 */
export async function runKeyJobs(env: JobsEnv, now = Date.now()) {
  const db = createDb(env.DB);
  const settings = await getSettings(env.KV, now);
  // Before the expiry job: a key renewed in time never expires.
  const autoRenewed = await autoRenewKeys(db, settings, now, env);
  const expired = await expireKeys(db, settings, now, env);
  return { autoRenewed, expired };
}

/** Every scheduled job: the keys' jobs, then the housekeeping. */
export async function runScheduledJobs(env: JobsEnv, now = Date.now()) {
  return { ...(await runKeyJobs(env, now)), ...(await runHousekeeping(env, now)) };
}

/** Every quarter of an hour: retention, the tables' clutter, and what never reached a queue. */
export async function runHousekeeping(env: JobsEnv, now = Date.now()) {
  const db = createDb(env.DB);
  const settings = await getSettings(env.KV, now);
  const deleted = await cleanupExpiredKeys(db, settings, now);
  // Throttling windows are at most an hour long; a day keeps a margin for investigation.
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, now - DAY_MS));
  // Failures a quiet day has forgotten (a lock lasts at most an hour).
  const forgotten = now - ACCOUNT_LOCKOUT.forgetAfterMs;
  await db.delete(signInFailures).where(and(lt(signInFailures.lastFailureAt, forgotten), lt(signInFailures.lockedUntil, now)));
  // A client retries a purchase within minutes; a day of idempotency answers is plenty.
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(now - DAY_MS)));
  // A spent sign-in challenge needs remembering only until it would have expired anyway.
  await db.delete(spentChallenges).where(lt(spentChallenges.expiresAt, now));
  // A session past its lifetime (30 days at most) can never be used again; its row is only clutter
  // (ended sessions are deleted when they end, an idle one here within 30 days).
  await db.delete(sessions).where(lte(sessions.expiresAt, new Date(now)));
  // A freed slot no longer counts anywhere; its row is only clutter.
  await db.delete(heldSlots).where(lte(heldSlots.freesAt, new Date(now)));
  // Webhook events and deliveries that never reached the queue (a crash after the commit) go again.
  const webhooks = await redispatchWebhooks(env, now);
  // Mail: reminders before keys run out, low-balance marks cleared, mails that never reached the queue.
  const reminders = await remindExpiringKeys(env, settings, now);
  await clearRecoveredBalances(env.DB, settings);
  const mails = await redispatchMails(env, now);
  return { deleted, webhooks, reminders, mails };
}
