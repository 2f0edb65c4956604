// The request path's budget (docs/performance.md has the same table with the reasons): per request,
// the D1 round trips, the statements that write, and the KV reads and writes. A page read is one D1
// round trip and writes nothing, so a replica can serve it; a purchase, an exchange, a generation or
// an activation is one round trip to the primary, all or nothing. Each request is sent once to warm
// what an isolate keeps (a product's price, the shop's counts), then measured.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, signedInUser, TEST_PASSWORD } from './helpers';
import { instrumentedWorker, type RequestCost } from './instrumented';
import { makeProduct } from './shop-helpers';

const GUARD = /^INSERT INTO caller_guard\b/;
const CHECK = /^SELECT CASE\s+WHEN NOT EXISTS \(SELECT 1 FROM users WHERE id = \?3 AND is_active = 1\) THEN 'CALLER_INACTIVE'/;

type Budget = {
  roundTrips: number;
  writes: number;
  kvReads: number;
  kvWrites?: number;
  session: 'first-unconstrained' | 'first-primary';
  /** Statements in the round trip, where the budget holds them too. */
  statements?: number;
};
type Call = { method: string; path: string; body?: unknown; as: 'user' | 'reseller' | 'owner' | 'apiToken' | 'none'; budget: Budget };

const read = (roundTrips = 1, kvReads = 0): Budget => ({ roundTrips, writes: 0, kvReads, session: 'first-unconstrained' });
const write = (writes: number, kvReads = 0): Budget => ({ roundTrips: 1, writes, kvReads, session: 'first-primary' });

let shop: {
  productId: string;
  keyId: string;
  key: string;
  tokens: Record<'user' | 'reseller' | 'owner' | 'apiToken', string>;
  customerId: string;
};

beforeAll(async () => {
  const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
  const user = await signedInUser('user', { credits: 100_000, balanceCents: 1_000_000 });
  const reseller = await signedInUser('reseller', { credits: 100_000 });
  const owner = await signedInUser('owner');
  const bought = await api('POST', '/api/keys/purchase', { token: user.token, body: { productId: product.id, duration: 30 } });
  const apiToken = await api('POST', '/api/users/api-tokens', {
    token: owner.token,
    body: { name: 'budget', role: 'owner', currentPassword: TEST_PASSWORD },
  });
  shop = {
    productId: product.id,
    keyId: bought.body.licenseKey._id,
    key: bought.body.licenseKey.key,
    customerId: user.user.id,
    tokens: { user: user.token, reseller: reseller.token, owner: owner.token, apiToken: apiToken.body.token },
  };
});

