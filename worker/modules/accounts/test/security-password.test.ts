import { env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { passwordResetTokens, securityLog, users } from '../../../platform/db/schema';
import { resetPassword } from '../password-reset';
import { createUser } from '../users';
import { sha256Hex } from '../../../platform/ids';
import { readOutbox } from '../../../platform/mail';
import { COMMON_PASSWORD_MESSAGE } from '../schemas/password-policy';
import { api, clearOfMinuteEdge, db, signedInUser, TEST_PASSWORD, uniqueName } from '../../../test/helpers';
import { codeFor, enableTwoFactor, resetTokenFrom, waitForMail } from '../../../test/security-helpers';

const eventsOf = async (userId: string) =>
  (await db().select().from(securityLog).where(eq(securityLog.userId, userId)).all()).map((e) => e.event);
const NEW_PASSWORD = 'Fresh4Start';
const NOWHERE = { ipAddress: null, userAgent: null, location: null };

describe('PUT /api/users/change-password', () => {
  it('checks the current password and enforces the password policy', async () => {
    const { token } = await signedInUser();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ currentPassword: TEST_PASSWORD }, 'Password is required'],
      [{ newPassword: NEW_PASSWORD }, 'Current password is required'],
      [{ currentPassword: TEST_PASSWORD, newPassword: 'Ab1' }, 'Password must be at least 10 characters'],
      [{ currentPassword: TEST_PASSWORD, newPassword: 'Password123' }, COMMON_PASSWORD_MESSAGE],
      [{ currentPassword: 'Wrong1234', newPassword: NEW_PASSWORD }, 'Current password is incorrect'],
      [{ currentPassword: TEST_PASSWORD, newPassword: TEST_PASSWORD }, 'New password must be different from the current password'],
    ];
    for (const [body, message] of cases) {
      const res = await api('PUT', '/api/users/change-password', { token, body });
      expect(res.status, message).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    }
    // Nothing changed: the old password still signs in.
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(200);
  });

  it('changes the password, keeps this session and ends the others', async () => {
    const { token, email, user } = await signedInUser();
    const other = (await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).body.token;
    const res = await api('PUT', '/api/users/change-password', {
      token,
      body: { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(200);
    expect((await api('GET', '/api/users/profile', { token: other })).status).toBe(401);
    expect((await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).status).toBe(401);
    expect((await api('POST', '/api/auth/login', { body: { email, password: NEW_PASSWORD } })).status).toBe(200);
    const row = await db().select().from(users).where(eq(users.id, user.id)).get();
    expect(row?.passwordChangedAt).toBeInstanceOf(Date);
    expect(await eventsOf(user.id)).toContain('password_changed');
  });

  it('counts wrong current passwords like failed sign-ins', async () => {
    await clearOfMinuteEdge();
    const { token } = await signedInUser();
    const ip = '203.0.113.77';
    const tries = await Promise.all(
      Array.from({ length: 7 }, () =>
        api('PUT', '/api/users/change-password', { token, ip, body: { currentPassword: 'Wrong1234', newPassword: NEW_PASSWORD } }),
      ),
    );
    expect(tries.filter((t) => t.status === 400)).toHaveLength(5);
    expect(tries.filter((t) => t.status === 429)).toHaveLength(2);
  });
});

describe('forgot and reset password', () => {
  it('answers the same whether or not the email has an account, and mails only a real one', async () => {
    const { email } = await signedInUser();
    const missing = `${uniqueName('ghost')}@example.com`;
    const known = await api('POST', '/api/auth/forgot-password', { body: { email: email.toUpperCase() } });
    const unknown = await api('POST', '/api/auth/forgot-password', { body: { email: missing } });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    expect([...known.headers.keys()].sort()).toEqual([...unknown.headers.keys()].sort());

    const [mail] = await waitForMail(email);
    expect(mail.subject).toBe('Reset your KeyPanel password');
    expect(mail.text).toContain('http://localhost:8787/reset-password#token=');
    expect(await readOutbox(env.KV, missing)).toEqual([]);
    // Stored hashed, valid one hour.
    const token = resetTokenFrom(mail)!;
    const row = await db()
      .select()
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.tokenHash, await sha256Hex(token)))
      .get();
    expect(row).toBeDefined();
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(60 * 60 * 1000);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('validates the email', async () => {
    const res = await api('POST', '/api/auth/forgot-password', { body: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Please enter a valid email address');
  });

  it('resets with the emailed token once, ends every session, and the old password stops working', async () => {
    const { email, token: session, user } = await signedInUser();
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const reset = resetTokenFrom((await waitForMail(email))[0])!;

    const weak = await api('POST', '/api/auth/reset-password', { body: { token: reset, password: 'weakpass' } });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toBe('Password must be at least 10 characters');

    const ok = await api('POST', '/api/auth/reset-password', { body: { token: reset, password: NEW_PASSWORD } });
    expect(ok.status).toBe(200);
    expect(ok.body).not.toHaveProperty('token');
    expect((await api('GET', '/api/users/profile', { token: session })).status).toBe(401);
    expect((await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).status).toBe(401);
    expect((await api('POST', '/api/auth/login', { body: { email, password: NEW_PASSWORD } })).status).toBe(200);

    const twice = await api('POST', '/api/auth/reset-password', { body: { token: reset, password: 'Another9Pass' } });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toBe('This reset link is invalid, has expired or was already used. Please request a new one.');
    expect((await api('POST', '/api/auth/login', { body: { email, password: NEW_PASSWORD } })).status).toBe(200);
    const events = await eventsOf(user.id);
    expect(events).toContain('password_reset_requested');
    expect(events).toContain('password_reset');
  });

  it('refuses an expired token and an unknown one', async () => {
    const { email, user } = await signedInUser();
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const reset = resetTokenFrom((await waitForMail(email))[0])!;
    const later = Date.now() + 60 * 60 * 1000 + 1;
    await expect(resetPassword(db(), reset, NEW_PASSWORD, NOWHERE, later)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await db()
      .update(passwordResetTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(passwordResetTokens.userId, user.id));
    const expired = await api('POST', '/api/auth/reset-password', { body: { token: reset, password: NEW_PASSWORD } });
    expect(expired.status).toBe(400);
    const unknown = await api('POST', '/api/auth/reset-password', { body: { token: 'x'.repeat(43), password: NEW_PASSWORD } });
    expect(unknown.status).toBe(400);
    expect((await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).status).toBe(200);
  });

  it('lets one of two concurrent resets with the same token through', async () => {
    const { email } = await signedInUser();
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const reset = resetTokenFrom((await waitForMail(email))[0])!;
    const passwords = ['Racer1One', 'Racer2Two', 'Racer3Three', 'Racer4Four'];
    const results = await Promise.all(
      passwords.map((password) => api('POST', '/api/auth/reset-password', { body: { token: reset, password } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(3);
    const winner = passwords[results.findIndex((r) => r.status === 200)];
    const logins = await Promise.all(passwords.map((password) => api('POST', '/api/auth/login', { body: { email, password } })));
    expect(logins.map((l) => l.status)).toEqual(passwords.map((p) => (p === winner ? 200 : 401)));
  });

  it('spends a token once when resets race past the first check', async () => {
    const { email, user } = await signedInUser();
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const reset = resetTokenFrom((await waitForMail(email))[0])!;
    // Called directly, every attempt reads the unused token before any of them writes.
    const passwords = ['Racer1One', 'Racer2Two', 'Racer3Three'];
    const results = await Promise.allSettled(passwords.map((password) => resetPassword(db(), reset, password, NOWHERE)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    // The security log tells of the one reset that happened, not of the refused ones.
    const logged = await db()
      .select()
      .from(securityLog)
      .where(and(eq(securityLog.userId, user.id), eq(securityLog.event, 'password_reset')));
    expect(logged).toHaveLength(1);
    const winner = passwords[results.findIndex((r) => r.status === 'fulfilled')];
    const logins = await Promise.all(passwords.map((password) => api('POST', '/api/auth/login', { body: { email, password } })));
    expect(logins.map((l) => l.status)).toEqual(passwords.map((p) => (p === winner ? 200 : 401)));
  });

  it('spends every open link of the account when one is used', async () => {
    const { email } = await signedInUser();
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const mails = await waitForMail(email, 2);
    const [first, second] = mails.map((m) => resetTokenFrom(m)!);
    expect((await api('POST', '/api/auth/reset-password', { body: { token: second, password: NEW_PASSWORD } })).status).toBe(200);
    expect((await api('POST', '/api/auth/reset-password', { body: { token: first, password: 'Other5Pass' } })).status).toBe(400);
  });

  it('does not bypass two-factor sign-in', async () => {
    const { email, token } = await signedInUser();
    const secret = await enableTwoFactor(token);
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const reset = resetTokenFrom((await waitForMail(email))[0])!;
    expect((await api('POST', '/api/auth/reset-password', { body: { token: reset, password: NEW_PASSWORD } })).status).toBe(200);
    const login = await api('POST', '/api/auth/login', { body: { email, password: NEW_PASSWORD } });
    expect(login.body).toEqual({ requires2FA: true, challenge: expect.any(String) as unknown });
    const done = await api('POST', '/api/auth/login/2fa', { body: { challenge: login.body.challenge, code: codeFor(secret, 1) } });
    expect(done.status).toBe(200);
  });

  it('sends no link for a deactivated account, and the answer stays the same', async () => {
    const username = uniqueName('off');
    const email = `${username}@example.com`;
    await createUser(db(), { username, email, password: TEST_PASSWORD, isActive: false });
    const res = await api('POST', '/api/auth/forgot-password', { body: { email } });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(await readOutbox(env.KV, email)).toEqual([]);
  });

  it('limits reset emails per address, known or not', async () => {
    const { email } = await signedInUser();
    const missing = `${uniqueName('ghost')}@example.com`;
    for (const address of [email, missing]) {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => api('POST', '/api/auth/forgot-password', { body: { email: address } })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      const limited = answers.filter((a) => a.status === 429);
      expect(limited).toHaveLength(2);
      expect(limited[0].body.message).toMatch(/^Too many reset requests for this email\. Please try again in \d+ (seconds?|minutes?)\.$/);
      // A stranger who spends the limit delays the owner's own request by minutes, not an hour.
      expect(Number(limited[0].headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    }
    expect(await waitForMail(email, 3)).toHaveLength(3);
  });
});
