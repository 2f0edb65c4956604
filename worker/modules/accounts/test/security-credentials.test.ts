// Credentials end together (issue 18): a password reset ends every session and API token, a
// password change the other sessions and (unless kept) the API tokens, turning two-factor off the
// other sessions. Also: idle sessions end, and a two-factor sign-in challenge works once.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiTokens, recoveryTokens, spentChallenges } from '../../../platform/db/schema';
import { runScheduledJobs } from '../../../scheduled';
import { api, db, liveSessions, openSessionAt, signedInUser, TEST_PASSWORD, withSettings } from '../../../test/helpers';
import { codeFor, enableTwoFactor, resetTokenFrom, waitForMail } from '../../../test/security-helpers';
import { DAY_MS, type Role } from '../../../platform/vocabulary';

const NEW_PASSWORD = 'Another-pass-123';
const login = (email: string, password = TEST_PASSWORD) => api('POST', '/api/auth/login', { body: { email, password } });
const works = async (token: string) => (await api('GET', '/api/users/profile', { token })).status;

/** An owner with two sessions (`token` and `other`) and one API token. */
async function ownerWithCredentials() {
  const owner = await signedInUser('owner');
  const other = (await login(owner.email)).body.token as string;
  const made = await api('POST', '/api/users/api-tokens', {
    token: owner.token,
    body: { name: 'ci', role: 'owner', currentPassword: TEST_PASSWORD },
  });
  expect(made.status).toBe(201);
  return { ...owner, other, apiToken: made.body.token };
}

