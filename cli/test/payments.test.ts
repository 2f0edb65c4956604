// `keypanel payments list`: the owner's card payments as CSV or JSON, from top-ups paid through the
// Stripe stand-in's checkout page (which delivers the signed webhook to the Worker).
import { inject } from 'vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall, createUser, csvRecords, keypanel, ownerSession, signedInHome, signIn, json, type Schemas } from './helpers';

let home: string;
beforeAll(async () => {
  home = signedInHome(await ownerSession());
});

/** A customer with one paid top-up of $25 and one left pending at $10. */
async function customerWithPayments() {
  const customer = await createUser('user');
  const token = await signIn(customer);
  const paid = await apiCall('POST', '/api/payments/checkout', { token, body: { usdAmount: 25 } });
  expect(paid.status, JSON.stringify(paid.body)).toBe(201);
  const pending = await apiCall('POST', '/api/payments/checkout', { token, body: { usdAmount: 10 } });
  const pay = await fetch(`${inject('stripeStandIn').url}/checkout/${paid.body.id}/pay`, { method: 'POST', redirect: 'manual' });
  expect(pay.status).toBe(303);
  const status = await apiCall('GET', `/api/payments/${paid.body.id}`, { token });
  expect(status.body).toMatchObject({ payment: { status: 'paid' }, balance: 25 });
  return { customer, token, paidId: paid.body.id, pendingId: pending.body.id };
}

describe('keypanel payments list', () => {
  it('lists card payments as CSV and JSON, filtered by customer and status', async () => {
    const { customer, paidId, pendingId } = await customerWithPayments();
    const csv = await keypanel(['payments', 'list', '--user', customer.username, '--format', 'csv'], { home });
    expect(csv.code, csv.stderr).toBe(0);
    const records = csvRecords(csv.stdout);
    expect(records.map((r) => r.id).sort()).toEqual([paidId, pendingId].sort());
    expect(records.find((r) => r.id === paidId)).toMatchObject({
      username: customer.username,
      amount: '25.00',
      status: 'paid',
      refunded: '0.00',
      owed: '0.00',
      disputed: 'false',
    });

    const json = await keypanel(['payments', 'list', '--user', customer.username, '--status', 'pending', '--format', 'json'], { home });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ _id: pendingId, amount: 10, status: 'pending', user: { _id: customer.id, username: customer.username } }),
    ]);
  });

  it('refuses an unknown status before asking, and anyone but the owner', async () => {
    const bad = await keypanel(['payments', 'list', '--status', 'lost'], { home });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('lost');
    const customer = await createUser('user');
    const refused = await keypanel(['payments', 'list', '--format', 'json'], { home: signedInHome(await signIn(customer)) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('permission');
  });
});

describe('keypanel settings for card top-ups', () => {
  it('reads and changes the card top-up settings by their dotted names, checked by the server schema', async () => {
    const before = await keypanel(['settings', 'get', '--format', 'csv'], { home });
    expect(before.code, before.stderr).toBe(0);
    expect(csvRecords(before.stdout)[0]).toMatchObject({
      'payments.cardTopUpsEnabled': 'true',
      'payments.minTopUpUsd': '5',
      'payments.quickTopUpAmounts': '10,25,50,100',
    });
    const quick = await keypanel(['settings', 'get', 'payments.quickTopUpAmounts', '--format', 'json'], { home });
    expect(JSON.parse(quick.stdout)).toEqual([10, 25, 50, 100]);
    try {
      const set = await keypanel(['settings', 'set', 'payments.minTopUpUsd=6', 'payments.quickTopUpAmounts=6,20', '--format', 'json'], {
        home,
      });
      expect(set.code, set.stderr).toBe(0);
      // `set` prints what changed, as saved; `get` the whole group.
      expect(json<Record<string, unknown>>(set.stdout)).toEqual({ 'payments.minTopUpUsd': 6, 'payments.quickTopUpAmounts': '6,20' });
      const after = await keypanel(['settings', 'get', '--format', 'json'], { home });
      expect(json<Schemas['Settings']>(after.stdout).payments).toEqual({
        cardTopUpsEnabled: true,
        minTopUpUsd: 6,
        maxTopUpUsd: 500,
        quickTopUpAmounts: [6, 20],
        firstTopUpHoldHours: 0,
      });
      const refused = await keypanel(['settings', 'set', 'payments.quickTopUpAmounts=2'], { home });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('Quick amounts must lie between the minimum and the maximum');
    } finally {
      await keypanel(['settings', 'set', 'payments.minTopUpUsd=5', 'payments.quickTopUpAmounts=10,25,50,100'], { home });
    }
  });
});
