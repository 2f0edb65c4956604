// Each mail kind in words: a subject, a plain-text part and an HTML part with the shop's name,
// written when the mail is sent from the facts its row keeps (`data`) and the recipient as they are
// then, in their language (words.ts). A notice (a kind the customer may turn off) ends with a link
// that turns it off in one click.
import type { Language, MailKind } from '../../platform/vocabulary';
import { MAIL_WORDS, RIGHT_TO_LEFT, type MailWords } from './words';

const DEFAULT_LANGUAGE: Language = 'en';

export type Written = { subject: string; text: string; html: string };
/** `language`: the account's choice when the mail is sent; none (never chose, or no account) reads English. */
export type Recipient = { username: string; language?: Language | null };
export type MailContext = { app: string; appUrl: string | null; unsubscribeUrl: string | null };

/** Text as HTML shows it (every mail part and the local mailbox page). */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

const str = (data: Record<string, unknown>, name: string) => {
  const value = data[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
};

/** A day as people read it in a mail: 2026-12-01 (UTC). */
const day = (iso: string, w: MailWords) => (iso ? `${iso.slice(0, 10)} (${w.utc})` : w.noExpiry);

/** USD as the recipient's language writes it ($12.50, 12,50 US$…). */
const usd = (cents: unknown, language: Language) =>
  new Intl.NumberFormat(language, { style: 'currency', currency: 'USD' }).format(Number(cents ?? 0) / 100);

/** What a mail says: its subject, its paragraphs, and at most one link to act on. */
type Body = { subject: string; paragraphs: string[]; action?: { label: string; url: string } };

/**
 * A security notice, written from the facts its change kept (`notice` and what it names). A row
 * written before notices kept facts still carries its own subject and lines.
 */
function securityNotice(data: Record<string, unknown>, w: MailWords, hello: string, app: string): Body {
  const s = (name: string) => str(data, name);
  switch (data.notice) {
    case 'key_given': {
      const f = { product: s('product'), key: s('key'), to: s('to') };
      return {
        subject: w.keyGiven.subject(f.to),
        paragraphs: [hello, data.valueKept === true ? w.keyGiven.valueKept(f) : w.keyGiven.newValue(f), w.keyGiven.ifNotYou],
      };
    }
    case 'email_changed':
      return {
        subject: w.emailChanged.subject(app),
        paragraphs: [hello, w.emailChanged.body({ actor: s('actor'), app, to: s('to') }), w.emailChanged.ifNotYou],
      };
    case 'new_owner':
      return {
        subject: w.newOwner.subject(s('name'), app),
        paragraphs: [w.newOwner.body({ actor: s('actor'), name: s('name'), email: s('email'), app }), w.newOwner.ifNotYou],
      };
    default:
      return { subject: s('subject'), paragraphs: ((data.lines as string[] | undefined) ?? []).map(String) };
  }
}

function body(kind: MailKind, data: Record<string, unknown>, to: Recipient, ctx: MailContext, w: MailWords, language: Language): Body {
  const key = str(data, 'key');
  const product = str(data, 'product');
  const app = ctx.app;
  const hello = w.hello(to.username);
  const myKeys = ctx.appUrl ? { label: w.openMyKeys, url: `${ctx.appUrl}/my-keys` } : undefined;
  switch (kind) {
    case 'verification':
      return {
        subject: w.verification.subject(app),
        paragraphs: [hello, w.verification.body],
        action: { label: w.verification.action, url: str(data, 'url') },
      };
    case 'password_reset':
      return {
        subject: w.passwordReset.subject(app),
        paragraphs: [hello, w.passwordReset.asked, w.passwordReset.notYou],
        action: { label: w.passwordReset.action, url: str(data, 'url') },
      };
    case 'import_invitation':
      return {
        subject: w.importInvitation.subject(app),
        paragraphs: [hello, w.importInvitation.moved(app), w.importInvitation.noPassword],
        action: { label: w.importInvitation.action, url: str(data, 'url') },
      };
    case 'security_notice':
      return securityNotice(data, w, hello, app);
    case 'receipt': {
      const renewal = data.action === 'renewal';
      const until = day(str(data, 'expiresAt'), w);
      const facts = { product, key, days: str(data, 'days'), cost: str(data, 'cost') };
      return {
        subject: renewal ? w.receipt.renewedSubject(product) : w.receipt.purchaseSubject(product),
        paragraphs: [
          hello,
          renewal ? w.receipt.renewed({ ...facts, until }) : w.receipt.purchased(facts),
          ...(renewal ? [] : [key, w.receipt.runsUntil(until)]),
        ],
        action: myKeys,
      };
    }
    case 'expiry_reminder':
      return {
        subject: w.expiryReminder.subject(product, Number(data.daysLeft ?? 0)),
        paragraphs: [hello, w.expiryReminder.body({ product, key, on: day(str(data, 'expiresAt'), w) })],
        action: myKeys,
      };
    case 'auto_renew_failed':
      return {
        subject: w.autoRenewFailed.subject(product),
        paragraphs: [
          hello,
          w.autoRenewFailed.body({
            product,
            key,
            cost: str(data, 'cost'),
            credits: str(data, 'credits'),
            on: day(str(data, 'expiresAt'), w),
          }),
        ],
        action: myKeys,
      };
    case 'low_balance':
      return {
        subject: w.lowBalance.subject(app),
        paragraphs: [hello, w.lowBalance.body(usd(data.balanceCents, language), usd(data.thresholdCents, language))],
        action: ctx.appUrl ? { label: w.lowBalance.action, url: `${ctx.appUrl}/add-balance` } : undefined,
      };
    case 'new_device':
      return {
        subject: w.newDevice.subject(product),
        paragraphs: [hello, w.newDevice.body({ product, key, device: str(data, 'device') || w.newDevice.noName }), w.newDevice.ifNotYou],
        action: myKeys,
      };
    case 'key_received': {
      const from = str(data, 'from') || w.keyReceived.someone;
      return {
        subject: w.keyReceived.subject(from),
        paragraphs: [hello, w.keyReceived.body({ from, product, key }), ...(data.valueKept ? [w.keyReceived.valueKept] : [])],
        action: myKeys,
      };
    }
  }
}

/** The mail's three parts. */
export function writeMail(kind: MailKind, data: Record<string, unknown>, to: Recipient, ctx: MailContext): Written {
  const language = to.language ?? DEFAULT_LANGUAGE;
  const w = MAIL_WORDS[language] ?? MAIL_WORDS[DEFAULT_LANGUAGE];
  const { subject, paragraphs, action } = body(kind, data, to, ctx, w, language);
  const footer = `${ctx.app}${ctx.unsubscribeUrl ? `\n${w.toStop}: ${ctx.unsubscribeUrl}` : ''}`;
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), '', '--', footer].join('\n\n');
  const html = [
    `<!doctype html><html lang="${language}"${RIGHT_TO_LEFT.has(language) ? ' dir="rtl"' : ''}><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">`,
    `<p style="font-weight:600">${escapeHtml(ctx.app)}</p>`,
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    action ? `<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>` : '',
    '<hr>',
    `<p style="font-size:12px;color:#555">${escapeHtml(ctx.app)}${
      ctx.unsubscribeUrl ? ` · <a href="${escapeHtml(ctx.unsubscribeUrl)}">${escapeHtml(w.stopLink)}</a>` : ''
    }</p>`,
    '</body></html>',
  ].join('');
  return { subject, text, html };
}
