import { env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { app } from '../../app';
import { rateLimits } from '../db/schema';
import { consume, enforce, passwordAttempt, refund, retryAfterSeconds, RULES, windowStartOf } from '../throttle';
import type { AppError } from '../errors';
import { TEST_PASSWORD, api, clearOfMinuteEdge, db, signedInUser, uniqueName, withSettings } from '../../test/helpers';
import { instrumentedWorker } from '../../test/instrumented';

// Most limits here count per minute, against the real clock.
beforeEach(() => clearOfMinuteEdge());

const bucketRows = (bucket: string) => db().select().from(rateLimits).where(eq(rateLimits.bucket, bucket)).all();
const newAccount = () => {
  const username = uniqueName('thr');
  return { username, email: `${username}@example.com`, password: 'Sturdy-secret-1', confirmPassword: 'Sturdy-secret-1' };
};
let ipCounter = 0;
const ownIp = () => `198.18.${Math.floor(Math.random() * 200)}.${ipCounter++ % 250}`;

/** Runs with a low apiRateLimit, then puts the defaults back. */
const withApiRateLimit = (limit: number, work: () => Promise<void>) => withSettings({ apiRateLimit: limit }, work);

describe('counters', () => {
  it('give each of many concurrent requests its own count', async () => {
    const bucket = `test:${crypto.randomUUID()}`;
    const rule = { limit: 1000, windowMs: 60_000 };
    const now = Date.now();
    const counts = await Promise.all(Array.from({ length: 40 }, () => consume(db(), bucket, rule, now)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await bucketRows(bucket)).toEqual([{ bucket, windowStart: windowStartOf(rule, now), count: 40 }]);
  });

  it('let exactly the limit through when requests arrive at once', async () => {
    const bucket = `test:${crypto.randomUUID()}`;
    const rule = { limit: 7, windowMs: 60_000 };
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => enforce(db(), bucket, rule, 'Slow down.')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(13);
    expect(refused[0].reason).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect((refused[0].reason as AppError).headers!['Retry-After']).toMatch(/^\d+$/);
  });

  it('start again in the next window and tell how long to wait', async () => {
    const bucket = `test:${crypto.randomUUID()}`;
    const rule = { limit: 1, windowMs: 60_000 };
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    await enforce(db(), bucket, rule, 'x', start + 1000);
    await expect(enforce(db(), bucket, rule, 'x', start + 15_000)).rejects.toMatchObject({ message: 'x Please try again in 45 seconds.' });
    expect(retryAfterSeconds(rule, start + 15_000)).toBe(45);
    await expect(enforce(db(), bucket, rule, 'x', start + 60_000)).resolves.toMatchObject({ count: 1 });
  });

  it('reserve a password check before it runs, so concurrent guesses cannot pass the limit', async () => {
    const account = `${uniqueName('acct')}@example.com`;
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => passwordAttempt(db(), account, '192.0.2.1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(RULES.passwordFailures.limit);
  });

  it('give a refunded attempt back, never below zero', async () => {
    const bucket = `test:${crypto.randomUUID()}`;
    const rule = { limit: 2, windowMs: 60_000 };
    const a = await enforce(db(), bucket, rule, 'x');
    await refund(db(), a);
    await refund(db(), a);
    expect((await bucketRows(bucket))[0].count).toBe(0);
  });
});

describe('apiRateLimit per IP per hour', () => {
  it('stops sign-in, registration and password reset calls from one address at the limit, under concurrency', () =>
    withApiRateLimit(10, async () => {
      const ip = ownIp();
      const { email } = await signedInUser();
      const calls = [
        ...Array.from({ length: 4 }, () => api('POST', '/api/auth/login', { ip, body: { email, password: TEST_PASSWORD } })),
        ...Array.from({ length: 4 }, () => api('POST', '/api/auth/register', { ip, body: newAccount() })),
        ...Array.from({ length: 4 }, () =>
          api('POST', '/api/auth/forgot-password', { ip, body: { email: `${uniqueName('f')}@example.com` } }),
        ),
        ...Array.from({ length: 2 }, () =>
          api('POST', '/api/auth/reset-password', { ip, body: { token: 'y'.repeat(43), password: 'Sturdy-secret-1' } }),
        ),
      ];
      const results = await Promise.all(calls);
      const limited = results.filter((r) => r.status === 429);
      expect(limited).toHaveLength(4);
      expect(results.filter((r) => r.status !== 429)).toHaveLength(10);
      for (const r of limited) {
        expect(r.body.code).toBe('RATE_LIMITED');
        expect(r.body.message).toMatch(/^Too many requests from your network\. Please try again in /);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
      }
      const [row] = await db()
        .select()
        .from(rateLimits)
        .where(
          and(eq(rateLimits.bucket, `ip:${ip}`), eq(rateLimits.windowStart, windowStartOf({ limit: 10, windowMs: 3_600_000 }, Date.now()))),
        )
        .all();
      expect(row.count).toBe(14);
      // Another address is not affected.
      expect((await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).status).toBe(200);
    }));

  it('leaves addresses in THROTTLE_EXEMPT_IPS alone', () =>
    withApiRateLimit(10, async () => {
      const ip = ownIp();
      const call = async (workerEnv: typeof env) =>
        await app.request(
          'http://localhost/api/auth/forgot-password',
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip },
            body: JSON.stringify({ email: `${uniqueName('x')}@example.com` }),
          },
          workerEnv,
        );
      const exempt = { ...env, THROTTLE_EXEMPT_IPS: `127.0.0.1, ${ip}` };
      const statuses = await Promise.all(Array.from({ length: 12 }, () => call(exempt).then((r) => r.status)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      const limited = await Promise.all(Array.from({ length: 12 }, () => call(env).then((r) => r.status)));
      expect(limited.filter((s) => s === 429)).toHaveLength(2);
    }));
});

describe('sign-in failures per account and address', () => {
  it('allows five wrong passwords a minute, then refuses even the right one from that address', async () => {
    const { email } = await signedInUser();
    const ip = ownIp();
    const wrong = await Promise.all(
      Array.from({ length: 8 }, () => api('POST', '/api/auth/login', { ip, body: { email, password: 'Wrong-pass1' } })),
    );
    expect(wrong.filter((r) => r.status === 401)).toHaveLength(5);
    const limited = wrong.filter((r) => r.status === 429);
    expect(limited).toHaveLength(3);
    // The wait is what is left of the minute: 1 to 59 seconds, or the whole minute right at its start.
    expect(limited[0].body.message).toMatch(/^Too many failed attempts\. Please try again in (\d+ seconds?|1 minute)\.$/);
    expect((await api('POST', '/api/auth/login', { ip, body: { email, password: TEST_PASSWORD } })).status).toBe(429);
    // The owner elsewhere is not locked out.
    expect((await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).status).toBe(200);
  });

  it('gives the same answer for an unknown email, so the limit reveals no account', async () => {
    const ip = ownIp();
    const ghost = `${uniqueName('ghost')}@example.com`;
    const answers = await Promise.all(
      Array.from({ length: 7 }, () => api('POST', '/api/auth/login', { ip, body: { email: ghost, password: 'Wrong-pass1' } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('does not count successful sign-ins', async () => {
    const { email } = await signedInUser();
    const ip = ownIp();
    for (let i = 0; i < 8; i++)
      expect((await api('POST', '/api/auth/login', { ip, body: { email, password: TEST_PASSWORD } })).status).toBe(200);
    expect((await api('POST', '/api/auth/login', { ip, body: { email, password: 'Wrong-pass1' } })).status).toBe(401);
  });
});

describe('calls per session', () => {
  it('are limited per session, with 429 and Retry-After, by the call limiter', async () => {
    const { token, email } = await signedInUser();
    const other = (await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).body.token as string;
    const [mine] = (await api('GET', '/api/users/sessions', { token })).body.sessions.filter((s: { current: boolean }) => s.current);
    // This session's minute is used up on the limiter the Worker shares with this test.
    while ((await env.CALL_LIMITER.limit({ key: `session:${mine.id}` })).success);
    const limited = await api('GET', '/api/users/profile', { token });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/^Too many requests from this session\./);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same account's other session is not affected.
    expect((await api('GET', '/api/users/profile', { token: other })).status).toBe(200);
  });

  it('count a request once even when several route groups check the session, and write nothing to D1', async () => {
    const { token } = await signedInUser();
    const worker = instrumentedWorker();
    const res = await api('GET', '/api/users/security', { token, fetch: (url, init) => worker.fetch(url, init) });
    expect(res.status).toBe(200);
    const cost = worker.take();
    expect(cost.limiterCalls).toBe(1);
    expect(cost.writes).toEqual([]);
  });
});
