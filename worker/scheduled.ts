import { and, lt, lte } from 'drizzle-orm';
import { createDb } from './platform/db/client';
import { heldSlots, idempotencyKeys, rateLimits, sessions, signInFailures, spentChallenges } from './platform/db/schema';
import type { Env } from './platform/env';
import { ACCOUNT_LOCKOUT } from './platform/throttle';
import { DAY_MS } from './platform/vocabulary';
import { autoRenewKeys, cleanupExpiredKeys, expireKeys } from './modules/keys/jobs';
import { getSettings } from './modules/settings';
import { redispatchWebhooks } from './modules/webhooks/jobs';
import { clearRecoveredBalances, redispatchMails, remindExpiringKeys } from './modules/mail/jobs';

/** The cron trigger's work. Each job is idempotent: running it twice changes nothing more. */
export async function runScheduledJobs(env: Pick<Env, 'DB' | 'KV' | 'WEBHOOK_QUEUE' | 'MAIL_QUEUE'>, now = Date.now()) {
  const db = createDb(env.DB);
  const settings = await getSettings(env.KV, now);
  // Before the expiry job: a key renewed in time never expires.
  const autoRenewed = await autoRenewKeys(db, settings, now, env);
  const expired = await expireKeys(db, settings, now, env);
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
  return { autoRenewed, expired, deleted, webhooks, reminders, mails };
}
