// The mail queue's consumer: each message names a mail row, which is claimed (so a message delivered
// twice sends once), written in words for its recipient as they are now, and sent through the mail
// API. A notice the shop or the customer turned off meanwhile is skipped. A mail API that is down
// (no answer, a 5xx, 408 or 429) is tried again with growing delays; past MAX_ATTEMPTS, or at once
// when it refuses the mail itself (another 4xx), the mail is failed, with the API's last status, for
// the owner to see. The dead-letter queue's consumer fails what the consumer
// itself could not handle. Nothing is lost: the row stays, and the owner can see each state.
import { rawSql, runBatch } from '../../platform/db/client';
import type { Env } from '../../platform/env';
import { MailApiError, sendMail, type MailMessage } from '../../platform/mail';
import { isNoticeKind, MINUTE_MS, type Language, type MailKind } from '../../platform/vocabulary';
import { getSettings } from '../settings';
import { writeMail } from './compose';
import { unsubscribeUrls } from './unsubscribe';

export type MailDeliveryEnv = Pick<
  Env,
  'DB' | 'KV' | 'MAIL_API_URL' | 'MAIL_API_KEY' | 'MAIL_FROM' | 'APP_NAME' | 'APP_URL' | 'LOCAL_DEVELOPMENT' | 'JWT_SECRET'
>;

/** Attempts before a mail is failed for good (with growing delays, about a day in all). */
export const MAX_ATTEMPTS = 8;
/** How long one attempt may hold a mail before another delivery of its message may take it. */
const SENDING_MS = 2 * MINUTE_MS;

/** The delay before attempt `attempts + 1`: 10 s, 1 min, 5 min, 20 min, 1 h, 3 h, 6 h. */
export const retryDelaySeconds = (attempts: number) => [10, 60, 300, 1200, 3600, 10_800, 21_600][Math.min(attempts - 1, 6)];

type Row = {
  id: string;
  kind: MailKind;
  user_id: string | null;
  to_email: string | null;
  data: string;
  attempts: number;
  email: string | null;
  username: string | null;
  language: Language | null;
  balance_cents: number | null;
  opted_out: number;
};

export type Outcome = { state: 'sent' | 'skipped' | 'failed' | 'gone' } | { state: 'retry'; delaySeconds: number };

/** One attempt at one mail. */
export async function deliverMail(env: MailDeliveryEnv, mailId: string, now = Date.now()): Promise<Outcome> {
  // Claimed first, and read in the same round trip: only the attempt that claims it sends it.
  const [claimed, rows] = await runBatch(env.DB, [
    rawSql(
      `UPDATE mails SET sending_until = ?2 + ${SENDING_MS}, attempts = attempts + 1, dispatched_at = coalesce(dispatched_at, ?2)
        WHERE id = ?1 AND state = 'queued' AND (sending_until IS NULL OR sending_until <= ?2)
        RETURNING id`,
      mailId,
      now,
    ),
    rawSql(
      `SELECT m.id, m.kind, m.user_id, m.to_email, m.data, m.attempts, u.email, u.username, u.language, u.balance_cents,
              EXISTS (SELECT 1 FROM json_each(u.mail_opt_outs) o WHERE o.value = m.kind) AS opted_out
         FROM mails m LEFT JOIN users u ON u.id = m.user_id WHERE m.id = ?1`,
      mailId,
    ),
  ]);
  if ((claimed as unknown[]).length === 0) return { state: 'gone' };
  const row = (rows as Row[])[0];
  if (!row) return { state: 'gone' };
  const settings = await getSettings(env.KV, now);
  const kind = row.kind;
  const notice = isNoticeKind(kind);
  const to = row.to_email ?? row.email;
  if (!to || (notice && (!settings.emailNotificationsEnabled || row.opted_out))) {
    await finish(env.DB, mailId, 'skipped', now);
    return { state: 'skipped' };
  }
  const app = env.APP_NAME || 'KeyPanel';
  const appUrl = env.APP_URL?.trim().replace(/\/+$/, '') || null;
  const links = isNoticeKind(kind) && appUrl && row.user_id ? await unsubscribeUrls(appUrl, env.JWT_SECRET, row.user_id, kind) : null;
  // A balance is told as it is when the mail goes.
  const data = {
    ...(JSON.parse(row.data) as Record<string, unknown>),
    ...(row.kind === 'low_balance' ? { balanceCents: row.balance_cents } : {}),
  };
  const written = writeMail(
    row.kind,
    data,
    // In the language the account reads when the mail goes (a choice made since it was written counts).
    { username: row.username ?? to, language: row.language },
    {
      app,
      appUrl,
      unsubscribeUrl: links?.page ?? null,
    },
  );
  // RFC 8058: one click in the mail client turns the kind off, with no page in between.
  const headers: Record<string, string> = links
    ? { 'List-Unsubscribe': `<${links.oneClick}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
    : {};
  try {
    await sendMail(env, { to, ...written, headers });
  } catch (err) {
    const status = err instanceof MailApiError ? err.status : null;
    const error = err instanceof Error ? err.message : String(err);
    // A refusal of the mail itself (a 4xx other than a timeout or a rate limit: an address the API
    // will not take) stays a refusal: failed at once. Anything else may pass later.
    const permanent = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
    const last = permanent || row.attempts >= MAX_ATTEMPTS;
    await runBatch(env.DB, [
      rawSql(
        `UPDATE mails SET state = ?2, provider_status = ?3, last_error = ?4, sending_until = NULL, subject = ?5 WHERE id = ?1`,
        mailId,
        last ? 'failed' : 'queued',
        status,
        error.slice(0, 200),
        written.subject,
      ),
    ]);
    return last ? { state: 'failed' } : { state: 'retry', delaySeconds: retryDelaySeconds(row.attempts) };
  }
  await finish(env.DB, mailId, 'sent', now, written.subject);
  return { state: 'sent' };
}

/** The mail's end: its words and links forgotten (they may hold a live link), its state kept. */
async function finish(d1: D1Database, mailId: string, state: 'sent' | 'skipped' | 'failed', now: number, subject: string | null = null) {
  await runBatch(d1, [
    rawSql(
      `UPDATE mails SET state = ?2, sent_at = CASE WHEN ?2 = 'sent' THEN ?3 END, data = '{}', sending_until = NULL,
              subject = coalesce(?4, subject), provider_status = CASE WHEN ?2 = 'sent' THEN NULL ELSE provider_status END
        WHERE id = ?1`,
      mailId,
      state,
      now,
      subject,
    ),
  ]);
}

/** The consumer of the mail queue and of its dead-letter queue. */
export async function handleMailBatch(batch: MessageBatch<MailMessage>, env: MailDeliveryEnv): Promise<void> {
  const dead = batch.queue.endsWith('-dlq');
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        if (dead) {
          await runBatch(env.DB, [
            rawSql(
              `UPDATE mails SET state = 'failed', last_error = coalesce(last_error, 'The mail queue gave up on it'), sending_until = NULL
                WHERE id = ?1 AND state = 'queued'`,
              message.body.mailId,
            ),
          ]);
          message.ack();
          return;
        }
        const outcome = await deliverMail(env, message.body.mailId);
        if (outcome.state === 'retry') message.retry({ delaySeconds: outcome.delaySeconds });
        else message.ack();
      } catch (err) {
        console.error('Mail message failed; the queue retries it', err);
        message.retry({ delaySeconds: 30 });
      }
    }),
  );
}
