// The mail outbox: a mail is a row written in the batch of what caused it (or right after it, for an
// account's own links), so it is decided with the change and never lost with a failing mail API.
// After the commit the rows the batch wrote (RETURNING) go on the mail queue; the cron re-enqueues
// any that never got there. A notice the recipient opted out of is not written at all, and one with a
// `dedupeKey` is written once per event, whoever writes it and however often.
import { columnValuesIn, isoTextSql, SqlStatement } from '../../platform/db/client';
import { afterCommitOf } from '../../platform/db/session';
import type { MailQueue } from '../../platform/mail';
import { isNoticeKind, type MailKind } from '../../platform/vocabulary';

const MAIL_ID_COLUMN = 'mail_id';
const NEW_MAIL_ID = `'mail_' || lower(hex(randomblob(12)))`;

/** A statement that writes mails (see `mailStatement`). */
export class MailStatement extends SqlStatement {}

export type QueuedMail = {
  kind: MailKind;
  /** The account it is for (its address is read when it is sent), or null with `toEmail`. */
  userId: string | null;
  toEmail?: string | null;
  /** What it says: the kind's facts, written into words when it is sent (compose.ts). */
  data: Record<string, unknown>;
  /** One mail per event: a second mail with the same key is not written. */
  dedupeKey?: string | null;
};

/** Not for an account that opted out of this notice kind (?1 is the account, ?2 the kind). */
const WANTED = `NOT EXISTS (SELECT 1 FROM users ou, json_each(ou.mail_opt_outs) o WHERE ou.id = ?1 AND o.value = ?2)`;

/**
 * One mail, written only when `onlyIf` (SQL, its parameters from ?7 on) holds: for a mail about a
 * change, the change's own condition, so a refused change mails nothing.
 */
export function mailStatement(mail: QueuedMail, now: number, onlyIf?: { sql: string; params: unknown[] }): MailStatement {
  const conditions = [isNoticeKind(mail.kind) && mail.userId ? WANTED : '1', onlyIf ? `(${onlyIf.sql})` : '1'];
  return new MailStatement(
    `INSERT INTO mails (id, user_id, kind, to_email, data, dedupe_key, state, created_at)
       SELECT ${NEW_MAIL_ID}, ?1, ?2, ?3, ?4, ?5, 'queued', ?6 WHERE ${conditions.join(' AND ')}
     ON CONFLICT (dedupe_key) DO NOTHING
     RETURNING id AS ${MAIL_ID_COLUMN}`,
    [mail.userId, mail.kind, mail.toEmail ?? null, JSON.stringify(mail.data), mail.dedupeKey ?? null, now, ...(onlyIf?.params ?? [])],
  );
}

/**
 * Mails of one kind written from rows of SQL (the cron's reminders): `select` gives the columns
 * user_id, data (JSON text) and dedupe_key for each mail; ?1 is the kind, ?2 now, its own parameters
 * from ?3 on. Opted-out accounts get none; each dedupe key is written once.
 */
export function mailsFromRows(kind: MailKind, select: string, params: unknown[], now: number): MailStatement {
  const wanted = isNoticeKind(kind)
    ? `AND NOT EXISTS (SELECT 1 FROM users ou, json_each(ou.mail_opt_outs) o WHERE ou.id = m.user_id AND o.value = ?1)`
    : '';
  return new MailStatement(
    `INSERT INTO mails (id, user_id, kind, to_email, data, dedupe_key, state, created_at)
       SELECT ${NEW_MAIL_ID}, m.user_id, ?1, NULL, m.data, m.dedupe_key, 'queued', ?2 FROM (${select}) m WHERE true ${wanted}
     ON CONFLICT (dedupe_key) DO NOTHING
     RETURNING id AS ${MAIL_ID_COLUMN}`,
    [kind, now, ...params],
  );
}

/** The ids of the mails a committed batch wrote. */
export const mailIdsIn = (results: readonly unknown[]) => columnValuesIn(results, MAIL_ID_COLUMN);

/** Puts mails on the queue (the consumer notes that they got there; the cron re-enqueues the others). */
export async function enqueueMails(queue: MailQueue, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    await queue.sendBatch(ids.slice(i, i + 100).map((mailId) => ({ body: { mailId } })));
  }
}

