// The mail customers want (issue 44): every mail through the queue, once, with both parts and a
// one-click unsubscribe; a mail API that is down delays mail and loses none; a customer's choice
// and a one-click unsubscribe keep a notice from being written; overlapping cron runs remind once;
// a low balance is mailed once per dip; the owner sees each mail's state; the local mailbox.
import { env, createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { app } from '../../../app';
import { licenseKeys, mails, users } from '../../../platform/db/schema';
import { readOutbox } from '../../../platform/mail';
import { DAY_MS } from '../../../platform/vocabulary';
import { newId } from '../../../platform/ids';
import { api, db, signedInUser, withSettings } from '../../../test/helpers';
import { makeProduct } from '../../../test/shop-helpers';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { deliverMail, MAX_ATTEMPTS } from '../delivery';
import { remindExpiringKeys } from '../jobs';
import { queueMails } from '../queue';
import { unsubscribeToken } from '../unsubscribe';

const NOTICES_ON = { emailNotificationsEnabled: true };
const mailRows = (userId: string) => db().select().from(mails).where(eq(mails.userId, userId)).all();

/** The mail API stand-in: the test receiver, refusing (`fail`) or taking (`ok`) each mail. */
const mailApi = (name: string, mode: 'ok' | 'fail') => ({ ...env, MAIL_API_URL: `${inject('webhookReceiver')}/hook/${name}?mode=${mode}` });
const received = async (name: string) =>
  (await fetch(`${inject('webhookReceiver')}/received/${name}`)).json<Array<{ body: string; headers: Record<string, string> }>>();

/** A queue that keeps what it is given (the cron's jobs take one). */
const keptQueue = () => {
  const sent: string[] = [];
  return {
    sent,
    sendBatch: (messages: Array<{ body: { mailId: string } }>) => Promise.resolve(void sent.push(...messages.map((m) => m.body.mailId))),
  };
};

describe('the mail queue', () => {
  it('delays mail while the mail API is down and loses none: each mail arrives once, with both parts and one-click unsubscribe headers', async () => {
    const customer = await signedInUser();
    const name = `mail-${newId()}`;
    await withSettings(NOTICES_ON, async () => {
      // Written without a request: nothing put it on the queue, so only this test delivers it.
      await queueMails(db(), [
        {
          kind: 'receipt',
          userId: customer.user.id,
          data: { action: 'purchase', key: 'APP-TEST-KEY', product: 'App', days: 30, cost: 40 },
        },
      ]);
      const [row] = await mailRows(customer.user.id);
      expect(row.state).toBe('queued');

      // The API is down: of two deliveries of the same message at once, one tries and is told to retry.
      const down = await Promise.all([deliverMail(mailApi(name, 'fail'), row.id), deliverMail(mailApi(name, 'fail'), row.id)]);
      expect(down.map((o) => o.state).sort()).toEqual(['gone', 'retry']);
      expect((await mailRows(customer.user.id))[0]).toMatchObject({ state: 'queued', attempts: 1, providerStatus: 500 });

      // It recovers: the retry sends it, once; a late copy of the message sends nothing more.
      const later = Date.now() + 60_000;
      expect(await deliverMail(mailApi(name, 'ok'), row.id, later)).toEqual({ state: 'sent' });
      expect(await deliverMail(mailApi(name, 'ok'), row.id, later + 1)).toEqual({ state: 'gone' });
    });
    const requests = await received(name);
    expect(requests).toHaveLength(2);
    const sent = JSON.parse(requests[1].body) as {
      to: string[];
      subject: string;
      text: string;
      html: string;
      headers: Record<string, string>;
    };
    expect(sent.to).toEqual([customer.email]);
    expect(sent.subject).toBe('Receipt: your App license key');
    expect(sent.text).toContain('APP-TEST-KEY');
    expect(sent.html).toContain('<p>APP-TEST-KEY</p>');
    expect(sent.html).toContain('KeyPanel');
    expect(sent.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const oneClick = sent.headers['List-Unsubscribe'].slice(1, -1);
    expect(oneClick).toContain('/api/mail/unsubscribe?');
    const [done] = await mailRows(customer.user.id);
    // Sent: its words, which may hold a live link, are gone; its state and subject stay.
    expect(done).toMatchObject({ state: 'sent', attempts: 2, providerStatus: null, data: {}, subject: 'Receipt: your App license key' });

    // The one-click address turns the kind off, with no sign-in.
    const url = new URL(oneClick);
    const unsubscribed = await api('POST', `${url.pathname}${url.search}`, {});
    expect(unsubscribed.status, JSON.stringify(unsubscribed.body)).toBe(200);
    const prefs = await api('GET', '/api/users/mail-preferences', { token: customer.token });
    expect(prefs.body.notices).toMatchObject({ receipt: false, expiry_reminder: true });
  });

  it('fails a mail for good past its attempts, with the API’s status, and the owner sees it', async () => {
    const customer = await signedInUser();
    const owner = await signedInUser('owner');
    const name = `mail-${newId()}`;
    await queueMails(db(), [
      { kind: 'password_reset', userId: customer.user.id, data: { url: 'http://localhost/reset-password#token=x' } },
    ]);
    const [row] = await mailRows(customer.user.id);
    let at = Date.now();
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      expect((await deliverMail(mailApi(name, 'fail'), row.id, (at += 300_000))).state).toBe('retry');
    }
    expect(await deliverMail(mailApi(name, 'fail'), row.id, (at += 300_000))).toEqual({ state: 'failed' });
    const listed = await api('GET', '/api/admin/mails?state=failed&limit=100', { token: owner.token });
    expect(listed.status).toBe(200);
    expect((listed.body as { mails: Array<Record<string, unknown>> }).mails).toContainEqual(
      expect.objectContaining({
        _id: row.id,
        kind: 'password_reset',
        to: customer.email,
        state: 'failed',
        providerStatus: 500,
        attempts: MAX_ATTEMPTS,
      }),
    );
    expect((await api('GET', '/api/admin/mails', { token: customer.token })).status).toBe(403);
  });

  it('writes no notice a customer turned off, and refuses an unsubscribe link that is not theirs', async () => {
    const customer = await signedInUser();
    const off = await api('PUT', '/api/users/mail-preferences', { token: customer.token, body: { notices: { new_device: false } } });
    expect(off.status).toBe(200);
    expect(off.body.notices).toMatchObject({ new_device: false, receipt: true });
    await queueMails(db(), [
      { kind: 'new_device', userId: customer.user.id, data: { key: 'K', product: 'P', device: 'Laptop' } },
      { kind: 'receipt', userId: customer.user.id, data: { key: 'K', product: 'P' } },
    ]);
    expect((await mailRows(customer.user.id)).map((m) => m.kind)).toEqual(['receipt']);
    // Account mail (a reset link) is not a notice: it always goes.
    await queueMails(db(), [{ kind: 'password_reset', userId: customer.user.id, data: { url: 'x' } }]);
    expect((await mailRows(customer.user.id)).map((m) => m.kind).sort()).toEqual(['password_reset', 'receipt']);

    const other = await signedInUser();
    const forged = await unsubscribeToken(env.JWT_SECRET, other.user.id, 'receipt');
    const refused = await api('POST', `/api/mail/unsubscribe?u=${customer.user.id}&k=receipt&t=${forged}`, {});
    expect(refused.status).toBe(400);
    const bad = await api('PUT', '/api/users/mail-preferences', { token: customer.token, body: { notices: { password_reset: false } } });
    expect(bad.status).toBe(400);
  });

  it('sends a purchase’s receipt through the real queue after the answer, with the key, in the local outbox', async () => {
    const customer = await signedInUser('user', { credits: 1000 });
    const product = await makeProduct();
    await withSettings(NOTICES_ON, async () => {
      const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 30 } });
      expect(bought.status).toBe(201);
      const key = (bought.body as { licenseKey: { key: string } }).licenseKey.key;
      await expect.poll(async () => (await readOutbox(env.KV, customer.email)).map((m) => m.text).join('\n')).toContain(key);
      const [mail] = await readOutbox(env.KV, customer.email);
      expect(mail.html).toContain(key);
      expect(mail.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
      await expect.poll(async () => (await mailRows(customer.user.id)).map((m) => m.state)).toEqual(['sent']);
    });
  });
});

