// One password policy for registration, change, reset and the owner's Create user: at least 10
// characters, no composition rules, not among the commonest passwords, not the account's own name.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../../platform/db/schema';
import type { ApiErrorBody } from '../../../platform/api-client';
import { commonPasswords, isCommonPassword } from '../schemas/common-passwords';
import { COMMON_PASSWORD_MESSAGE, containsIdentity, passwordProblem, PERSONAL_PASSWORD_MESSAGE } from '../schemas/password-policy';
import { api, db, signedInUser, TEST_PASSWORD, uniqueName } from '../../../test/helpers';
import { resetTokenFrom, waitForMail } from '../../../test/security-helpers';

/** Asks each of the four ways to set a password to take `password` for a fresh account named `username`. */
const entryPoints: Record<string, (password: string, username: string) => Promise<{ status: number; body: Partial<ApiErrorBody> }>> = {
  register: (password, username) =>
    api('POST', '/api/auth/register', { body: { username, email: `${username}@example.com`, password, confirmPassword: password } }),
  'create user': async (password, username) => {
    const { token } = await signedInUser('owner');
    return api('POST', '/api/admin/users', { token, body: { username, email: `${username}@example.com`, password } });
  },
  change: async (password, username) => {
    const { token } = await signedInUser('user', { username });
    return api('PUT', '/api/users/change-password', { token, body: { currentPassword: TEST_PASSWORD, newPassword: password } });
  },
  reset: async (password, username) => {
    const { email } = await signedInUser('user', { username });
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const token = resetTokenFrom((await waitForMail(email))[0])!;
    return api('POST', '/api/auth/reset-password', { body: { token, password } });
  },
};

describe('the common password list', () => {
  it('holds tens of thousands of the commonest passwords and matches whatever the case', () => {
    expect(commonPasswords().length).toBeGreaterThanOrEqual(10_000);
    expect(commonPasswords().slice(0, 2)).toEqual(['123456', 'password']);
    for (const p of ['qwertyuiop', '1234567890', 'Password123', 'BASKETBALL', 'iloveyou12']) expect(isCommonPassword(p), p).toBe(true);
    expect(isCommonPassword('Steady-Secret-9')).toBe(false);
  });

  it('finds the username, the email or its mailbox inside a password', () => {
    const owner = { username: 'marguerite', email: 'm.duras@example.com' };
    expect(containsIdentity('my-Marguerite-2024', owner)).toBe(true);
    expect(containsIdentity('xx m.duras@example.com', owner)).toBe(true);
    expect(containsIdentity('hello M.Duras!!', owner)).toBe(true);
    expect(containsIdentity('lighthouse-garden', owner)).toBe(false);
    // A very short mailbox would ban too much: it is left out.
    expect(containsIdentity('long enough ab words', { email: 'ab@example.com' })).toBe(false);
    expect(passwordProblem('lighthouse-garden', owner)).toBeNull();
    expect(passwordProblem('marguerite-garden', owner)).toBe(PERSONAL_PASSWORD_MESSAGE);
    expect(passwordProblem('1234567890', owner)).toBe(COMMON_PASSWORD_MESSAGE);
  });
});

describe.each(Object.keys(entryPoints))('%s', (entry) => {
  const attempt = entryPoints[entry];

  it.each([
    ['123456', /^Password must be at least 10 characters( long)?$/],
    ['abc123xyz', /^Password must be at least 10 characters( long)?$/],
    ['qwertyuiop', COMMON_PASSWORD_MESSAGE],
    ['Password123', COMMON_PASSWORD_MESSAGE],
  ])('refuses %s', async (password, message) => {
    const res = await attempt(password, uniqueName('pp'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.message).toMatch(message);
  });

  it('refuses a password that contains the username', async () => {
    const username = uniqueName('pp');
    const res = await attempt(`My-${username.toUpperCase()}-pass`, username);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message: PERSONAL_PASSWORD_MESSAGE });
  });

  it('takes a long password with no digits, capitals or symbols', async () => {
    const res = await attempt('correct horse battery staple', uniqueName('pp'));
    expect(res.status).toBeLessThan(300);
  });
});

describe('a refused registration', () => {
  it('creates nothing', async () => {
    const username = uniqueName('pp');
    expect((await entryPoints.register('qwertyuiop', username)).status).toBe(400);
    expect(await db().select().from(users).where(eq(users.username, username)).all()).toHaveLength(0);
  });
});
