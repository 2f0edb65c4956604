// Issue 35, point 4: money and counts are JSON numbers, or text of plain decimal digits with at most
// the decimals the field allows (one helper, worker/platform/schemas/amounts.ts). Hex, exponents, spaces,
// signs and empty text are refused with 400, and nothing changes.
import { describe, expect, it } from 'vitest';
import { decimalInput } from '../schemas/amounts';
import { toCents } from '../../modules/billing/schemas/exchange';
import { api, signedInUser } from '../../test/helpers';
import { makeProduct, uniqueTag, userRow } from '../../test/shop-helpers';
import { z } from 'zod';

const NOT_DECIMAL = ['0x10', '1e1', '1E1', ' 5', '5 ', '+5', '-5', '', '0b11', '0o7', 'Infinity', 'NaN', '1_000', '١٢', '5.', '.5'];

describe('decimalInput', () => {
  const whole = decimalInput(z.number({ error: 'n must be a number' }).int('n must be a whole number'));

  it('takes numbers, and text of plain decimal digits, judged by the field’s own schema', () => {
    expect(whole.parse(16)).toBe(16);
    expect(whole.parse('16')).toBe(16);
    expect(whole.parse('007')).toBe(7);
    expect(whole.safeParse('1.5').error?.issues[0].message).toBe('n must be a whole number');
  });

  it.each(NOT_DECIMAL)('refuses %j with the field’s own message', (text) => {
    expect(whole.safeParse(text).error?.issues[0].message).toBe('n must be a number');
  });

  it('toCents reads text by the same rule, with at most two decimals', () => {
    for (const text of [...NOT_DECIMAL, '1.005']) expect(toCents(text), text).toBe(null);
    expect(toCents('16')).toBe(1600);
    expect(toCents('0.1')).toBe(10);
    expect(toCents('10.25')).toBe(1025);
  });
});

describe('through the API', () => {
  it('POST /api/credits/exchange refuses "0x10" and "1e1" and exchanges "16" as $16', async () => {
    const user = await signedInUser('user', { balanceCents: 10_000 });
    for (const usdAmount of ['0x10', '1e1', ' 5', '-1', '+5', '5.001']) {
      const res = await api('POST', '/api/credits/exchange', { token: user.token, body: { usdAmount } });
      expect(res.status, usdAmount).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect(await userRow(user.user.id)).toMatchObject({ balanceCents: 10_000, credits: 0 });
    const ok = await api('POST', '/api/credits/exchange', { token: user.token, body: { usdAmount: '16' } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await userRow(user.user.id)).toMatchObject({ balanceCents: 8400, credits: 160 });
    const creditsToAdd = await api('POST', '/api/credits/exchange', { token: user.token, body: { usdAmount: 1, creditsToAdd: '1e1' } });
    expect(creditsToAdd.status).toBe(400);
  });

  it('product prices and durations, key quantities, funds and credits in JSON bodies are JSON numbers', async () => {
    const owner = await signedInUser('owner');
    const product = (over: Record<string, unknown>) => ({ name: 'Amounts', description: 'x', keyTag: uniqueTag(), ...over });
    for (const bad of [{ baseCreditCost: '0x10' }, { baseCreditCost: '1e1' }, { creditsPerDay: ' 5' }, { maxDays: '+30' }]) {
      const res = await api('POST', '/api/products', { token: owner.token, body: product(bad) });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    // JSON bodies take JSON numbers (as documented); text, even plain digits, is refused there.
    expect((await api('POST', '/api/products', { token: owner.token, body: product({ baseCreditCost: '16' }) })).status).toBe(400);

    const p = await makeProduct({ baseCreditCost: 1, creditsPerDay: 1 });
    const customer = await signedInUser('user', { credits: 1000 });
    const buy = (duration: unknown) => api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: p.id, duration } });
    expect((await buy('0x10')).status).toBe(400);
    expect((await buy('1e1')).status).toBe(400);
    expect((await userRow(customer.user.id))!.credits).toBe(1000);
    const generate = await api('POST', '/api/keys/generate', { token: owner.token, body: { productId: p.id, quantity: '0x2' } });
    expect(generate.status).toBe(400);

    const fund = (amount: unknown, type: 'balance' | 'credits') =>
      api('POST', `/api/admin/users/${customer.user.id}/balance`, { token: owner.token, body: { amount, type } });
    expect((await fund('0x10', 'credits')).status).toBe(400);
    expect((await fund('1e1', 'balance')).status).toBe(400);
    expect((await fund('1.005', 'balance')).status).toBe(400);
    expect((await userRow(customer.user.id))!.credits).toBe(1000);
    expect((await fund(12, 'credits')).status).toBe(200);
    expect((await userRow(customer.user.id))!.credits).toBe(1012);
  });

  it('page and limit in a query are digits only (no longer Number(): "0x10" was page 16)', async () => {
    const owner = await signedInUser('owner');
    for (const q of ['page=0x10', 'page=1e1', 'limit=0x10', 'limit=1e1', 'page=%201', 'page=%2B2', 'limit=-5']) {
      const res = await api('GET', `/api/admin/users?${q}`, { token: owner.token });
      expect(res.status, q).toBe(400);
    }
    expect((await api('GET', '/api/admin/users?page=1&limit=10', { token: owner.token })).status).toBe(200);
  });
});
