// Addresses are proven before they matter, and no live link exists outside the mail (issue 33):
// a registration with someone else's address gets no card top-up and no Google link until the link
// sent to that address is opened; a password reset proves the address and unlinks Google; a deployed
// Worker without a mail API issues no link and logs no token.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { emailVerificationTokens, passwordResetTokens, users } from '../../../platform/db/schema';
import { connectGoogle } from '../google';
import { readOutbox, type OutboxMail } from '../../../platform/mail';
import { api, db, freshIp, signedInUser, uniqueName } from '../../../test/helpers';
import { workerWith } from '../../../test/payment-helpers';
import { resetTokenFrom, waitForMail } from '../../../test/security-helpers';

const verifyTokenFrom = (mail: OutboxMail) => mail.text.match(/\/verify-email#token=([A-Za-z0-9_-]+)/)?.[1] ?? null;
const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)).get())!;
const deployed = workerWith({ LOCAL_DEVELOPMENT: undefined });

async function register(options: { fetch?: typeof deployed } = {}) {
  const username = uniqueName('reg');
  const email = `${username}@victim.example`;
  const res = await api('POST', '/api/auth/register', {
    body: { username, email, password: 'Steady-Secret-9x' },
    ip: freshIp(),
    fetch: options.fetch,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { email, token: res.body.token, user: res.body.user };
}

describe('a registration with someone else’s address', () => {
  it('is signed in and may browse, but gets no card top-up and no Google link until the address is verified', async () => {
    const squatter = await register();
    expect(squatter.user.emailVerified).toBe(false);
    const [sent] = await waitForMail(squatter.email);
    expect(sent.subject).toContain('Verify your email address');
    const token = verifyTokenFrom(sent);
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const checkout = await api('POST', '/api/payments/checkout', { token: squatter.token, body: { usdAmount: 25 } });
    expect(checkout.status).toBe(403);
    expect(checkout.body.code).toBe('EMAIL_UNVERIFIED');
    const google = await api('POST', '/api/users/connect-google', { token: squatter.token, body: { currentPassword: 'Steady-Secret-9x' } });
    expect(google.status).toBe(403);
    expect(google.body.code).toBe('EMAIL_UNVERIFIED');
    // The callback's own link is refused too, whatever started it.
    await expect(
      connectGoogle(db(), squatter.user._id, { sub: `g-${squatter.email}`, email: squatter.email, name: null }),
    ).rejects.toMatchObject({
      code: 'EMAIL_UNVERIFIED',
    });
    expect((await userRow(squatter.user._id)).googleId).toBeNull();
    expect((await api('GET', '/api/payments/options', { token: squatter.token })).body.emailVerified).toBe(false);
    expect((await api('GET', '/api/users/profile', { token: squatter.token })).body.emailVerified).toBe(false);

    // "Send the link again" sends another; only the address's owner can open either.
    const again = await api('POST', '/api/auth/send-verification', { token: squatter.token });
    expect(again.status).toBe(200);
    expect(await waitForMail(squatter.email, 2)).toHaveLength(2);

    const verified = await api('POST', '/api/auth/verify-email', { body: { token }, ip: freshIp() });
    expect(verified.status).toBe(200);
    expect((await userRow(squatter.user._id)).emailVerifiedAt).toBeInstanceOf(Date);
    expect((await api('POST', '/api/auth/verify-email', { body: { token }, ip: freshIp() })).status).toBe(400);
    expect((await api('POST', '/api/auth/send-verification', { token: squatter.token })).status).toBe(409);
    expect((await api('POST', '/api/payments/checkout', { token: squatter.token, body: { usdAmount: 25 } })).status).toBe(201);
  });

  it('loses its Google link when the real owner resets the password, which also proves the address', async () => {
    const squatter = await register();
    // Linked before this change (or by any other way): the reset still ends it.
    await db()
      .update(users)
      .set({ googleId: `g-${squatter.email}`, googleEmail: 'squatter@gmail.test' })
      .where(eq(users.id, squatter.user._id));
    expect((await api('POST', '/api/auth/forgot-password', { body: { email: squatter.email }, ip: freshIp() })).status).toBe(200);
    const mails = await waitForMail(squatter.email, 2);
    const resetToken = mails.map(resetTokenFrom).find(Boolean)!;
    const reset = await api('POST', '/api/auth/reset-password', {
      body: { token: resetToken, password: 'Another-Steady-77' },
      ip: freshIp(),
    });
    expect(reset.status).toBe(200);
    expect(await userRow(squatter.user._id)).toMatchObject({
      googleId: null,
      googleEmail: null,
      emailVerifiedAt: expect.any(Date) as unknown,
    });
  });

  it('an owner-created account is verified when the owner says so, and otherwise gets the link', async () => {
    const owner = await signedInUser('owner');
    const create = (emailVerified?: boolean) => {
      const username = uniqueName('made');
      return api('POST', '/api/admin/users', {
        token: owner.token,
        body: {
          username,
          email: `${username}@example.com`,
          password: 'Steady-Secret-9x',
          ...(emailVerified === undefined ? {} : { emailVerified }),
        },
      });
    };
    const vouched = await create(true);
    expect(vouched.status).toBe(201);
    expect(vouched.body.user.emailVerified).toBe(true);
    expect(await readOutbox(env.KV, vouched.body.user.email)).toEqual([]);
    const plain = await create();
    expect(plain.body.user.emailVerified).toBe(false);
    expect(plain.body.message).toContain('verification link is on its way');
    expect(verifyTokenFrom((await waitForMail(plain.body.user.email))[0])).toBeTruthy();
  });
});

describe('a deployed Worker without a mail API', () => {
  it('issues no reset or verification link, keeps no outbox, logs no token, and the owner is told why', async () => {
    const logs: string[] = [];
    const capture = (...args: unknown[]) => void logs.push(args.map(String).join(' '));
    const spies = [vi.spyOn(console, 'log').mockImplementation(capture), vi.spyOn(console, 'error').mockImplementation(capture)];
    try {
      const person = await register({ fetch: deployed });
      expect(person.user.emailVerified).toBe(false);
      const forgot = await api('POST', '/api/auth/forgot-password', { body: { email: person.email }, ip: freshIp(), fetch: deployed });
      expect(forgot.status).toBe(404);
      expect(forgot.body.code).toBe('NOT_CONFIGURED');
      expect(forgot.body.message).toContain('mail');
      const resend = await api('POST', '/api/auth/send-verification', { token: person.token, fetch: deployed });
      expect(resend.status).toBe(404);
      expect(await readOutbox(env.KV, person.email)).toEqual([]);
      expect(await db().select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, person.user._id)).all()).toEqual([]);
      expect(await db().select().from(emailVerificationTokens).where(eq(emailVerificationTokens.userId, person.user._id)).all()).toEqual(
        [],
      );

      const owner = await signedInUser('owner');
      const status = await api('GET', '/api/settings/server', { token: owner.token, fetch: deployed });
      expect(status.body.mail).toMatchObject({ transport: 'none', message: expect.stringContaining('MAIL_API_URL') as unknown });
      expect((await api('GET', '/api/settings/server', { token: owner.token })).body.mail).toEqual({
        transport: 'local-outbox',
        message: null,
      });
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
    expect(logs.join('\n')).not.toMatch(/token=/);
  });

  it('locally, mail goes to the outbox and the log never holds its link', async () => {
    const logs: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(' ')));
    try {
      const person = await register({ fetch: workerWith({}) });
      const [mail] = await waitForMail(person.email);
      expect(verifyTokenFrom(mail)).toBeTruthy();
    } finally {
      spy.mockRestore();
    }
    expect(logs.some((l) => l.includes('[mail outbox]'))).toBe(true);
    expect(logs.join('\n')).not.toMatch(/token=/);
  });
});
