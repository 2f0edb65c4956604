// The owner's view of the mail (each mail's state, the mail API's last status) and a customer's
// choice of the notices they get.
import { rawSql, runBatch, sqlFirst, type Database } from '../../platform/db/client';
import { notFound } from '../../platform/errors';
import { NOTICE_MAIL_KINDS, type NoticeMailKind } from '../../platform/vocabulary';
import type { MailEntry, MailsQuery, MailsResponse } from './schemas';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

type Row = {
  id: string;
  kind: MailEntry['kind'];
  to_email: string | null;
  subject: string | null;
  state: MailEntry['state'];
  attempts: number;
  provider_status: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
};

/** A page of mails, newest first, of one state or all (each read by an index on its time). */
export async function listMails(db: Database, query: MailsQuery): Promise<MailsResponse> {
  const where = query.state ? 'WHERE m.state = ?3' : '';
  const [rows, counted] = await runBatch(db, [
    rawSql(
      `SELECT m.id, m.kind, coalesce(m.to_email, u.email) AS to_email, m.subject, m.state, m.attempts, m.provider_status, m.last_error, m.created_at, m.sent_at
         FROM mails m LEFT JOIN users u ON u.id = m.user_id ${where}
        ORDER BY m.created_at DESC, m.id DESC LIMIT ?1 OFFSET ?2`,
      query.limit,
      (query.page - 1) * query.limit,
      ...(query.state ? [query.state] : []),
    ),
    rawSql(`SELECT count(*) AS n FROM mails m ${query.state ? 'WHERE m.state = ?1' : ''}`, ...(query.state ? [query.state] : [])),
  ]);
  const total = (counted as Array<{ n: number }>)[0]?.n ?? 0;
  return {
    mails: (rows as Row[]).map((r) => ({
      _id: r.id,
      kind: r.kind,
      to: r.to_email,
      subject: r.subject,
      state: r.state,
      attempts: r.attempts,
      providerStatus: r.provider_status,
      lastError: r.last_error,
      createdAt: iso(r.created_at)!,
      sentAt: iso(r.sent_at),
    })),
    total,
    totalPages: Math.max(1, Math.ceil(total / query.limit)),
  };
}

/** Each notice kind, on unless the account turned it off. */
export async function mailPreferences(db: Database, userId: string): Promise<Record<NoticeMailKind, boolean>> {
  const row = await sqlFirst<{ opt_outs: string }>(db, rawSql('SELECT mail_opt_outs AS opt_outs FROM users WHERE id = ?1', userId));
  if (!row) throw notFound('User');
  const off = new Set(JSON.parse(row.opt_outs) as string[]);
  return Object.fromEntries(NOTICE_MAIL_KINDS.map((kind) => [kind, !off.has(kind)])) as Record<NoticeMailKind, boolean>;
}

/** Turns notices on or off (kinds not named keep their choice). */
export async function setMailPreferences(db: Database, userId: string, notices: Partial<Record<NoticeMailKind, boolean>>) {
  const current = await mailPreferences(db, userId);
  const next = { ...current, ...notices };
  const off = NOTICE_MAIL_KINDS.filter((kind) => !next[kind]);
  await runBatch(db, [rawSql('UPDATE users SET mail_opt_outs = ?2 WHERE id = ?1', userId, JSON.stringify(off))]);
  return next;
}
