// Each mail kind in words: a subject, a plain-text part and an HTML part with the shop's name,
// written when the mail is sent from the facts its row keeps (`data`) and the recipient as they are
// then. A notice (a kind the customer may turn off) ends with a link that turns it off in one click.
import type { MailKind } from '../../platform/vocabulary';

export type Written = { subject: string; text: string; html: string };
export type Recipient = { username: string };
export type MailContext = { app: string; appUrl: string | null; unsubscribeUrl: string | null };

/** Text as HTML shows it (every mail part and the local mailbox page). */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

const str = (data: Record<string, unknown>, name: string) => {
  const value = data[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
};

/** A day as people read it in a mail: 2026-12-01 (UTC). */
const day = (iso: string) => (iso ? `${iso.slice(0, 10)} (UTC)` : 'no expiry');

/** What a mail says: its subject, its paragraphs, and at most one link to act on. */
type Body = { subject: string; paragraphs: string[]; action?: { label: string; url: string } };

function body(kind: MailKind, data: Record<string, unknown>, to: Recipient, ctx: MailContext): Body {
  const key = str(data, 'key');
  const product = str(data, 'product');
  const app = ctx.app;
  const myKeys = ctx.appUrl ? { label: 'Open My Keys', url: `${ctx.appUrl}/my-keys` } : undefined;
  switch (kind) {
    case 'verification':
      return {
        subject: `Verify your email address for ${app}`,
        paragraphs: [`Hello ${to.username},`, `Confirm that this address is yours. The link works once, for 24 hours.`],
        action: { label: 'Confirm my address', url: str(data, 'url') },
      };
    case 'password_reset':
      return {
        subject: `Reset your ${app} password`,
        paragraphs: [
          `Hello ${to.username},`,
          'Someone asked to reset the password of your account. The link works once, for one hour.',
          'If it was not you, ignore this mail: your password stays as it is.',
        ],
        action: { label: 'Choose a new password', url: str(data, 'url') },
      };
    case 'import_invitation':
      return {
        subject: `Your ${app} account`,
        paragraphs: [
          `Hello ${to.username},`,
          `Your licence keys have moved to ${app}, and an account was made for you with this address.`,
          'It has no password yet. To sign in, choose one: open the link, enter this address, and follow the link we send you.',
        ],
        action: { label: 'Choose a password', url: str(data, 'url') },
      };
    case 'security_notice':
      return { subject: str(data, 'subject'), paragraphs: ((data.lines as string[] | undefined) ?? []).map(String) };
    case 'receipt': {
      const renewal = data.action === 'renewal';
      return {
        subject: renewal ? `Receipt: ${product} renewed` : `Receipt: your ${product} license key`,
        paragraphs: [
          `Hello ${to.username},`,
          renewal
            ? `Your ${product} license key ${key} was renewed for ${str(data, 'days')} days, for ${str(data, 'cost')} credits. It now runs until ${day(str(data, 'expiresAt'))}.`
            : `Thank you for your purchase. Your ${product} license key, for ${str(data, 'days')} days, for ${str(data, 'cost')} credits:`,
          ...(renewal ? [] : [key, `It runs until ${day(str(data, 'expiresAt'))}.`]),
        ],
        action: myKeys,
      };
    }
    case 'expiry_reminder':
      return {
        subject: `Your ${product} license key expires in ${str(data, 'daysLeft')} day${data.daysLeft === 1 ? '' : 's'}`,
        paragraphs: [
          `Hello ${to.username},`,
          `Your ${product} license key ${key} expires on ${day(str(data, 'expiresAt'))}. Renew it in My Keys to keep it working on your devices, with the same value.`,
        ],
        action: myKeys,
      };
    case 'auto_renew_failed':
      return {
        subject: `Your ${product} license key could not be renewed`,
        paragraphs: [
          `Hello ${to.username},`,
          `Auto-renew could not renew your ${product} license key ${key}: it costs ${str(data, 'cost')} credits and your account has ${str(data, 'credits')}. It expires on ${day(str(data, 'expiresAt'))} unless you renew it.`,
        ],
        action: myKeys,
      };
    case 'low_balance':
      return {
        subject: `Your ${app} balance is low`,
        paragraphs: [
          `Hello ${to.username},`,
          `Your balance is $${(Number(data.balanceCents ?? 0) / 100).toFixed(2)}, below $${(Number(data.thresholdCents ?? 0) / 100).toFixed(2)}. Add to it before your next purchase.`,
        ],
        action: ctx.appUrl ? { label: 'Add balance', url: `${ctx.appUrl}/add-balance` } : undefined,
      };
    case 'new_device':
      return {
        subject: `A new device is using your ${product} license key`,
        paragraphs: [
          `Hello ${to.username},`,
          `Your ${product} license key ${key} was activated on a new device: ${str(data, 'device') || 'a device with no name'}.`,
          'If this was not you, remove the device in My Keys and regenerate the key.',
        ],
        action: myKeys,
      };
    case 'key_received':
      return {
        subject: `${str(data, 'from') || 'Someone'} gave you a license key`,
        paragraphs: [
          `Hello ${to.username},`,
          `${str(data, 'from') || 'Someone'} gave you their ${product} license key ${key}. It is in My Keys.`,
          ...(data.valueKept
            ? ['They chose to keep its value, so they still know it: regenerate it in My Keys for a value only you know.']
            : []),
        ],
        action: myKeys,
      };
  }
}

/** The mail's three parts. */
export function writeMail(kind: MailKind, data: Record<string, unknown>, to: Recipient, ctx: MailContext): Written {
  const { subject, paragraphs, action } = body(kind, data, to, ctx);
  const footer = `${ctx.app}${ctx.unsubscribeUrl ? `\nTo stop these mails: ${ctx.unsubscribeUrl}` : ''}`;
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), '', '--', footer].join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">',
    `<p style="font-weight:600">${escapeHtml(ctx.app)}</p>`,
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    action ? `<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>` : '',
    '<hr>',
    `<p style="font-size:12px;color:#555">${escapeHtml(ctx.app)}${
      ctx.unsubscribeUrl ? ` · <a href="${escapeHtml(ctx.unsubscribeUrl)}">Stop these mails</a>` : ''
    }</p>`,
    '</body></html>',
  ].join('');
  return { subject, text, html };
}
