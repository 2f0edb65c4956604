import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ledger } from '../../../platform/db/schema';
import { exchangeUsdForCredits } from '../exchange';
import type { AppError } from '../../../platform/errors';
import { creditsForCents, toCents } from '../schemas/exchange';
import { api, db, signedInUser, unreconciledUsers } from '../../../test/helpers';
import { sandbox } from '../../../test/sandbox';
import { uniqueTag, userRow } from '../../../test/shop-helpers';

const exchange = (token: string, body: unknown, headers?: Record<string, string>) =>
  api('POST', '/api/credits/exchange', { token, body, headers });
const exchangeRows = (userId: string) =>
  db()
    .select()
    .from(ledger)
    .where(and(eq(ledger.userId, userId), eq(ledger.kind, 'exchange')))
    .all();

/** A Worker whose settings carry this rate, so other test files never see it. */
async function atRate(rate: number) {
  const box = await sandbox({ settings: { usdToCreditRate: rate } });
  return { ...box, exchange: (token: string, body: unknown) => box.api('POST', '/api/credits/exchange', { token, body }) };
}

describe('GET /api/credits/exchange-rate', () => {
  it('gives the rate from the settings, 10 by default', async () => {
    const { token } = await signedInUser();
    expect((await api('GET', '/api/credits/exchange-rate', { token })).body).toEqual({ rate: 10 });
    const box = await atRate(7);
    const res = await box.api('GET', '/api/credits/exchange-rate', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ rate: 7 });
    expect((await api('GET', '/api/credits/exchange-rate')).status).toBe(401);
  });
});

describe('the arithmetic', () => {
  it('is exact in whole cents, rounding credits down', () => {
    expect(toCents(5.55)).toBe(555);
    expect(toCents('5.55')).toBe(555);
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents(1.005)).toBeNull();
    expect(toCents('abc')).toBeNull();
    expect(toCents('')).toBeNull();
    expect(toCents(Infinity)).toBeNull();
    expect(creditsForCents(555, 7)).toBe(38);
    // 0.29 x 100 is 28.999999999999996 in floating point; in cents it is 29 exactly.
    expect(Math.floor(0.29 * 100)).toBe(28);
    expect(creditsForCents(toCents(0.29)!, 100)).toBe(29);
    expect(creditsForCents(1, 1)).toBe(0);
    expect(creditsForCents(100_000_000, 1000)).toBe(1_000_000_000);
  });
});