describe('credentials end together', () => {
  it('a password reset ends every session and every API token', async () => {
    const owner = await ownerWithCredentials();
    expect(await works(owner.apiToken)).toBe(200);
    await api('POST', '/api/auth/forgot-password', { body: { email: owner.email } });
    const reset = resetTokenFrom((await waitForMail(owner.email))[0])!;
    expect((await api('POST', '/api/auth/reset-password', { body: { token: reset, password: NEW_PASSWORD } })).status).toBe(200);
    expect(await works(owner.token)).toBe(401);
    expect(await works(owner.other)).toBe(401);
    expect(await works(owner.apiToken)).toBe(401);
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, owner.user.id)).all()).toEqual([]);
  });

  it('a password change ends the other sessions and the API tokens, and keeps this session', async () => {
    const owner = await ownerWithCredentials();
    const res = await api('PUT', '/api/users/change-password', {
      token: owner.token,
      body: { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Password changed successfully. Other sessions have been signed out and your API tokens revoked.');
    expect(await works(owner.token)).toBe(200);
    expect(await works(owner.other)).toBe(401);
    expect(await works(owner.apiToken)).toBe(401);
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, owner.user.id)).all()).toEqual([]);
  });

  it('a password change keeps the API tokens when asked to', async () => {
    const owner = await ownerWithCredentials();
    const res = await api('PUT', '/api/users/change-password', {
      token: owner.token,
      body: { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, keepApiTokens: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Password changed successfully. Other sessions have been signed out.');
    expect(await works(owner.other)).toBe(401);
    expect(await works(owner.apiToken)).toBe(200);
    const bad = await api('PUT', '/api/users/change-password', {
      token: owner.token,
      body: { currentPassword: NEW_PASSWORD, newPassword: TEST_PASSWORD, keepApiTokens: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('keepApiTokens must be true or false');
  });

  it('turning two-factor off ends the other sessions and keeps this one', async () => {
    const owner = await ownerWithCredentials();
    await enableTwoFactor(owner.token);
    const res = await api('DELETE', '/api/users/disable-2fa', { token: owner.token, body: { currentPassword: TEST_PASSWORD } });
    expect(res.status).toBe(200);
    expect(await works(owner.token)).toBe(200);
    expect(await works(owner.other)).toBe(401);
    expect((await liveSessions(owner.user.id)).map((s) => s.id)).toHaveLength(1);
  });
});

describe('idle sessions', () => {
  /** A 30-day session whose last call was `idleMs` ago. */
  const sessionIdleFor = (user: { id: string; role: Role }, idleMs: number) => openSessionAt(user, Date.now() - idleMs);

  it('end after 7 days without a call by default, and are no longer listed', async () => {
    const { user, token } = await signedInUser();
    const idle = await sessionIdleFor(user, 7 * DAY_MS + 60_000);
    const recent = await sessionIdleFor(user, 6 * DAY_MS);
    expect(await works(recent)).toBe(200);
    const sessions = (await api('GET', '/api/users/sessions', { token })).body.sessions as unknown[];
    expect(sessions).toHaveLength(2);
    const refused = await api('GET', '/api/users/profile', { token: idle });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHORIZED');
  });

  it('end after the idle period the owner sets', async () => {
    const { user } = await signedInUser();
    const twoDays = await sessionIdleFor(user, 2 * DAY_MS);
    const halfDay = await sessionIdleFor(user, DAY_MS / 2);
    await withSettings({ sessionIdleDays: 1 }, async () => {
      expect(await works(halfDay)).toBe(200);
      expect(await works(twoDays)).toBe(401);
    });
  });

  it('is a setting from 1 to 90 days, 7 by default', async () => {
    const owner = await signedInUser('owner');
    const current = await api('GET', '/api/settings', { token: owner.token });
    expect(current.body.sessionIdleDays).toBe(7);
    for (const [value, message] of [
      [0, 'sessionIdleDays must be at least 1'],
      [91, 'sessionIdleDays must be at most 90'],
      [1.5, 'sessionIdleDays must be a whole number'],
    ] as const) {
      const res = await api('PUT', '/api/settings', { token: owner.token, body: { ...current.body, sessionIdleDays: value } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    }
  });
});

describe('a two-factor sign-in challenge', () => {
  async function challengeFor(email: string) {
    const res = await login(email);
    expect(res.body.requires2FA).toBe(true);
    return res.body.challenge as string;
  }

  it('opens one session: a second use is refused, even with another good code', async () => {
    const { token, email } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const challenge = await challengeFor(email);
    const first = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: codeFor(secret, 1) } });
    expect(first.status).toBe(200);
    const second = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: codeFor(secret, -1) } });
    expect(second.status).toBe(401);
    expect(second.body.message).toBe('This sign-in was already completed. Please sign in again.');
  });

  it('opens one session when raced, and spends one recovery token', async () => {
    const { token, email, user } = await signedInUser();
    await enableTwoFactor(token);
    const tokens = (await api('POST', '/api/users/recovery-tokens', { token, body: { currentPassword: TEST_PASSWORD } })).body.tokens;
    const challenge = await challengeFor(email);
    const race = await Promise.all(
      tokens.slice(0, 5).map((recoveryToken) => api('POST', '/api/auth/login/2fa', { body: { challenge, recoveryToken } })),
    );
    expect(race.filter((r) => r.status === 200)).toHaveLength(1);
    expect(race.filter((r) => r.status === 401)).toHaveLength(4);
    const unused = (await db().select().from(recoveryTokens).where(eq(recoveryTokens.userId, user.id)).all()).filter(
      (t) => t.usedAt === null,
    );
    expect(unused).toHaveLength(9);
  });

  it('stays good after a wrong code, and is forgotten by the cron once expired', async () => {
    const { token, email } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const challenge = await challengeFor(email);
    const wrong = String((Number(codeFor(secret, 1)) + 5) % 1_000_000).padStart(6, '0');
    expect((await api('POST', '/api/auth/login/2fa', { body: { challenge, code: wrong } })).status).toBe(401);
    expect((await api('POST', '/api/auth/login/2fa', { body: { challenge, code: codeFor(secret, 1) } })).status).toBe(200);
    const { jti } = JSON.parse(atob(challenge.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { jti: string };
    const stale = `stale-${jti}`;
    await db()
      .insert(spentChallenges)
      .values({ id: stale, expiresAt: Date.now() - 1000 });
    await runScheduledJobs(env);
    const left = (await db().select().from(spentChallenges).all()).map((r) => r.id);
    expect(left).toContain(jti);
    expect(left).not.toContain(stale);
  });
});
