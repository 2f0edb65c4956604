// The one way KeyPanel sends email, used only by the mail queue's consumer (modules/mail): no mail is
// sent inside the request that caused it. In production: an HTTP email API (MAIL_API_URL,
// MAIL_API_KEY, MAIL_FROM; the JSON body {from, to, subject, text, html, headers} with a bearer key,
// as Resend and compatible services take it). Without MAIL_API_URL: a local outbox in KV, for local
// development only (LOCAL_DEVELOPMENT=true, which `npm start` and the tests set), that the local
// mailbox page lists. A deployed Worker without a mail API sends nothing: every link that would go by
// mail is refused (404 NOT_CONFIGURED), so a live reset or verification token never sits anywhere but
// the recipient's inbox. No mail's text or link is ever logged.
import type { Env } from './env';
import { AppError } from './errors';

export type Mail = { to: string; subject: string; text: string; html: string; headers: Record<string, string> };
export type OutboxMail = Mail & { sentAt: number };

export type { MailMessage, MailQueue } from './mail-message';

const OUTBOX_PREFIX = 'outbox:';
// Mail in the outbox carries reset links, so it does not outlive them by much.
const OUTBOX_TTL_S = 2 * 60 * 60;

export type MailEnv = Pick<Env, 'KV' | 'MAIL_API_URL' | 'MAIL_API_KEY' | 'MAIL_FROM' | 'APP_NAME' | 'LOCAL_DEVELOPMENT'>;

/** Running locally (`npm start`, the tests): an explicit variable, so a deployment is never taken for it. */
export const isLocalDevelopment = (env: Pick<Env, 'LOCAL_DEVELOPMENT'>) => env.LOCAL_DEVELOPMENT === 'true';

/** How mail leaves this Worker: a mail API, the local outbox (local development only), or not at all. */
export function mailTransport(env: Pick<Env, 'MAIL_API_URL' | 'LOCAL_DEVELOPMENT'>): 'api' | 'local-outbox' | 'none' {
  if (env.MAIL_API_URL?.trim()) return 'api';
  return isLocalDevelopment(env) ? 'local-outbox' : 'none';
}

export const NO_MAIL_MESSAGE =
  'This server has no mail service configured (MAIL_API_URL), so it cannot send this link. Please tell the administrator.';

/** Throws 404 NOT_CONFIGURED when mail cannot be sent: before any link (and its token) is made. */
export function assertMailAvailable(env: Pick<Env, 'MAIL_API_URL' | 'LOCAL_DEVELOPMENT'>) {
  if (mailTransport(env) === 'none') throw new AppError('NOT_CONFIGURED', NO_MAIL_MESSAGE);
}

/** The mail API refused the mail, or did not answer (`status` null): the consumer retries it. */
export class MailApiError extends Error {
  constructor(readonly status: number | null) {
    super(status === null ? 'The email API did not answer' : `The email API answered ${status}`);
  }
}

/** Sends one mail; throws MailApiError when the mail API refuses it (its status kept, never its answer). */
export async function sendMail(env: MailEnv, mail: Mail): Promise<void> {
  const transport = mailTransport(env);
  if (transport === 'none') throw new AppError('NOT_CONFIGURED', NO_MAIL_MESSAGE);
  if (transport === 'local-outbox') return saveToOutbox(env.KV, mail);
  const from = env.MAIL_FROM || `${env.APP_NAME || 'KeyPanel'} <no-reply@localhost>`;
  let res: Response;
  try {
    res = await fetch(env.MAIL_API_URL!.trim(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(env.MAIL_API_KEY ? { authorization: `Bearer ${env.MAIL_API_KEY}` } : {}) },
      body: JSON.stringify({ from, to: [mail.to], subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers }),
    });
  } catch {
    throw new MailApiError(null);
  }
  // The provider's answer can hold the address; only its status is kept.
  await res.body?.cancel();
  if (!res.ok) throw new MailApiError(res.status);
}

async function saveToOutbox(kv: KVNamespace, mail: Mail) {
  const sentAt = Date.now();
  const key = `${OUTBOX_PREFIX}${mail.to.toLowerCase()}:${sentAt.toString().padStart(15, '0')}:${crypto.randomUUID()}`;
  await kv.put(key, JSON.stringify({ ...mail, sentAt } satisfies OutboxMail), { expirationTtl: OUTBOX_TTL_S });
  // The subject only: the text carries a live link, and logs are kept and read by others.
  console.log(`[mail outbox] "${mail.subject}" kept in the local outbox (KV ${key.slice(0, OUTBOX_PREFIX.length)}…)`);
}

/** The local outbox for one address, oldest first (development and tests). */
export async function readOutbox(kv: KVNamespace, to: string): Promise<OutboxMail[]> {
  return outboxMails(kv, `${OUTBOX_PREFIX}${to.toLowerCase()}:`);
}

/** Every mail of the local outbox, newest first (the local mailbox page, `keypanel mail list`). */
export async function readWholeOutbox(kv: KVNamespace): Promise<OutboxMail[]> {
  return (await outboxMails(kv, OUTBOX_PREFIX)).reverse();
}

async function outboxMails(kv: KVNamespace, prefix: string): Promise<OutboxMail[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix, cursor });
    names.push(...page.keys.map((k) => k.name));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  const mails = await Promise.all(names.map((name) => kv.get<OutboxMail>(name, 'json')));
  return mails.filter((m): m is OutboxMail => m !== null).sort((a, b) => a.sentAt - b.sentAt);
}
