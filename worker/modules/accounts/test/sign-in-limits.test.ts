// Password guessing is bounded per account across all addresses, per-address limits count an IPv6
// address by its /64, and a refused sign-in reads the same whether or not the password was right.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { signInFailures } from '../../../platform/db/schema';
import { runScheduledJobs } from '../../../scheduled';
import { ACCOUNT_LOCKOUT, lockoutMs, passwordAttempt, refund } from '../../../platform/throttle';
import type { AppError } from '../../../platform/errors';
import { networkOf } from '../../../platform/network';
import { api, clearOfMinuteEdge, db, freshIp, signedInUser, TEST_PASSWORD, uniqueName, withSettings } from '../../../test/helpers';

beforeEach(() => clearOfMinuteEdge());

const MINUTE = 60_000;
let prefix = 0;
/** A /64 of the documentation range no other test uses. */
const ownSlash64 = () => `2001:db8:${(Date.now() % 0xffff).toString(16)}:${(prefix++ + Math.floor(Math.random() * 60000)).toString(16)}`;
const failuresRow = (account: string) => db().select().from(signInFailures).where(eq(signInFailures.account, account)).get();
const settle = <T>(work: Promise<T>) =>
  work.then(
    () => 'passed' as const,
    (e: { code?: string }) => e.code ?? 'error',
  );

describe('networkOf', () => {
  it('counts an IPv6 address by its /64 and an IPv4 address by itself', () => {
    expect(networkOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:0DB8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(networkOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(networkOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(networkOf('203.0.113.5')).toBe('203.0.113.5');
    expect(networkOf(null)).toBe('unknown');
    expect(networkOf('not an address')).toBe('not an address');
    expect(networkOf('1:2:3:4:5:6:7:8:9')).toBe('1:2:3:4:5:6:7:8:9');
  });
});

describe('sign-in from many IPv6 addresses of one /64', () => {
  it('meets the per-address limit: 40 guesses from 8 addresses get 5 answers', async () => {
    const { email } = await signedInUser();
    const net = ownSlash64();
    const addresses = Array.from({ length: 8 }, (_, i) => `${net}:${i + 1}:0:0:${(i * 7919).toString(16)}`);
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api('POST', '/api/auth/login', { ip: addresses[i % 8], body: { email, password: `Wrong-guess-${i}` } }),
      ),
    );
    expect(guesses.filter((r) => r.status === 401)).toHaveLength(5);
    expect(guesses.filter((r) => r.status === 429)).toHaveLength(35);
    // The right password from a ninth address of the same /64 is refused too; elsewhere it works.
    expect((await api('POST', '/api/auth/login', { ip: `${net}::abcd`, body: { email, password: TEST_PASSWORD } })).status).toBe(429);
    expect((await api('POST', '/api/auth/login', { ip: `${ownSlash64()}::1`, body: { email, password: TEST_PASSWORD } })).status).toBe(200);
  });

  it('meets the per-address limit of registration, reset and the rest (apiRateLimit)', () =>
    withSettings({ apiRateLimit: 10 }, async () => {
      const net = ownSlash64();
      const calls = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          api('POST', '/api/auth/forgot-password', {
            ip: `${net}::${(i + 1).toString(16)}`,
            body: { email: `${uniqueName('n')}@example.com` },
          }),
        ),
      );
      expect(calls.filter((r) => r.status === 429)).toHaveLength(2);
      const username = uniqueName('v6');
      const register = await api('POST', '/api/auth/register', {
        ip: `${net}:1::1`,
        body: { username, email: `${username}@example.com`, password: 'a-long-enough-phrase' },
      });
      expect(register.status).toBe(429);
    }));
});

describe('the licensing API', () => {
  it('limits unknown keys per /64 too', async () => {
    const net = ownSlash64();
    for (const ip of [`${net}::1`, `${net}:ffff:1:2:3`, '192.0.2.44']) {
      const res = await api('POST', '/api/v1/licenses/validate', {
        ip,
        body: { key: `NOPE-${uniqueName('k')}`, deviceFingerprint: 'device-one' },
      });
      expect(res.body.code).toBe('NOT_FOUND');
    }
    // Counted in D1 before the lookup (modules/licensing/throttle.ts), one bucket per network.
    const count = (network: string) =>
      env.DB.prepare('SELECT sum(count) AS n FROM rate_limits WHERE bucket = ?1').bind(`license-miss:${network}`).first<number>('n');
    expect(await count(`${net}::/64`)).toBe(2);
    expect(await count('192.0.2.44')).toBeGreaterThanOrEqual(1);
  });
});

