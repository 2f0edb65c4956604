import { generateHOTP } from '@oslojs/otp';
import { env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rateLimits, recoveryTokens, securityLog, users } from '../../../platform/db/schema';
import { createChallenge, matchingStep, readChallenge, spendTwoFactorCode, timeStep } from '../two-factor';
import { api, db, signedInUser, TEST_PASSWORD } from '../../../test/helpers';
import { codeFor, enableTwoFactor } from '../../../test/security-helpers';

const login = (email: string, extra: Record<string, unknown> = {}) =>
  api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD, ...extra } });
const eventsOf = async (userId: string) =>
  (await db().select().from(securityLog).where(eq(securityLog.userId, userId)).all()).map((e) => e.event);

describe('two-factor setup', () => {
  it('gives a QR image, the secret and the otpauth address, and keeps the secret encrypted', async () => {
    const { token, user, email } = await signedInUser();
    const res = await api('POST', '/api/users/setup-2fa', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.qrCodeUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(atob(res.body.qrCodeUrl.split(',')[1])).toContain('<svg');
    expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(res.body.otpauthUrl).toBe(
      `otpauth://totp/KeyPanel:${encodeURIComponent(email)}?issuer=KeyPanel&algorithm=SHA1&secret=${res.body.secret}&period=30&digits=6`,
    );
    const row = await db().select().from(users).where(eq(users.id, user.id)).get();
    expect(row?.twoFactorEnabled).toBe(false);
    expect(row?.twoFactorPendingSecret).toMatch(/^v1\./);
    expect(row?.twoFactorPendingSecret).not.toContain(res.body.secret);
  });

  it('is enabled only by a correct 6-digit code from the pending secret', async () => {
    const { token, user } = await signedInUser();
    const setup = await api('POST', '/api/users/setup-2fa', { token, body: { currentPassword: TEST_PASSWORD } });
    for (const [code, message] of [
      ['12345', 'Enter the 6-digit code from your authenticator app'],
      ['abcdef', 'Enter the 6-digit code from your authenticator app'],
      ['1234567', 'Enter the 6-digit code from your authenticator app'],
    ]) {
      const res = await api('POST', '/api/users/verify-2fa', { token, body: { code } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    }
    const wrong = String((Number(codeFor(setup.body.secret)) + 1) % 1_000_000).padStart(6, '0');
    const bad = await api('POST', '/api/users/verify-2fa', { token, body: { code: wrong } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Invalid verification code/);
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.twoFactorEnabled).toBe(false);

    const code = codeFor(setup.body.secret);
    const ok = await api('POST', '/api/users/verify-2fa', { token, body: { code: code.slice(0, 3) + ' ' + code.slice(3) } });
    expect(ok.status).toBe(200);
    const row = await db().select().from(users).where(eq(users.id, user.id)).get();
    expect(row).toMatchObject({ twoFactorEnabled: true, twoFactorPendingSecret: null });
    expect(row?.twoFactorSecret).toMatch(/^v1\./);
    expect((await api('GET', '/api/users/security', { token })).body).toMatchObject({ twoFactorEnabled: true, recoveryTokens: 0 });
    expect((await api('GET', '/api/users/profile', { token })).body.twoFactorEnabled).toBe(true);
    expect(await eventsOf(user.id)).toContain('2fa_enabled');
  });

  it('refuses a second setup while enabled, and verify without setup', async () => {
    const { token } = await signedInUser();
    const early = await api('POST', '/api/users/verify-2fa', { token, body: { code: '123456' } });
    expect(early.status).toBe(400);
    expect(early.body.message).toBe('Start the two-factor setup first');
    await enableTwoFactor(token);
    const again = await api('POST', '/api/users/setup-2fa', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Two-factor authentication is already enabled');
  });

  it('needs a session', async () => {
    expect((await api('POST', '/api/users/setup-2fa')).status).toBe(401);
    expect((await api('POST', '/api/users/verify-2fa', { body: { code: '123456' } })).status).toBe(401);
    expect((await api('DELETE', '/api/users/disable-2fa', { body: { password: 'x' } })).status).toBe(401);
  });
});

describe('codes', () => {
  const key = crypto.getRandomValues(new Uint8Array(20));
  const now = Date.now();
  const code = (offset: number) => generateHOTP(key, BigInt(timeStep(now) + offset), 6);

  it('accept one step of drift either way and no more', () => {
    expect(matchingStep(key, code(0), now, null)).toBe(timeStep(now));
    expect(matchingStep(key, code(-1), now, null)).toBe(timeStep(now) - 1);
    expect(matchingStep(key, code(1), now, null)).toBe(timeStep(now) + 1);
    // Codes from two steps away are refused (unless they happen to equal a nearby code).
    for (const offset of [-2, 2]) {
      if (![code(-1), code(0), code(1)].includes(code(offset))) expect(matchingStep(key, code(offset), now, null)).toBeNull();
    }
  });

  it('are never accepted for a step at or before the last one used', () => {
    expect(matchingStep(key, code(0), now, timeStep(now))).toBeNull();
    expect(matchingStep(key, code(-1), now, timeStep(now))).toBeNull();
    expect(matchingStep(key, code(1), now, timeStep(now))).toBe(timeStep(now) + 1);
  });
});

describe('sign-in with two-factor', () => {
  it('answers the password step with a challenge and no token, and the code step with a session', async () => {
    const { token, email, user } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const first = await login(email, { rememberMe: true });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ requires2FA: true, challenge: expect.any(String) as unknown });
    expect(first.body).not.toHaveProperty('token');
    // The challenge is no session token.
    expect((await api('GET', '/api/users/profile', { token: first.body.challenge })).status).toBe(401);

    const second = await api('POST', '/api/auth/login/2fa', { body: { challenge: first.body.challenge, code: codeFor(secret, 1) } });
    expect(second.status).toBe(200);
    expect(second.body.user).toMatchObject({ _id: user.id, twoFactorEnabled: true });
    expect((await api('GET', '/api/users/profile', { token: second.body.token })).status).toBe(200);
    // rememberMe carried through the challenge: a 30-day session.
    const claims = JSON.parse(atob(second.body.token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp: number; iat: number };
    expect(claims.exp - claims.iat).toBe(30 * 24 * 3600);
    expect(await eventsOf(user.id)).toContain('login');
  });

  it('never accepts a used code twice (replay), not even at the same moment', async () => {
    const { token, email, user } = await signedInUser();
    const enabledAt = Date.now();
    const secret = await enableTwoFactor(token, undefined, enabledAt);
    // The code that just enabled two-factor cannot sign in, even once its step has passed.
    const challenge = (await login(email)).body.challenge;
    const replayed = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: codeFor(secret, 0, enabledAt) } });
    expect(replayed.status).toBe(401);
    expect(replayed.body.message).toBe('This code was already used. Wait for the next code and try again.');

    // Two sign-ins racing with one fresh code: exactly one session.
    const code = codeFor(secret, 1);
    const [a, b] = await Promise.all([login(email), login(email)]);
    const results = await Promise.all(
      [a, b].map((l) => api('POST', '/api/auth/login/2fa', { body: { challenge: l.body.challenge, code } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    expect(await eventsOf(user.id)).toContain('2fa_failed');
  });

  it('spends a code once when checks race with the same view of the account', async () => {
    const { token, user } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const row = (await db().select().from(users).where(eq(users.id, user.id)).get())!;
    const code = codeFor(secret, 1);
    const checks = await Promise.all([1, 2, 3].map(() => spendTwoFactorCode(env, db(), row, code)));
    expect(checks.sort()).toEqual(['ok', 'reused', 'reused']);
  });

  it('refuses a wrong code, a forged or expired challenge, and a challenge for an account without two-factor', async () => {
    const { token, email, user } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const challenge = (await login(email)).body.challenge;
    const wrong = String((Number(codeFor(secret, 1)) + 7) % 1_000_000).padStart(6, '0');
    const bad = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: wrong } });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ code: 'INVALID_CREDENTIALS', message: 'Invalid two-factor code' });

    const expired = await createChallenge(env.JWT_SECRET, user.id, false, Date.now() - 10 * 60_000);
    const late = await api('POST', '/api/auth/login/2fa', { body: { challenge: expired, code: codeFor(secret, 1) } });
    expect(late.status).toBe(401);
    expect(late.body.message).toBe('This sign-in has expired. Please sign in again.');

    // A session token is not a challenge.
    expect((await api('POST', '/api/auth/login/2fa', { body: { challenge: token, code: codeFor(secret, 1) } })).status).toBe(401);
    // Nor is a challenge signed with another key.
    const forged = await createChallenge('another-secret-that-is-long-enough-0123456789', user.id, false);
    expect(await readChallenge(env.JWT_SECRET, forged)).toBeNull();
    expect((await api('POST', '/api/auth/login/2fa', { body: { challenge: forged, code: codeFor(secret, 1) } })).status).toBe(401);

    const plain = await signedInUser();
    const noTwoFactor = await createChallenge(env.JWT_SECRET, plain.user.id, false);
    expect((await api('POST', '/api/auth/login/2fa', { body: { challenge: noTwoFactor, code: '123456' } })).status).toBe(401);
  });

  it('needs exactly one of a code and a recovery token', async () => {
    const { token, email } = await signedInUser();
    await enableTwoFactor(token);
    const challenge = (await login(email)).body.challenge;
    const none = await api('POST', '/api/auth/login/2fa', { body: { challenge } });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('Enter the 6-digit code from your authenticator app or a recovery token');
    const both = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: '123456', recoveryToken: 'AAAA' } });
    expect(both.status).toBe(400);
  });

  it('stops guessing after five wrong codes, even with fresh challenges', async () => {
    const { token, email, user } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const good = codeFor(secret, 1);
    const wrong = (i: number) => String((Number(good) + 11 + i) % 1_000_000).padStart(6, '0');
    const challenges = await Promise.all(Array.from({ length: 8 }, () => login(email)));
    const guesses = await Promise.all(
      challenges.map((l, i) => api('POST', '/api/auth/login/2fa', { body: { challenge: l.body.challenge, code: wrong(i) } })),
    );
    const statuses = guesses.map((g) => g.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    const limited = guesses.find((g) => g.status === 429)!;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.code).toBe('RATE_LIMITED');
    // Even the right code waits now.
    const right = await api('POST', '/api/auth/login/2fa', { body: { challenge: challenges[0].body.challenge, code: good } });
    expect(right.status).toBe(429);
    const rows = await db()
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.bucket, `2fa:${user.id}`))
      .all();
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(9);
  });
});