/**
 * After a batch with mail statements committed: sends the mails it wrote to the queue. `via` is the
 * database the batch ran on (a request's: the send runs after the answer) or, outside a request,
 * the queue itself with the database. A failed send loses nothing: the cron re-enqueues.
 */
export async function dispatchMails(
  results: readonly unknown[],
  via: { $client: unknown } | D1Database | { MAIL_QUEUE: MailQueue },
): Promise<void> {
  const ids = mailIdsIn(results);
  if (ids.length === 0) return;
  const send = (queue: MailQueue) => enqueueMails(queue, ids).catch((err) => console.error('Mail not enqueued; the cron will retry', err));
  if ('MAIL_QUEUE' in via) return send(via.MAIL_QUEUE);
  const after = afterCommitOf('$client' in via ? via.$client : via);
  if (after?.mailQueue) await after.later(send(after.mailQueue));
}

/**
 * A receipt for a key just bought or renewed (written only if key `keyId` is there, so a refused
 * purchase mails nothing; once per key and purchase or renewal).
 */
export function receiptMail(
  userId: string,
  receipt: {
    keyId: string;
    key: string;
    product: string;
    days: number;
    cost: number;
    expiresAt: string | null;
    action: 'purchase' | 'renewal';
  },
  now: number,
  dedupe = `receipt:${receipt.action}:${receipt.keyId}:${now}`,
): MailStatement {
  return mailStatement({ kind: 'receipt', userId, data: receipt, dedupeKey: dedupe }, now, {
    sql: 'EXISTS (SELECT 1 FROM license_keys WHERE id = ?7)',
    params: [receipt.keyId],
  });
}

/** A new device on a key: to its holder, only when this batch made activation `activationId`. */
export function newDeviceMail(activationId: string, now: number): MailStatement {
  return mailsFromRows(
    'new_device',
    `SELECT k.purchased_by AS user_id,
            json_object('keyId', k.id, 'key', k.key, 'product', k.product_name,
                        'device', coalesce(json_extract(a.device_info, '$.device'), json_extract(a.device_info, '$.model'), a.device_fingerprint)) AS data,
            'device:' || a.id AS dedupe_key
       FROM activations a JOIN license_keys k ON k.id = a.key_id
      WHERE a.id = ?3 AND k.purchased_by IS NOT NULL`,
    [activationId],
    now,
  );
}

/** A renewal's receipt, to the key's holder, from its key_renewals row (only if this batch wrote it). */
export function renewalReceiptMail(renewalId: string, now: number): MailStatement {
  return mailsFromRows(
    'receipt',
    `SELECT k.purchased_by AS user_id,
            json_object('action', 'renewal', 'keyId', k.id, 'key', k.key, 'product', k.product_name, 'days', r.days, 'cost', r.credits,
                        'expiresAt', ${isoTextSql('r.to_expires_at')}) AS data,
            'receipt:renewal:' || r.id AS dedupe_key
       FROM key_renewals r JOIN license_keys k ON k.id = r.key_id
      WHERE r.id = ?3 AND r.outcome = 'renewed' AND k.purchased_by IS NOT NULL`,
    [renewalId],
    now,
  );
}

/** An auto-renewal the customer's credits did not cover, told once per period (its failed key_renewals row). */
export function autoRenewFailedMail(renewalId: string, now: number): MailStatement {
  return mailsFromRows(
    'auto_renew_failed',
    `SELECT k.purchased_by AS user_id,
            json_object('keyId', k.id, 'key', k.key, 'product', k.product_name, 'cost', r.credits, 'expiresAt', ${isoTextSql('k.expires_at')},
                        'credits', (SELECT credits FROM users WHERE id = k.purchased_by)) AS data,
            'auto_renew_failed:' || r.id AS dedupe_key
       FROM key_renewals r JOIN license_keys k ON k.id = r.key_id
      WHERE r.id = ?3 AND r.outcome = 'failed' AND k.purchased_by IS NOT NULL`,
    [renewalId],
    now,
  );
}
