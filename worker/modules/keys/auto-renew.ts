// The cron's auto-renewal (issue 43): a key with auto-renewal on is renewed from its customer's
// credits a few days (settings.renewals.autoRenewDaysBefore) before it expires, for the days its
// customer chose, at the product's list price. Exactly once per period, however many cron runs
// overlap: the renewal's batch writes only from the expiry this run read (a conditional INSERT keyed
// on it) and key_renewals holds one automatic renewal per key and expiry renewed from (a unique
// index). When the balance does not cover it, the key runs out as it would have, and one `failed`
// row per period records it: My Keys shows it (auto_renew_failed_at) and license.auto_renew_failed
// goes to webhooks. Mail: a later issue sends the customer a mail from these rows (key_renewals with
// outcome 'failed'), writing its outbox row in failureStatements' batch below.
import { rawSql, runBatch, sqlRows, type DB } from '../../platform/db/client';
import type { Env } from '../../platform/env';
import { AppError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { DAY_MS } from '../../platform/vocabulary';
import { isOfferedDuration, quote } from '../catalog';
import type { Settings } from '../settings';
import { dispatchCommitted, renewalEvent } from '../webhooks';
import { autoRenewFailedMail, dispatchMails } from '../mail';
import { renewKey } from './renewal';

/** The most keys one cron run renews; the next run (a minute on) takes the rest. */
export const AUTO_RENEW_BATCH = 200;

type Candidate = {
  id: string;
  expires_at: number;
  auto_renew_days: number;
  purchased_by: string | null;
  product_active: number | null;
  base_credit_cost: number | null;
  credits_per_day: number | null;
  min_days: number | null;
  max_days: number | null;
  credits: number | null;
};

// ?1 now, ?2 the end of the window. A key is tried on every run until it expires,
// so a top-up after a failure still renews it; its failure is recorded (and told) once a period.
const CANDIDATES = `
  SELECT k.id, k.expires_at, k.auto_renew_days, k.purchased_by, p.is_active AS product_active, p.base_credit_cost, p.credits_per_day,
         p.min_days, p.max_days, (SELECT credits FROM users WHERE id = k.purchased_by) AS credits
    FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
   WHERE k.auto_renew_days IS NOT NULL AND k.expires_at > ?1 AND k.expires_at <= ?2
     AND k.status = 'used' AND k.expiry_model != 'perpetual' AND k.is_trial = 0 AND k.purchased_by IS NOT NULL
   ORDER BY k.expires_at LIMIT ${AUTO_RENEW_BATCH}`;

export type AutoRenewOutcome = { renewed: number; failed: number };

export async function autoRenewKeys(
  db: DB,
  settings: Pick<Settings, 'renewals' | 'emailNotificationsEnabled'>,
  now: number,
  webhooks?: Pick<Env, 'WEBHOOK_QUEUE' | 'MAIL_QUEUE'>,
): Promise<AutoRenewOutcome> {
  const mail = settings.emailNotificationsEnabled;
  const outcome: AutoRenewOutcome = { renewed: 0, failed: 0 };
  if (!settings.renewals.autoRenewEnabled) return outcome;
  const until = now + settings.renewals.autoRenewDaysBefore * DAY_MS;
  const keys = await sqlRows<Candidate>(db, rawSql(CANDIDATES, now, until));
  for (const key of keys) {
    const customer = key.purchased_by!;
    const days = key.auto_renew_days;
    const product =
      key.product_active === 1
        ? { baseCreditCost: key.base_credit_cost!, creditsPerDay: key.credits_per_day!, minDays: key.min_days!, maxDays: key.max_days! }
        : null;
    // A product withdrawn, or no longer sold for these days, cannot be renewed: as a shortfall, the key runs out.
    const q = product && isOfferedDuration(product, days) ? quote(product, days) : null;
    if (q && (key.credits ?? 0) >= q.total) {
      try {
        await renewKey(db, {
          keyId: key.id,
          days,
          source: 'auto',
          actorId: customer,
          payerId: customer,
          price: q.total,
          quote: q,
          period: { expiresAt: key.expires_at, autoRenewDays: days },
          webhooks,
          mail,
          now,
        });
        outcome.renewed++;
        continue;
      } catch (err) {
        // Another run renewed it (or the customer changed it) since this one read it: nothing to do.
        if (err instanceof AppError && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND' || err.code === 'KEY_NOT_RENEWABLE')) continue;
        // Credits spent meanwhile, or a refund owed: reported below.
        if (!(err instanceof AppError)) throw err;
      }
    }
    if (await reportFailure(db, key, q?.total ?? 0, now, mail, webhooks)) outcome.failed++;
  }
  return outcome;
}

/**
 * Records that the key could not be renewed for the period ending at its expiry: one `failed` row
 * per key and period (the unique index; a second run's insert does nothing), the key's notice for
 * My Keys, and license.auto_renew_failed. True when this run recorded it.
 */
async function reportFailure(
  db: DB,
  key: Candidate,
  price: number,
  now: number,
  mail: boolean,
  webhooks?: Pick<Env, 'WEBHOOK_QUEUE' | 'MAIL_QUEUE'>,
): Promise<boolean> {
  const id = newId(now);
  const results = await runBatch(db, [
    rawSql(
      `INSERT INTO key_renewals (id, key_id, source, outcome, actor_id, payer_id, days, credits, from_expires_at, to_expires_at, at)
       SELECT ?1, k.id, 'auto', 'failed', NULL, k.purchased_by, ?3, ?4, k.expires_at, NULL, ?5
         FROM license_keys k WHERE k.id = ?2 AND k.expires_at = ?6 AND k.auto_renew_days IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING id`,
      id,
      key.id,
      key.auto_renew_days,
      price,
      now,
      key.expires_at,
    ),
    rawSql(
      `UPDATE license_keys SET auto_renew_failed_at = ?3 WHERE id = ?2 AND EXISTS (SELECT 1 FROM key_renewals WHERE id = ?1)`,
      id,
      key.id,
      now,
    ),
    renewalEvent(id, now, 'license.auto_renew_failed'),
    // The customer is told once per period: the mail is written only with the failed row.
    ...(mail ? [autoRenewFailedMail(id, now)] : []),
  ]);
  await dispatchCommitted(results, webhooks ?? db);
  await dispatchMails(results, webhooks ?? db);
  return (results[0] as unknown[]).length === 1;
}
