// A reseller's statistics and customers from a terminal: their own, in CSV and JSON; the owner's
// view of any reseller; and another reseller refused.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  createProduct,
  createUser,
  csvRecords,
  json,
  keypanel,
  ownerSession,
  signedInHome,
  signIn,
  unique,
  type Schemas,
} from './helpers';

let reseller: Awaited<ReturnType<typeof createUser>>;
let customer: { id: string; username: string };
let resellerHome: string;

beforeAll(async () => {
  const owner = await ownerSession();
  const product = await createProduct({ baseCreditCost: 40, creditsPerDay: 0 });
  const tier = await apiCall('POST', '/api/admin/reseller-tiers', {
    token: owner,
    body: { name: unique('CLI tier '), discountPercent: 0, commissionPercent: 25 },
  });
  reseller = await createUser('reseller');
  await apiCall('PUT', `/api/admin/resellers/${reseller.id}/tier`, { token: owner, body: { tierId: tier.body._id } });
  const buyer = await createUser('user', { credits: 100 });
  await apiCall('PUT', `/api/admin/users/${buyer.id}/reseller`, { token: owner, body: { resellerId: reseller.id } });
  const bought = await apiCall('POST', '/api/keys/purchase', { token: await signIn(buyer), body: { productId: product._id, duration: 1 } });
  expect(bought.status).toBe(201);
  customer = { id: buyer.id, username: buyer.username };
  resellerHome = signedInHome(await signIn(reseller));
});

describe('keypanel reseller', () => {
  it('stats: the days as CSV with the totals and the referral link on stderr, the whole answer as JSON', async () => {
    const csv = await keypanel(['reseller', 'stats', '--days', '7', '--format', 'csv'], { home: resellerHome });
    expect(csv.code, csv.stderr).toBe(0);
    const rows = csvRecords(csv.stdout);
    expect(rows).toHaveLength(7);
    expect(rows[6]).toEqual({ date: new Date().toISOString().slice(0, 10), earned: '10', spent: '0' });
    expect(csv.stderr).toContain('earned 10, spent 0 credits');
    expect(csv.stderr).toMatch(/referral link http:\/\/[^ ]+\/register\?ref=[0-9A-F]{10}/);

    const byProduct = await keypanel(['reseller', 'stats', '--by', 'product', '--format', 'csv'], { home: resellerHome });
    expect(csvRecords(byProduct.stdout)).toEqual([expect.objectContaining({ earned: '10', customerPurchases: '1' })]);

    const whole = await keypanel(['reseller', 'stats', '--format', 'json'], { home: resellerHome });
    const stats = json<Schemas['ResellerStats']>(whole.stdout);
    expect(stats.reseller._id).toBe(reseller.id);
    expect(stats.allTime).toMatchObject({ earned: 10, customers: 1, customerPurchases: 1 });
    expect((await keypanel(['reseller', 'stats', '--days', '5'], { home: resellerHome })).code).toBe(2);
  });

  it('customers: every customer with their purchases, in CSV and JSON; the owner names the reseller', async () => {
    const csv = await keypanel(['reseller', 'customers', '--format', 'csv'], { home: resellerHome });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csvRecords(csv.stdout)).toEqual([
      expect.objectContaining({ id: customer.id, username: customer.username, purchases: '1', creditsSpent: '40', commissionEarned: '10' }),
    ]);
    const asOwner = await keypanel(['reseller', 'customers', '--reseller', reseller.username, '--format', 'json'], {
      home: signedInHome(await ownerSession()),
    });
    expect(asOwner.code, asOwner.stderr).toBe(0);
    expect(json<Schemas['ResellerCustomer'][]>(asOwner.stdout).map((c) => c._id)).toEqual([customer.id]);
  });

  it('another reseller reads none of it: naming one is refused, and their own list is empty', async () => {
    const other = await createUser('reseller');
    const home = signedInHome(await signIn(other));
    const refused = await keypanel(['reseller', 'customers', '--reseller', reseller.id, '--format', 'json'], { home });
    expect(refused.code).toBe(1);
    expect(refused.stdout).not.toContain(customer.id);
    const own = await keypanel(['reseller', 'customers', '--format', 'json'], { home });
    expect(json(own.stdout)).toEqual([]);
  });
});
