// Trials bounded (issue 42, 4d): a network starts at most TRIALS_PER_NETWORK_PER_DAY trials a UTC
// day, exactly, however many devices ask at once (an IPv6 /64 is one network), and a trial key of a
// metered product carries the owner's trial allowance of uses (none by default), which never refills.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { startTrial, TRIALS_PER_NETWORK_PER_DAY } from '../trials';
import { consumeUsage } from '../usage';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { api, freshIp } from '../../../test/helpers';
import { makeProduct } from '../../../test/shop-helpers';
import { DAY_MS } from '../../../platform/vocabulary';

let counter = 0;
const device = (name: string) => `${name}-${counter++}-${Date.now()}`;
const codes = (results: Array<{ status: number; code: string }>) =>
  results.reduce<Record<string, number>>((n, r) => {
    const k = r.status === 200 ? r.code : String(r.status);
    return { ...n, [k]: (n[k] ?? 0) + 1 };
  }, {});
const trial = (keyTag: string, ip: string) =>
  api('POST', '/api/v1/licenses/trial', { body: { keyTag, deviceFingerprint: device('flood') }, ip }).then((res) => ({
    status: res.status,
    code: String((res.body as { code?: string }).code),
    body: res.body,
    retryAfter: res.headers.get('retry-after'),
  }));

describe('trials per network', () => {
  it(`a flood from one address starts ${TRIALS_PER_NETWORK_PER_DAY.limit} trials a day, exactly, across products; another network is not held`, async () => {
    const limit = TRIALS_PER_NETWORK_PER_DAY.limit;
    const products = await Promise.all([makeProduct({ trialDays: 7 }), makeProduct({ trialDays: 3 })]);
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: limit + 8 }, (_, i) => trial(products[i % 2].keyTag, ip)));
    expect(codes(answers)).toEqual({ TRIAL_STARTED: limit, '429': 8 });
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.code).toBe('RATE_LIMITED');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(DAY_MS / 1000);
    const keys = await env.DB.prepare(`SELECT count(*) AS n FROM license_keys WHERE is_trial = 1 AND product_id IN (?1, ?2)`)
      .bind(products[0].id, products[1].id)
      .first<{ n: number }>();
    expect(keys?.n).toBe(limit);
    // Later the same day, still refused; another address is not.
    expect((await trial(products[0].keyTag, ip)).status).toBe(429);
    expect((await trial(products[0].keyTag, freshIp())).code).toBe('TRIAL_STARTED');
  });

  it('counts an IPv6 network by its /64', async () => {
    const product = await makeProduct({ trialDays: 7 });
    const prefix = `2001:db8:${(counter++).toString(16)}:${(Date.now() % 65536).toString(16)}`;
    const answers = await Promise.all(
      Array.from({ length: TRIALS_PER_NETWORK_PER_DAY.limit + 3 }, (_, i) => trial(product.keyTag, `${prefix}::${(i + 1).toString(16)}`)),
    );
    expect(codes(answers)).toEqual({ TRIAL_STARTED: TRIALS_PER_NETWORK_PER_DAY.limit, '429': 3 });
    expect((await trial(product.keyTag, `${prefix}:1:2:3:4`)).status).toBe(429);
    expect((await trial(product.keyTag, `2001:db8:ffff:${(counter++).toString(16)}::1`)).code).toBe('TRIAL_STARTED');
  });

  it('starts again the next UTC day', async () => {
    const product = await makeProduct({ trialDays: 7 });
    const network = `198.51.100.${counter++ % 250}-${Date.now()}`;
    const today = Date.now();
    for (let i = 0; i < TRIALS_PER_NETWORK_PER_DAY.limit; i++) {
      expect(
        (await startTrial(env.DB, DEFAULT_SETTINGS, { keyTag: product.keyTag, deviceFingerprint: device('day') }, today, network)).code,
      ).toBe('TRIAL_STARTED');
    }
    await expect(
      startTrial(env.DB, DEFAULT_SETTINGS, { keyTag: product.keyTag, deviceFingerprint: device('day') }, today, network),
    ).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    const tomorrow = (Math.floor(today / DAY_MS) + 1) * DAY_MS + 1000;
    expect(
      (await startTrial(env.DB, DEFAULT_SETTINGS, { keyTag: product.keyTag, deviceFingerprint: device('day') }, tomorrow, network)).code,
    ).toBe('TRIAL_STARTED');
  });
});

describe("a trial key's uses", () => {
  const metered = (trialUsageAllowance?: number) =>
    makeProduct({
      trialDays: 14,
      usageAllowance: 100,
      usageRefillAmount: 100,
      usageRefillDays: 1,
      ...(trialUsageAllowance === undefined ? {} : { trialUsageAllowance }),
    });
  const consume = (key: string, fingerprint: string, amount: number, at: number) =>
    consumeUsage(env.DB, DEFAULT_SETTINGS, { key, deviceFingerprint: fingerprint, amount }, `idem-${counter++}`, at);

  it('are none of the metered allowance by default', async () => {
    const product = await metered();
    expect(product.trialUsageAllowance).toBe(0);
    const fp = device('uses');
    const t0 = Date.now();
    const started = await startTrial(env.DB, DEFAULT_SETTINGS, { keyTag: product.keyTag, deviceFingerprint: fp }, t0, `net-${counter++}`);
    expect(started.code).toBe('TRIAL_STARTED');
    expect(started.license?.usage).toMatchObject({ allowance: 100, remaining: 0 });
    expect((await consume(started.license!.key, fp, 1, t0)).code).toBe('USAGE_EXHAUSTED');
    // No refill while the trial lasts, though the product refills every day.
    expect((await consume(started.license!.key, fp, 1, t0 + 3 * DAY_MS)).code).toBe('USAGE_EXHAUSTED');
  });

  it("are the owner's trial allowance, at most the product's, never refilled", async () => {
    const product = await metered(5);
    const fp = device('uses');
    const t0 = Date.now();
    const started = await startTrial(env.DB, DEFAULT_SETTINGS, { keyTag: product.keyTag, deviceFingerprint: fp }, t0, `net-${counter++}`);
    expect(started.license?.usage).toMatchObject({ remaining: 5 });
    expect((await consume(started.license!.key, fp, 5, t0)).code).toBe('CONSUMED');
    expect((await consume(started.license!.key, fp, 1, t0 + 2 * DAY_MS)).code).toBe('USAGE_EXHAUSTED');
    expect((await consume(started.license!.key, fp, 1, t0 + 13 * DAY_MS)).code).toBe('USAGE_EXHAUSTED');

    const generous = await metered(500);
    const other = device('uses');
    const big = await startTrial(env.DB, DEFAULT_SETTINGS, { keyTag: generous.keyTag, deviceFingerprint: other }, t0, `net-${counter++}`);
    expect(big.license?.usage).toMatchObject({ allowance: 100, remaining: 100 });
  });

  it('is a product field the owner sets and reads, refused when not a plain whole number', async () => {
    const product = await metered(7);
    expect(product.trialUsageAllowance).toBe(7);
    await expect(makeProduct({ trialUsageAllowance: -1 })).rejects.toThrow();
    await expect(makeProduct({ trialUsageAllowance: '0x10' })).rejects.toThrow();
  });
});