describe('the cron’s mail', () => {
  it('reminds of a key once per expiry and day, even when two runs overlap, and not a perpetual or revoked key', async () => {
    const customer = await signedInUser('user', { credits: 1000 });
    const product = await makeProduct();
    const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 30 } });
    const keyId = (bought.body as { licenseKey: { _id: string } }).licenseKey._id;
    const now = Date.now();
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(now + 2 * DAY_MS) })
      .where(eq(licenseKeys.id, keyId));
    const settings = { ...DEFAULT_SETTINGS, emailNotificationsEnabled: true };
    const queue = keptQueue();
    const runs = await Promise.all([1, 2, 3].map(() => remindExpiringKeys({ DB: env.DB, MAIL_QUEUE: queue }, settings, now)));
    expect(runs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    const reminders = (await mailRows(customer.user.id)).filter((m) => m.kind === 'expiry_reminder');
    // The reminder of the fewest days its time is within (3 of 14, 3 and 1), once, on the queue once.
    expect(reminders).toHaveLength(1);
    expect(reminders[0].data).toMatchObject({ keyId, daysLeft: 2 });
    expect(reminders[0].dedupeKey).toMatch(/:3$/);
    expect(queue.sent.filter((id) => id === reminders[0].id)).toHaveLength(1);
    // A day later, the 1-day reminder; never again the 3-day one.
    await remindExpiringKeys({ DB: env.DB, MAIL_QUEUE: queue }, settings, now + DAY_MS + 1000);
    expect((await mailRows(customer.user.id)).filter((m) => m.kind === 'expiry_reminder')).toHaveLength(2);
    // A key that will renew itself is not reminded (its renewal, or its failure, is told instead).
    const other = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 30 } });
    const renewing = (other.body as { licenseKey: { _id: string } }).licenseKey._id;
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(now + 2 * DAY_MS), autoRenewDays: 30 })
      .where(eq(licenseKeys.id, renewing));
    await remindExpiringKeys({ DB: env.DB, MAIL_QUEUE: queue }, settings, now + 5000);
    expect((await mailRows(customer.user.id)).filter((m) => m.kind === 'expiry_reminder' && m.data.keyId === renewing)).toEqual([]);
    // Notifications off: no reminder at all.
    const off = await remindExpiringKeys({ DB: env.DB, MAIL_QUEUE: queue }, DEFAULT_SETTINGS, now + DAY_MS + 2000);
    expect(off).toBe(0);
  });

  it('mails a low balance once per dip, however many exchanges race, and again after it recovers', async () => {
    const customer = await signedInUser('user', { balanceCents: 2_000 });
    await withSettings({ ...NOTICES_ON, notifyLowBalance: true, lowBalanceThreshold: 10 }, async () => {
      const exchanges = await Promise.all(
        Array.from({ length: 6 }, () => api('POST', '/api/credits/exchange', { token: customer.token, body: { usdAmount: 2 } })),
      );
      expect(exchanges.every((r) => r.status === 200)).toBe(true);
    });
    const low = (await mailRows(customer.user.id)).filter((m) => m.kind === 'low_balance');
    expect(low).toHaveLength(1);
    expect((await db().select().from(users).where(eq(users.id, customer.user.id)).get())!.lowBalanceMailedAt).not.toBeNull();
  });
});

describe('the local mailbox', () => {
  const call = async (path: string, bindings: Record<string, unknown>) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost${path}`), { ...env, ...bindings }, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };

  it('lists every mail locally, and a deployment serves no mailbox', async () => {
    const customer = await signedInUser();
    await queueMails(db(), [
      { kind: 'password_reset', userId: customer.user.id, data: { url: 'http://localhost/reset-password#token=abc' } },
    ]);
    const [row] = await mailRows(customer.user.id);
    expect((await deliverMail(env, row.id)).state).toBe('sent');
    const listed = await call('/api/dev/mailbox', {});
    expect(listed.status).toBe(200);
    const body = await listed.json<{ mails: Array<{ to: string; text: string }> }>();
    expect(body.mails.find((m) => m.to === customer.email)?.text).toContain('/reset-password#token=abc');
    const page = await call('/dev/mailbox', {});
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/reset-password#token=abc');
    for (const path of ['/api/dev/mailbox', '/dev/mailbox']) {
      const deployed = await call(path, { LOCAL_DEVELOPMENT: undefined });
      expect(deployed.status, path).toBe(404);
      expect(await deployed.text()).not.toContain('token=abc');
    }
  });
});
