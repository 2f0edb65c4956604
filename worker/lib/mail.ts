// The one way KeyPanel sends email. In production: an HTTP email API (MAIL_API_URL, MAIL_API_KEY,
// MAIL_FROM; the JSON body {from, to, subject, text} with a bearer key, as Resend and compatible
// services take it). Without MAIL_API_URL: a local outbox in KV that tests read, also printed to
// the console so a developer can follow the link.
import type { Env } from '../env';

export type Mail = { to: string; subject: string; text: string };
export type OutboxMail = Mail & { sentAt: number };

const OUTBOX_PREFIX = 'outbox:';
// Mail in the outbox carries reset links, so it does not outlive them by much.
const OUTBOX_TTL_S = 2 * 60 * 60;

type MailEnv = Pick<Env, 'KV' | 'MAIL_API_URL' | 'MAIL_API_KEY' | 'MAIL_FROM' | 'APP_NAME'>;

export async function sendMail(env: MailEnv, mail: Mail): Promise<void> {
  if (!env.MAIL_API_URL) return saveToOutbox(env.KV, mail);
  const from = env.MAIL_FROM || `${env.APP_NAME || 'KeyPanel'} <no-reply@localhost>`;
  const res = await fetch(env.MAIL_API_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(env.MAIL_API_KEY ? { authorization: `Bearer ${env.MAIL_API_KEY}` } : {}) },
    body: JSON.stringify({ from, to: [mail.to], subject: mail.subject, text: mail.text }),
  });
  if (!res.ok) {
    // The provider's answer can hold the address; log the status only.
    await res.body?.cancel();
    throw new Error(`The email API answered ${res.status}`);
  }
  await res.body?.cancel();
}

async function saveToOutbox(kv: KVNamespace, mail: Mail) {
  const sentAt = Date.now();
  const key = `${OUTBOX_PREFIX}${mail.to.toLowerCase()}:${sentAt.toString().padStart(15, '0')}:${crypto.randomUUID()}`;
  await kv.put(key, JSON.stringify({ ...mail, sentAt } satisfies OutboxMail), { expirationTtl: OUTBOX_TTL_S });
  console.log(`[mail outbox] To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`);
}

/** The local outbox for one address, oldest first (development and tests). */
export async function readOutbox(kv: KVNamespace, to: string): Promise<OutboxMail[]> {
  const { keys } = await kv.list({ prefix: `${OUTBOX_PREFIX}${to.toLowerCase()}:` });
  const mails = await Promise.all(keys.map((k) => kv.get<OutboxMail>(k.name, 'json')));
  return mails.filter((m): m is OutboxMail => m !== null).sort((a, b) => a.sentAt - b.sentAt);
}
