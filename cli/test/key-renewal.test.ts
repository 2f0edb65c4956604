// `keypanel keys renew` and `keypanel keys auto-renew`: a customer renews their own key (--mine), the
// owner extends any key free or charged to an account; the same key value runs on.
import { describe, expect, it } from 'vitest';
import { apiCall, createProduct, createUser, json, keypanel, ownerSession, signedInHome, signIn, type Schemas } from './helpers';

const DAY = 86_400_000;

async function customerKey() {
  const product = await createProduct({ baseCreditCost: 5, creditsPerDay: 1 });
  const customer = await createUser('user', { credits: 1_000 });
  const token = await signIn(customer);
  const bought = await apiCall('POST', '/api/keys/purchase', { token, body: { productId: product._id, duration: 10 } });
  expect(bought.status).toBe(201);
  return { customer, home: signedInHome(token), key: bought.body.licenseKey };
}

describe('keypanel keys renew', () => {
  it('renews my own key with my credits, by its value, and the owner extends it free or charged to an account', async () => {
    const { customer, home, key } = await customerKey();
    const mine = await keypanel(['keys', 'renew', key.key, '--days', '30', '--mine', '--format', 'json'], { home });
    expect(mine.code, mine.stderr).toBe(0);
    const answer = json<Schemas['RenewalResponse']>(mine.stdout);
    expect(answer.renewal).toMatchObject({ key: key.key, days: 30, credits: 35, source: 'customer' });
    expect(Date.parse(answer.renewal.expiresAt)).toBe(Date.parse(key.expiryDate!) + 30 * DAY);
    expect(answer.remainingCredits).toBe(1_000 - 15 - 35);
    expect(mine.stderr).toContain(`Renewed ${key.key} for 30 days`);

    const owner = signedInHome(await ownerSession());
    const free = await keypanel(['keys', 'renew', key._id, '--days', '5', '--format', 'json'], { home: owner });
    expect(free.code, free.stderr).toBe(0);
    expect(json<Schemas['RenewalResponse']>(free.stdout).renewal).toMatchObject({ source: 'owner', credits: 0, days: 5 });
    const charged = await keypanel(['keys', 'renew', key._id, '--days', '5', '--charge', customer.email, '--format', 'json'], {
      home: owner,
    });
    expect(charged.code, charged.stderr).toBe(0);
    expect(json<Schemas['RenewalResponse']>(charged.stdout)).toMatchObject({
      renewal: { credits: 10 },
      remainingCredits: 1_000 - 15 - 35 - 10,
    });
  });

  it('refuses what the API refuses, and bad arguments before any request', async () => {
    const { home, key } = await customerKey();
    const tooLong = await keypanel(['keys', 'renew', key.key, '--days', '366', '--mine'], { home });
    expect(tooLong.code).not.toBe(0);
    expect(tooLong.stderr).toContain('Duration must be a whole number of days between 1 and 365');
    const zero = await keypanel(['keys', 'renew', key.key, '--days', '0', '--mine'], { home });
    expect(zero.code).toBe(2);
    const both = await keypanel(['keys', 'renew', key.key, '--days', '1', '--mine', '--charge', 'someone'], { home });
    expect(both.code).toBe(2);
  });
});

describe('keypanel keys auto-renew', () => {
  it('switches auto-renewal of my key on and off', async () => {
    const { home, key } = await customerKey();
    const on = await keypanel(['keys', 'auto-renew', key.key, '--days', '30', '--format', 'json'], { home });
    expect(on.code, on.stderr).toBe(0);
    expect(json<Schemas['AutoRenewResponse']>(on.stdout)).toMatchObject({ autoRenewDays: 30 });
    const off = await keypanel(['keys', 'auto-renew', key.key, '--off', '--format', 'json'], { home });
    expect(json<Schemas['AutoRenewResponse']>(off.stdout)).toMatchObject({ autoRenewDays: null });
    const neither = await keypanel(['keys', 'auto-renew', key.key], { home });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('Give either --days <n> or --off');
  });
});

describe('keypanel products --expiry-model', () => {
  it('sets the licence model, and an update of another field keeps it', async () => {
    const home = signedInHome(await ownerSession());
    const product = await createProduct();
    const set = await keypanel(['products', 'update', product.keyTag, '--expiry-model', 'perpetual-fallback', '--format', 'json'], {
      home,
    });
    expect(set.code, set.stderr).toBe(0);
    expect(json<Schemas['Product']>(set.stdout).expiryModel).toBe('perpetual-fallback');
    const other = await keypanel(['products', 'update', product.keyTag, '--max-days', '100', '--format', 'json'], { home });
    expect(json<Schemas['Product']>(other.stdout)).toMatchObject({ expiryModel: 'perpetual-fallback', maxDays: 100 });
    const bad = await keypanel(['products', 'update', product.keyTag, '--expiry-model', 'forever'], { home });
    expect(bad.code).toBe(2);
  });
});