const calls = (): Call[] => [
  // Page reads: one D1 round trip, which checks the caller too; nothing from KV.
  { method: 'GET', path: '/api/users/profile', as: 'user', budget: read() },
  { method: 'GET', path: '/api/users/my-keys', as: 'user', budget: read() },
  { method: 'GET', path: '/api/users/my-keys?search=a', as: 'user', budget: read() },
  { method: 'GET', path: '/api/users/stats', as: 'user', budget: read() },
  { method: 'GET', path: '/api/users/security', as: 'user', budget: read() },
  { method: 'GET', path: '/api/users/security-log', as: 'user', budget: read() },
  { method: 'GET', path: '/api/products', as: 'user', budget: read() },
  // Two statements: the caller's check, and the page with its total (the shop's counts).
  { method: 'GET', path: '/api/admin/keys?status=used', as: 'owner', budget: { ...read(), statements: 2 } },
  { method: 'GET', path: '/api/admin/keys?search=TEST', as: 'owner', budget: read() },
  { method: 'GET', path: '/api/admin/keys', as: 'reseller', budget: read() },
  // Two statements: the caller's check, and every figure of the owner's Overview, its counts by status and by role too.
  { method: 'GET', path: '/api/admin/stats', as: 'owner', budget: { ...read(), statements: 2 } },
  { method: 'GET', path: '/api/admin/users', as: 'owner', budget: read() },
  { method: 'GET', path: '/api/admin/audit-log', as: 'owner', budget: read() },
  { method: 'GET', path: '/api/admin/analytics?days=30', as: 'owner', budget: read() },
  { method: 'GET', path: '/api/admin/keys?status=used', as: 'apiToken', budget: read() },
  { method: 'GET', path: '/api/payments', as: 'user', budget: read() },
  { method: 'GET', path: '/api/admin/payments?status=paid', as: 'owner', budget: read() },
  // Reads whose answer is the settings (kept by the isolate for a few seconds): the caller's check is their one round trip.
  { method: 'GET', path: '/api/settings/public', as: 'user', budget: read(1) },
  { method: 'GET', path: '/api/credits/exchange-rate', as: 'user', budget: read(1) },
  // The address's state and what is owed or held: one read, the caller's check in it.
  { method: 'GET', path: '/api/payments/options', as: 'user', budget: read() },
  // Writes: one round trip to the primary, all or nothing (the caller guard opens it). No endpoint
  // subscribes to anything here, so the webhook outbox statements are left out, the guard asserting
  // that none subscribes (platform/db/session.ts; webhooks.test.ts holds the events when one does).
  {
    method: 'POST',
    path: '/api/keys/purchase',
    as: 'user',
    body: () => ({ productId: shop.productId, duration: 30 }),
    // Two statements: the guard and the key (its ledger row, debit and figures by trigger).
    budget: { ...write(1), statements: 2 },
  },
  { method: 'POST', path: '/api/credits/exchange', as: 'user', body: { usdAmount: 1 }, budget: write(2) },
  // A renewal reads the key, its price and the payer's credits first (a clear refusal before any
  // write), then writes in one batch: its key_renewals row, the key's expiry, the ledger row (the
  // debit).
  {
    method: 'POST',
    path: '/api/users/my-keys/{keyId}/renew',
    as: 'user',
    body: { days: 1 },
    budget: { roundTrips: 2, writes: 3, kvReads: 0, session: 'first-primary' },
  },
  {
    method: 'PUT',
    path: '/api/users/my-keys/{keyId}/auto-renew',
    as: 'user',
    body: { days: 1 },
    budget: { roundTrips: 2, writes: 1, kvReads: 0, session: 'first-primary' },
  },
  { method: 'POST', path: '/api/keys/generate', as: 'owner', body: () => ({ productId: shop.productId, quantity: 5 }), budget: write(2) },
  // The licensing API: no session, and the settings from the isolate's copy.
  {
    method: 'POST',
    path: '/api/v1/licenses/validate',
    as: 'none',
    body: () => ({ key: shop.key, deviceFingerprint: 'budget-device' }),
    // One statement: the key, its device and the address's count of unknown keys together. On the
    // primary: the offline token it signs must never come from a replica behind a revocation (issue 42).
    budget: { roundTrips: 1, writes: 0, kvReads: 0, session: 'first-primary', statements: 1 },
  },
  {
    method: 'POST',
    path: '/api/v1/licenses/activate',
    as: 'none',
    body: () => ({ key: shop.key, deviceFingerprint: 'budget-device' }),
    // Four statements: the key with its devices, the conditional insert, what the insert changed, the webhook outbox.
    budget: { roundTrips: 1, writes: 2, kvReads: 0, session: 'first-primary', statements: 4 },
  },
  // A heartbeat renews the device's lease (a node-locked device's lastUsed) in the batch that reads the key.
  {
    method: 'POST',
    path: '/api/v1/licenses/heartbeat',
    as: 'none',
    body: () => ({ key: shop.key, deviceFingerprint: 'budget-device' }),
    budget: { roundTrips: 1, writes: 1, kvReads: 0, session: 'first-primary' },
  },
];

describe('the round-trip budget', () => {
  it.each(calls().map((call) => [`${call.method} ${call.path} as ${call.as}`, call] as const))('%s', async (_, call) => {
    {
      const cost: RequestCost = await instrumentedWorker().warmCost((fetch) => {
        const body = typeof call.body === 'function' ? (call.body as () => unknown)() : call.body;
        return api(call.method, call.path.replace('{keyId}', shop.keyId), {
          token: call.as === 'none' ? undefined : shop.tokens[call.as],
          body,
          fetch,
        });
      });
      const measured = {
        roundTrips: cost.roundTrips.length,
        writes: cost.writes.length,
        kvReads: cost.kvReads,
        kvWrites: cost.kvWrites,
        session: cost.sessions.join(','),
        ...(call.budget.statements === undefined ? {} : { statements: cost.roundTrips.reduce((n, trip) => n + trip.length, 0) }),
      };
      expect(measured, JSON.stringify(cost.roundTrips, null, 1)).toEqual({ kvWrites: 0, ...call.budget });
      // A signed-in call's identity costs one statement in each of its round trips, and nothing before them.
      if (call.as !== 'none') {
        for (const trip of cost.roundTrips) expect(trip[0]).toMatch(call.budget.session === 'first-primary' ? GUARD : CHECK);
      }
    }
  });
});
