// Mail in the recipient's language (issue 47): a Spanish and an Arabic customer get their mail in
// their language (the Arabic HTML right to left), and every language's catalog writes every kind.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { mails, users } from '../../../platform/db/schema';
import { LANGUAGES, MAIL_KINDS, type Language, type MailKind } from '../../../platform/vocabulary';
import { newId } from '../../../platform/ids';
import { db, signedInUser, withSettings } from '../../../test/helpers';
import { writeMail } from '../compose';
import { deliverMail } from '../delivery';
import { queueMails } from '../queue';
import { MAIL_WORDS } from '../words';

type Sent = { to: string[]; subject: string; text: string; html: string };

/** The facts every kind reads, so each writes all it can. */
const FACTS: Record<string, unknown> = {
  url: 'https://shop.example/link',
  key: 'KEY-1234',
  product: 'App',
  days: 30,
  cost: 40,
  credits: 10,
  daysLeft: 3,
  expiresAt: '2026-12-01T00:00:00.000Z',
  balanceCents: 250,
  thresholdCents: 1000,
  device: 'laptop',
  from: 'olive',
  valueKept: true,
  subject: 'Security notice',
  lines: ['A line'],
};
const CONTEXT = { app: 'KeyPanel', appUrl: 'https://shop.example', unsubscribeUrl: 'https://shop.example/unsubscribe?x=1' };

/** A receipt for a customer who reads `language`, sent through the real delivery, as the mail API got it. */
async function receiptFor(language: Language | null): Promise<Sent> {
  const customer = await signedInUser();
  await db().update(users).set({ language }).where(eq(users.id, customer.user.id));
  const name = `mail-words-${newId()}`;
  await withSettings({ emailNotificationsEnabled: true }, async () => {
    await queueMails(db(), [
      {
        kind: 'receipt',
        userId: customer.user.id,
        data: { action: 'purchase', key: 'APP-WORDS-KEY', product: 'App', days: 30, cost: 40, expiresAt: '2026-12-01T00:00:00.000Z' },
      },
    ]);
    const [row] = await db().select().from(mails).where(eq(mails.userId, customer.user.id)).all();
    const mailApi = { ...env, MAIL_API_URL: `${inject('webhookReceiver')}/hook/${name}?mode=ok` };
    expect(await deliverMail(mailApi, row.id)).toEqual({ state: 'sent' });
  });
  const requests = await (await fetch(`${inject('webhookReceiver')}/received/${name}`)).json<Array<{ body: string }>>();
  expect(requests).toHaveLength(1);
  return JSON.parse(requests[0].body) as Sent;
}

describe('mail in the recipient’s language', () => {
  it('writes a Spanish customer’s receipt in Spanish, left to right', async () => {
    const sent = await receiptFor('es');
    expect(sent.subject).toBe('Recibo: tu clave de licencia de App');
    expect(sent.text).toContain('Gracias por tu compra.');
    expect(sent.text).toContain('APP-WORDS-KEY');
    expect(sent.text).toContain('Funciona hasta el 2026-12-01 (UTC).');
    expect(sent.text).toContain('Para dejar de recibir estos correos: ');
    expect(sent.html).toContain('<html lang="es">');
    expect(sent.html).not.toContain('dir="rtl"');
    expect(sent.html).toContain('Abrir Mis claves');
  });

  it('writes an Arabic customer’s receipt in Arabic, its HTML right to left', async () => {
    const sent = await receiptFor('ar');
    expect(sent.subject).toBe('إيصال: مفتاح ترخيص App الخاص بك');
    expect(sent.text).toContain('شكرًا لشرائك.');
    expect(sent.text).toContain('APP-WORDS-KEY');
    expect(sent.html).toContain('<html lang="ar" dir="rtl">');
    expect(sent.html).toContain('إيقاف هذه الرسائل');
  });

  it('writes in English for an account that never chose a language', async () => {
    const sent = await receiptFor(null);
    expect(sent.subject).toBe('Receipt: your App license key');
    expect(sent.html).toContain('<html lang="en">');
  });
});

/** Every message path of a catalog ('receipt.renewed', 'hello'…). */
const paths = (words: object, prefix = ''): string[] =>
  Object.entries(words).flatMap(([name, value]) =>
    value && typeof value === 'object' ? paths(value as object, `${prefix}${name}.`) : [`${prefix}${name}`],
  );

describe('the mail catalogs', () => {
  it('has a catalog for every language the app speaks, each with exactly the English messages', () => {
    expect(Object.keys(MAIL_WORDS).sort()).toEqual([...LANGUAGES].sort());
    const english = paths(MAIL_WORDS.en).sort();
    expect(english.length).toBeGreaterThan(30);
    for (const language of LANGUAGES) expect(paths(MAIL_WORDS[language]).sort(), language).toEqual(english);
  });

  const others = LANGUAGES.filter((l) => l !== 'en');
  // Every kind, a purchase's and a renewal's receipt, and each security notice (written from its facts).
  const cases = MAIL_KINDS.flatMap((kind): { kind: MailKind; data: Record<string, unknown> }[] =>
    kind === 'security_notice'
      ? [
          { notice: 'key_given', to: 'bruno', valueKept: false },
          { notice: 'key_given', to: 'bruno', valueKept: true },
          { notice: 'email_changed', actor: 'olive', to: 'new@example.com' },
          { notice: 'new_owner', actor: 'olive', name: 'bruno', email: 'bruno@example.com' },
        ].map((facts) => ({ kind, data: { ...FACTS, ...facts } }))
      : ['purchase', 'renewal'].map((action) => ({ kind, data: { ...FACTS, action } })),
  );
  it.each(others)('%s writes every kind, in words of its own', (language) => {
    for (const { kind, data } of cases) {
      const own = writeMail(kind, data, { username: 'ana', language }, CONTEXT);
      const english = writeMail(kind, data, { username: 'ana' }, CONTEXT);
      for (const part of [own.subject, own.text, own.html]) expect(part.trim(), `${language} ${kind}`).not.toBe('');
      expect(own.html, `${language} ${kind}`).toContain(`lang="${language}"`);
      expect(own.subject, `${language} ${kind} subject`).not.toBe(english.subject);
      expect(own.text, `${language} ${kind} text`).not.toBe(english.text);
      expect(own.text, `${language} ${kind}`).toContain('KeyPanel');
    }
  });

  it('writes a security notice from its facts in English as it read before, and an older row from its own lines', () => {
    const given = writeMail(
      'security_notice',
      { notice: 'key_given', product: 'App', key: 'KEY-1', to: 'bruno' },
      { username: 'ana' },
      CONTEXT,
    );
    expect(given.subject).toBe('You gave a license key to bruno');
    expect(given.text).toContain('Your App license key KEY-1 now belongs to bruno, under a new value: KEY-1 no longer works');
    const older = writeMail(
      'security_notice',
      { subject: 'Old words', lines: ['Line one.'] },
      { username: 'ana', language: 'es' },
      CONTEXT,
    );
    expect(older.subject).toBe('Old words');
    expect(older.text).toContain('Line one.');
  });
});