describe('POST /api/credits/exchange', () => {
  it('turns 5.55 USD at rate 7 into 38 credits, with a ledger row', async () => {
    const box = await atRate(7);
    const { user, token } = await box.signedInUser('user', { balanceCents: 2000, credits: 5 });
    const res = await box.exchange(token, { usdAmount: 5.55, creditsToAdd: 38 });
    expect(res.status).toBe(200);
    expect(res.body.balances).toEqual({ usd: 14.45, credits: 43 });
    expect(res.body.user).toMatchObject({ _id: user.id, username: user.username, balance: 14.45, credits: 43 });
    expect(res.body.user).not.toHaveProperty('passwordHash');
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 1445, credits: 43 });
    expect(await exchangeRows(user.id)).toEqual([
      expect.objectContaining({ actorId: user.id, creditsDelta: 38, usdCentsDelta: -555, note: '$5.55 at 7 credits per USD' }),
    ]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('lets the server’s figure stand when the screen rounded lower, or sent none', async () => {
    const { user, token } = await signedInUser('user', { balanceCents: 1000 });
    expect((await exchange(token, { usdAmount: 0.29, creditsToAdd: 2 })).body.balances.credits).toBe(2);
    expect((await exchange(token, { usdAmount: '1.00' })).body.balances.credits).toBe(12);
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 871, credits: 12 });
  });

  it('refuses to credit more than its own figure: 409 when the rate fell since the page loaded', async () => {
    const box = await atRate(8);
    const { user, token } = await box.signedInUser('user', { balanceCents: 1000 });
    const res = await box.exchange(token, { usdAmount: 5, creditsToAdd: 50 });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      code: 'RATE_CHANGED',
      message:
        'The exchange rate has changed to 8 credits per USD: $5.00 now buys 40 credits, not 50. Please check the new amount and try again.',
      details: { rate: 8, creditsToAdd: 40 },
    });
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 1000, credits: 0 });
    expect(await exchangeRows(user.id)).toEqual([]);
  });

  it.each([
    ['no amount', {}],
    ['a zero amount', { usdAmount: 0 }],
    ['a negative amount', { usdAmount: -1 }],
    ['three decimals', { usdAmount: 1.005 }],
    ['text', { usdAmount: 'ten dollars' }],
    ['an empty string', { usdAmount: '' }],
    ['null', { usdAmount: null }],
    ['a list', { usdAmount: [5] }],
  ])('refuses %s with “Please enter a valid USD amount”', async (_, body) => {
    const { user, token } = await signedInUser('user', { balanceCents: 1000 });
    const res = await exchange(token, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Please enter a valid USD amount' });
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 1000, credits: 0 });
  });

  it('refuses a negative creditsToAdd and amounts beyond a million dollars', async () => {
    const { token } = await signedInUser('user', { balanceCents: 1000 });
    expect((await exchange(token, { usdAmount: 1, creditsToAdd: -1 })).body.message).toBe('creditsToAdd cannot be negative');
    expect((await exchange(token, { usdAmount: 1_000_000.01 })).body.message).toBe('At most $1,000,000 can be exchanged at once');
  });

  it('refuses an amount above the balance with a 402 “Insufficient USD balance”', async () => {
    const { user, token } = await signedInUser('user', { balanceCents: 500 });
    const res = await exchange(token, { usdAmount: 5.01 });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({
      code: 'INSUFFICIENT_BALANCE',
      message: 'Insufficient USD balance',
      details: { requiredUsd: 5.01, availableUsd: 5 },
    });
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 500, credits: 0 });
    expect((await exchange(token, { usdAmount: 5 })).status).toBe(200);
  });

  it('refuses an amount that buys no credit at all', async () => {
    const box = await atRate(1);
    const { user, token } = await box.signedInUser('user', { balanceCents: 500 });
    const res = await box.exchange(token, { usdAmount: 0.99 });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('$0.99 buys no credits at the current rate of 1 credits per USD');
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 500, credits: 0 });
  });

  it('needs a session', async () => {
    expect((await exchange('', { usdAmount: 1 })).status).toBe(401);
  });
});

describe('concurrent exchanges', () => {
  it('spend exactly the USD balance, never more', async () => {
    const n = 6;
    const { user, token } = await signedInUser('user', { balanceCents: n * 100 });
    const results = await Promise.all(Array.from({ length: 3 * n }, () => exchange(token, { usdAmount: 1, creditsToAdd: 10 })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(n);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(2 * n);
    expect(refused.every((r) => r.status === 402 && r.body.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 0, credits: n * 10 });
    expect(await exchangeRows(user.id)).toHaveLength(n);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('stay exact when called directly, where every copy passes the first balance check', async () => {
    const { user } = await signedInUser('user', { balanceCents: 300 });
    const settled = await Promise.allSettled(
      Array.from({ length: 10 }, () => exchangeUsdForCredits(db(), { userId: user.id, cents: 100, rate: 10 })),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
    const reasons = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as AppError] : []));
    expect(reasons.every((r) => r.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 0, credits: 30 });
    expect(await unreconciledUsers()).toEqual([]);
  });
});

describe('Idempotency-Key on exchanges', () => {
  it('answers a retry with the first answer and moves the money once', async () => {
    const { user, token } = await signedInUser('user', { balanceCents: 1000 });
    const headers = { 'Idempotency-Key': uniqueTag() };
    const first = await exchange(token, { usdAmount: 2.5 }, headers);
    const retry = await exchange(token, { usdAmount: 2.5 }, headers);
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(first.body.balances).toEqual({ usd: 7.5, credits: 25 });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 750, credits: 25 });
    expect((await exchange(token, { usdAmount: 3 }, headers)).status).toBe(409);
  });

  it('moves the money once when copies race (domain level)', async () => {
    const { user } = await signedInUser('user', { balanceCents: 1000 });
    const idempotency = { userId: user.id, key: `exchange:${uniqueTag()}`, fingerprint: '100' };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => exchangeUsdForCredits(db(), { userId: user.id, cents: 100, rate: 10, idempotency })),
    );
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    const first = results.find((r) => !r.replayed)!;
    for (const r of results) expect(r.body).toEqual(first.body);
    expect(first.body.balances).toEqual({ usd: 9, credits: 10 });
    expect(await userRow(user.id)).toMatchObject({ balanceCents: 900, credits: 10 });
    expect(await unreconciledUsers()).toEqual([]);
  });
});