describe('a double-submitted second step (issue 42)', () => {
  const countedFor = async (userId: string) =>
    (
      await db()
        .select()
        .from(rateLimits)
        .where(eq(rateLimits.bucket, `2fa:${userId}`))
        .all()
    ).reduce((n, r) => n + r.count, 0);

  it('signs in once, and the copies count no attempt toward the lockout', async () => {
    const { token, email, user } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const challenge = (await login(email)).body.challenge;
    const code = codeFor(secret, 1);
    // Eight copies of one click at once, then two more after the first has finished.
    const burst = await Promise.all(Array.from({ length: 8 }, () => api('POST', '/api/auth/login/2fa', { body: { challenge, code } })));
    const later = await Promise.all([1, 2].map(() => api('POST', '/api/auth/login/2fa', { body: { challenge, code } })));
    const statuses = [...burst, ...later].map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(9);
    for (const r of [...burst, ...later].filter((x) => x.status === 401))
      expect(r.body.message).toBe('This sign-in was already completed. Please sign in again.');
    expect(await countedFor(user.id)).toBe(0);
    expect(await eventsOf(user.id)).not.toContain('2fa_failed');
    // Five wrong codes still lock, as before: the copies used none of them.
    const good = codeFor(secret, 1);
    for (let i = 0; i < 5; i++) {
      const fresh = (await login(email)).body.challenge;
      const wrong = String((Number(good) + 13 + i) % 1_000_000).padStart(6, '0');
      expect((await api('POST', '/api/auth/login/2fa', { body: { challenge: fresh, code: wrong } })).status).toBe(401);
    }
    const sixth = (await login(email)).body.challenge;
    expect((await api('POST', '/api/auth/login/2fa', { body: { challenge: sixth, code: '000000' } })).status).toBe(429);
  });

  it('answers copies of a wrong code as wrong, counting it once', async () => {
    const { token, email, user } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const challenge = (await login(email)).body.challenge;
    const wrong = String((Number(codeFor(secret, 1)) + 17) % 1_000_000).padStart(6, '0');
    const first = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: wrong } });
    expect(first.body).toEqual({ code: 'INVALID_CREDENTIALS', message: 'Invalid two-factor code' });
    for (let i = 0; i < 6; i++) {
      const copy = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: wrong } });
      expect(copy.status).toBe(401);
      expect(copy.body).toEqual(first.body);
    }
    expect(await countedFor(user.id)).toBe(1);
    expect((await eventsOf(user.id)).filter((e) => e === '2fa_failed')).toHaveLength(1);
    // The challenge still takes the right code.
    const right = await api('POST', '/api/auth/login/2fa', { body: { challenge, code: codeFor(secret, 1) } });
    expect(right.status).toBe(200);
  });
});