describe('failed passwords per account across all addresses', () => {
  it(`let ${ACCOUNT_LOCKOUT.free} of many concurrent guesses from as many addresses through, no more`, async () => {
    const account = `${uniqueName('spread')}@example.com`;
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => settle(passwordAttempt(db(), account, freshIp()))));
    expect(outcomes.filter((o) => o === 'passed')).toHaveLength(ACCOUNT_LOCKOUT.free);
    expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(30 - ACCOUNT_LOCKOUT.free);
    expect(await failuresRow(account)).toMatchObject({ failures: ACCOUNT_LOCKOUT.free });
  });

  it('lock for longer after each further failure, and a quiet day forgets them', async () => {
    const account = `${uniqueName('grow')}@example.com`;
    const start = Math.floor(Date.now() / MINUTE) * MINUTE;
    for (let i = 0; i < ACCOUNT_LOCKOUT.free; i++) await passwordAttempt(db(), account, freshIp(), start);
    let now = start;
    // Each failure past the free ones locks twice as long as the last: 1, 2, 4, 8 ... minutes, at most an hour.
    for (const minutes of [1, 2, 4, 8, 16, 32, 60, 60]) {
      const refused = passwordAttempt(db(), account, freshIp(), now + 1000);
      await expect(refused).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(
        Number(
          (await refused.then(
            () => null,
            (e: AppError) => e,
          ))!.headers!['Retry-After'],
        ),
      ).toBe(minutes * 60 - 1);
      now += minutes * MINUTE;
      await expect(passwordAttempt(db(), account, freshIp(), now)).resolves.toMatchObject({ account });
    }
    expect(lockoutMs(ACCOUNT_LOCKOUT.free + 1)).toBe(2 * MINUTE);
    // A day after the last failure the account starts again with its free failures.
    const dayLater = now + ACCOUNT_LOCKOUT.forgetAfterMs + 1;
    await expect(passwordAttempt(db(), account, freshIp(), dayLater)).resolves.toMatchObject({ account });
    expect(await failuresRow(account)).toMatchObject({ failures: 1, lockedUntil: 0 });
    // The cron removes what a quiet day has forgotten.
    await runScheduledJobs(env, dayLater + ACCOUNT_LOCKOUT.forgetAfterMs + 1);
    expect(await failuresRow(account)).toBeUndefined();
  });

  it('give a right password its attempt back', async () => {
    const account = `${uniqueName('back')}@example.com`;
    for (let i = 0; i < ACCOUNT_LOCKOUT.free - 1; i++) await passwordAttempt(db(), account, freshIp());
    // The last free attempt turns out right: its reservation, and the lock it set, are given back.
    await refund(db(), await passwordAttempt(db(), account, freshIp()));
    expect(await failuresRow(account)).toMatchObject({ failures: ACCOUNT_LOCKOUT.free - 1, lockedUntil: 0 });
    await expect(passwordAttempt(db(), account, freshIp())).resolves.toMatchObject({ account });
    await expect(passwordAttempt(db(), account, freshIp())).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('refuse a locked account the same whether the password is right or wrong', async () => {
    const { email } = await signedInUser();
    for (let i = 0; i < ACCOUNT_LOCKOUT.free; i++) {
      expect((await api('POST', '/api/auth/login', { body: { email, password: `Wrong-guess-${i}` } })).status).toBe(401);
    }
    const wrong = await api('POST', '/api/auth/login', { body: { email, password: 'Wrong-once-more' } });
    const right = await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
    const ghost = await api('POST', '/api/auth/login', { body: { email: `${uniqueName('none')}@example.com`, password: TEST_PASSWORD } });
    for (const answer of [wrong, right]) {
      expect(answer.status).toBe(429);
      expect(answer.body).toEqual({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/^Too many failed attempts\. Please try again in (\d+ seconds|1 minute)\.$/) as unknown,
        details: { retryAfter: expect.any(Number) as unknown },
      });
      expect(Number(answer.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    expect(Object.keys(right.body).sort()).toEqual(Object.keys(wrong.body).sort());
    expect(right.body.message?.replace(/\d+ seconds?|1 minute/, 'N')).toBe(wrong.body.message?.replace(/\d+ seconds?|1 minute/, 'N'));
    // An unknown email is counted on its own: it has its free failures like anyone.
    expect(ghost.status).toBe(401);
  });
});
