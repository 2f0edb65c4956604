// What the app layer runs of the mail module: the queue's consumer, and the cron's mail: expiry
// reminders, the low-balance mark cleared once a balance recovers, and mails that never reached the
// queue put on it again. Every job is safe to run twice at once: a reminder's dedupe key, the
// low-balance mark and the consumer's claim each let one writer through.
import { isoTextSql, rawSql, runBatch, sqlRows } from '../../platform/db/client';
import type { MailQueue } from '../../platform/mail';
import { DAY_MS, MINUTE_MS } from '../../platform/vocabulary';
import type { Settings } from '../settings';
import { enqueueMails, mailsFromRows, dispatchMails } from './outbox';

export { handleMailBatch } from './delivery';

type MailJobsEnv = { DB: D1Database; MAIL_QUEUE: MailQueue };

/**
 * Reminders before a key runs out, at the days the owner chose: each key gets the reminder of the
 * fewest days its time left is within (so a key bought with 2 days left gets the 1- or 3-day one,
 * not all three), once per key, expiry and day. Keys with no expiry (perpetual), revoked ones,
 * unheld ones and ones that will auto-renew (while the shop has auto-renewal on) get none.
 */
export async function remindExpiringKeys(env: MailJobsEnv, settings: Settings, now: number): Promise<number> {
  const days = [...new Set(settings.expiryReminderDays)].sort((a, b) => a - b);
  if (!settings.emailNotificationsEnabled || days.length === 0) return 0;
  const select = `
    SELECT k.purchased_by AS user_id,
           json_object('keyId', k.id, 'key', k.key, 'product', k.product_name, 'expiresAt', ${isoTextSql('k.expires_at')},
                       'daysLeft', CAST(((k.expires_at - ?4) + ${DAY_MS} - 1) / ${DAY_MS} AS INTEGER)) AS data,
           'reminder:' || k.id || ':' || k.expires_at || ':' || r.day AS dedupe_key
      FROM license_keys k
      JOIN (SELECT key_id, min(day) AS day FROM (
              SELECT k2.id AS key_id, d.value AS day FROM license_keys k2, json_each(?3) d
               WHERE k2.expires_at > ?4 AND k2.expires_at <= ?4 + ?5 AND k2.expires_at - ?4 <= d.value * ${DAY_MS})
            GROUP BY key_id) r ON r.key_id = k.id
     WHERE k.status = 'used' AND k.purchased_by IS NOT NULL AND (k.auto_renew_days IS NULL OR ?6 = 0)`;
  // A key that will renew itself needs no reminder (a failed renewal is told on its own).
  const autoRenews = settings.renewals.autoRenewEnabled ? 1 : 0;
  const statement = mailsFromRows('expiry_reminder', select, [JSON.stringify(days), now, days[days.length - 1] * DAY_MS, autoRenews], now);
  const results = await runBatch(env.DB, [statement]);
  await dispatchMails(results, env);
  return (results[0] as unknown[]).length;
}

/** A balance back at or above the threshold may be mailed about again when it next runs low. */
export async function clearRecoveredBalances(d1: D1Database, settings: Settings): Promise<void> {
  await runBatch(d1, [
    rawSql(
      'UPDATE users SET low_balance_mailed_at = NULL WHERE low_balance_mailed_at IS NOT NULL AND balance_cents >= ?1',
      Math.round(settings.lowBalanceThreshold * 100),
    ),
  ]);
}

/** Mails still queued that never reached the queue (a failed send after the commit), put on it again. */
export async function redispatchMails(env: MailJobsEnv, now: number): Promise<number> {
  const rows = await sqlRows<{ id: string }>(
    env.DB,
    rawSql(
      `SELECT id FROM mails WHERE state = 'queued' AND dispatched_at IS NULL AND created_at < ?1 ORDER BY created_at LIMIT 500`,
      now - 5 * MINUTE_MS,
    ),
  );
  if (rows.length)
    await enqueueMails(
      env.MAIL_QUEUE,
      rows.map((r) => r.id),
    );
  return rows.length;
}