describe('recovery tokens', () => {
  it('are ten, shown once, stored hashed, counted, and replaced by a new set', async () => {
    const { token, user } = await signedInUser();
    const refused = await api('POST', '/api/users/recovery-tokens', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(refused.status).toBe(409);
    await enableTwoFactor(token);
    const res = await api('POST', '/api/users/recovery-tokens', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.tokens).toHaveLength(10);
    expect(new Set(res.body.tokens).size).toBe(10);
    for (const t of res.body.tokens) expect(t).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    const stored = await db().select().from(recoveryTokens).where(eq(recoveryTokens.userId, user.id)).all();
    expect(stored).toHaveLength(10);
    for (const row of stored) expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    const storedText = JSON.stringify(stored);
    for (const t of res.body.tokens) expect(storedText).not.toContain(t.replace(/-/g, ''));
    const info = await api('GET', '/api/users/security', { token });
    expect(info.body.recoveryTokens).toBe(10);
    expect(JSON.stringify(info.body)).not.toContain(res.body.tokens[0]);

    const again = await api('POST', '/api/users/recovery-tokens', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(again.body.tokens.some((t: string) => res.body.tokens.includes(t))).toBe(false);
    expect(await db().select().from(recoveryTokens).where(eq(recoveryTokens.userId, user.id)).all()).toHaveLength(10);
  });

  it('each sign in once in place of a code; an old set no longer works', async () => {
    const { token, email, user } = await signedInUser();
    await enableTwoFactor(token);
    const old = (await api('POST', '/api/users/recovery-tokens', { token, body: { currentPassword: TEST_PASSWORD } })).body.tokens;
    const tokens = (await api('POST', '/api/users/recovery-tokens', { token, body: { currentPassword: TEST_PASSWORD } })).body.tokens;
    const challenge = async () => (await login(email)).body.challenge;

    const stale = await api('POST', '/api/auth/login/2fa', { body: { challenge: await challenge(), recoveryToken: old[0] } });
    expect(stale.status).toBe(401);
    // Typed back in lower case with spaces: still the token.
    const typed = tokens[0].toLowerCase().replace(/-/g, ' ');
    const used = await api('POST', '/api/auth/login/2fa', { body: { challenge: await challenge(), recoveryToken: typed } });
    expect(used.status).toBe(200);
    expect(used.body.token).toBeTruthy();
    const twice = await api('POST', '/api/auth/login/2fa', { body: { challenge: await challenge(), recoveryToken: tokens[0] } });
    expect(twice.status).toBe(401);
    expect(twice.body.message).toBe('Invalid or already used recovery token');
    expect((await api('GET', '/api/users/security', { token })).body.recoveryTokens).toBe(9);
    expect(await eventsOf(user.id)).toContain('recovery_token_used');

    // One token sent twice at once: one session.
    const [c1, c2] = [await challenge(), await challenge()];
    const race = await Promise.all(
      [c1, c2].map((c) => api('POST', '/api/auth/login/2fa', { body: { challenge: c, recoveryToken: tokens[1] } })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([200, 401]);
    const left = await db()
      .select()
      .from(recoveryTokens)
      .where(and(eq(recoveryTokens.userId, user.id)))
      .all();
    expect(left.filter((t) => t.usedAt === null)).toHaveLength(8);
  });
});

describe('turning two-factor off', () => {
  it('needs a current code or the password', async () => {
    const { token, user, email } = await signedInUser();
    const enabledAt = Date.now();
    const secret = await enableTwoFactor(token, undefined, enabledAt);
    await api('POST', '/api/users/recovery-tokens', { token, body: { currentPassword: TEST_PASSWORD } });

    const bare = await api('DELETE', '/api/users/disable-2fa', { token });
    expect(bare.status).toBe(403);
    expect(bare.body).toEqual({
      code: 'REAUTH_REQUIRED',
      message: 'Confirm with your current password or a two-factor code.',
      details: { methods: ['currentPassword', 'code'] },
    });
    const wrongPassword = await api('DELETE', '/api/users/disable-2fa', { token, body: { password: 'Wrong123' } });
    expect(wrongPassword.status).toBe(403);
    expect(wrongPassword.body).toMatchObject({ code: 'REAUTH_REQUIRED', message: 'Password is incorrect' });
    // The code that enabled it is spent, even when its step has passed meanwhile.
    const replay = await api('DELETE', '/api/users/disable-2fa', { token, body: { code: codeFor(secret, 0, enabledAt) } });
    expect(replay.status).toBe(403);
    expect(replay.body.message).toBe('This code was already used. Wait for the next code and try again.');
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.twoFactorEnabled).toBe(true);

    const ok = await api('DELETE', '/api/users/disable-2fa', { token, body: { code: codeFor(secret, 1) } });
    expect(ok.status).toBe(200);
    const row = await db().select().from(users).where(eq(users.id, user.id)).get();
    expect(row).toMatchObject({ twoFactorEnabled: false, twoFactorSecret: null, twoFactorLastStep: null });
    expect(await db().select().from(recoveryTokens).where(eq(recoveryTokens.userId, user.id)).all()).toHaveLength(0);
    expect(await eventsOf(user.id)).toContain('2fa_disabled');
    // Sign-in is one step again.
    expect((await login(email)).body.token).toBeTruthy();
    expect((await api('DELETE', '/api/users/disable-2fa', { token, body: { password: TEST_PASSWORD } })).status).toBe(409);
  });

  it('limits wrong codes like the sign-in step', async () => {
    const { token, user } = await signedInUser();
    const secret = await enableTwoFactor(token);
    const wrong = (i: number) => String((Number(codeFor(secret, 1)) + 13 + i) % 1_000_000).padStart(6, '0');
    const tries = await Promise.all(
      Array.from({ length: 7 }, (_, i) => api('DELETE', '/api/users/disable-2fa', { token, body: { code: wrong(i) } })),
    );
    expect(tries.filter((t) => t.status === 403)).toHaveLength(5);
    expect(tries.filter((t) => t.status === 429)).toHaveLength(2);
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.twoFactorEnabled).toBe(true);
  });

  it('works with the password', async () => {
    const { token } = await signedInUser();
    await enableTwoFactor(token);
    const ok = await api('DELETE', '/api/users/disable-2fa', { token, body: { password: TEST_PASSWORD } });
    expect(ok.status).toBe(200);
    expect((await api('GET', '/api/users/security', { token })).body.twoFactorEnabled).toBe(false);
  });
});
