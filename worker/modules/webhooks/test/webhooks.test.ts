// Outbound webhooks end to end: the API, the outbox in each change's batch, the real queue and its
// consumer in this Worker, and a real HTTP receiver on 127.0.0.1 (webhook-receiver.ts) that checks
// every signature with the `standardwebhooks` package.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { users, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, webhookEvents } from '../../../platform/db/schema';
import { purchaseKey } from '../../keys/purchase';
import { runScheduledJobs } from '../../../scheduled';
import { attemptDelivery, DISABLE_AFTER_MS, GIVE_UP_AFTER_MS, MAX_ATTEMPTS, utf8Prefix } from '../delivery';
import { expireKeys } from '../../keys/key-lifecycle';
import { balanceToppedUpEvent, dispatchCommitted, eventIdsIn } from '../outbox';
import { openRequestD1 } from '../../../platform/db/session';
import { requestDb, runBatch, SqlStatement } from '../../../platform/db/client';
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_ATTEMPTS_KEPT, WEBHOOK_EVENT_TYPES, type WebhookDelivery } from '../schemas';
import { TEST_PASSWORD, TEST_SETTINGS, api, db, openSessionAt, signedInUser, uniqueName } from '../../../test/helpers';
import { OWNER_ONLY, roleMatrix, tokenFor } from '../../../test/role-matrix';
import { deliver, paidSession, signedEvent, workerWith } from '../../../test/payment-helpers';
import { makeProduct } from '../../../test/shop-helpers';
import { instrumentedWorker } from '../../../test/instrumented';

const receiver = inject('webhookReceiver');
type Received = { headers: Record<string, string>; body: string; at: number };
/** The parts of an event's data these tests read (each event type carries some of them). */
type EventData = {
  licenseKey: { _id: string; key: string; status: string; purchasedBy: unknown };
  activation: { deviceFingerprint: string; leaseExpiresAt?: string | null };
  product: { _id: string };
  user: { _id: string; username: string };
  [field: string]: unknown;
};
type Event = { id: string; type: string; timestamp: string; data: EventData };

let ownerToken: string;
const made: string[] = [];

beforeAll(async () => {
  ownerToken = await tokenFor('owner');
});

// Each test's endpoints go with it (a retry still queued then finds nothing to send), so they never
// receive another test's events, nor other files' once this file is done.
afterEach(async () => {
  for (const id of made.splice(0)) await db().delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
});

async function addEndpoint(mode: string, events: readonly string[] = WEBHOOK_EVENT_TYPES) {
  const name = uniqueName('hook');
  const res = await api('POST', '/api/webhooks', {
    token: ownerToken,
    body: { url: `${receiver}/hook/${name}?mode=${mode}`, events, description: `Test ${mode}`, currentPassword: TEST_PASSWORD },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  made.push(res.body.id);
  return { id: res.body.id, secret: res.body.secret, name };
}

const receivedBy = async (name: string): Promise<Received[]> => (await fetch(`${receiver}/received/${name}`)).json();

/** Waits for `name` to have received what `match` accepts; verifies each signature on the way. */
async function waitFor(
  hook: { name: string; secret: string },
  match: (e: Event) => boolean,
  timeoutMs = 8_000,
): Promise<{ event: Event; request: Received }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    for (const request of await receivedBy(hook.name)) {
      const event = new Webhook(hook.secret).verify(request.body, request.headers) as Event;
      if (match(event)) return { event, request };
    }
    if (Date.now() > until) throw new Error(`${hook.name} received nothing matching within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const deliveriesOf = (endpointId: string) =>
  db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)).all();
const attemptRowsOf = (deliveryId: string) =>
  db().select().from(webhookDeliveryAttempts).where(eq(webhookDeliveryAttempts.deliveryId, deliveryId)).all();
/** The deliveries list's first page, as the API answers it. */
const listedDeliveries = async (endpointId: string): Promise<WebhookDelivery[]> => {
  const res = await api('GET', `/api/webhooks/${endpointId}/deliveries`, { token: ownerToken });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.deliveries;
};

describe('endpoints', () => {
  roleMatrix('GET /api/webhooks', { request: () => ({ method: 'GET', path: '/api/webhooks' }), state: () => null }, OWNER_ONLY);
  const secretOf = async (id: string) =>
    (await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get())?.secret ?? null;
  const target = async () => {
    const res = await api('POST', '/api/webhooks', {
      token: ownerToken ?? (await tokenFor('owner')),
      body: { url: 'https://example.com/matrix', events: ['key.revoked'], currentPassword: TEST_PASSWORD },
    });
    await db().update(webhookEndpoints).set({ enabled: false }).where(eq(webhookEndpoints.id, res.body.id));
    made.push(res.body.id);
    return res.body.id;
  };
  roleMatrix(
    'POST /api/webhooks/:id/rotate-secret',
    {
      request: async () => ({
        method: 'POST',
        path: `/api/webhooks/${await target()}/rotate-secret`,
        body: { currentPassword: TEST_PASSWORD },
      }),
      state: async (r) => secretOf(r.path.split('/')[3]),
    },
    OWNER_ONLY,
  );
  roleMatrix(
    'DELETE /api/webhooks/:id',
    {
      request: async () => ({ method: 'DELETE', path: `/api/webhooks/${await target()}` }),
      state: async (r) => secretOf(r.path.split('/')[3]),
    },
    OWNER_ONLY,
  );
  roleMatrix(
    'POST /api/webhooks',
    {
      request: () => ({
        method: 'POST',
        path: '/api/webhooks',
        body: { url: 'https://example.com/hooks', events: ['key.purchased'], currentPassword: TEST_PASSWORD },
      }),
      state: async () => (await db().select({ id: webhookEndpoints.id }).from(webhookEndpoints)).length,
      // Removed at once: nothing should be delivered to example.com.
      allowed: async (res) => void (await db().delete(webhookEndpoints).where(eq(webhookEndpoints.id, res.body.id))),
    },
    OWNER_ONLY,
  );

  it('creates an endpoint with its secret shown once, sealed at rest, and edits, rotates and deletes it', async () => {
    const res = await api('POST', '/api/webhooks', {
      token: ownerToken,
      body: {
        url: 'https://example.com/hooks',
        events: ['key.purchased', 'key.purchased'],
        description: 'CRM',
        currentPassword: TEST_PASSWORD,
      },
    });
    expect(res.status).toBe(201);
    made.push(res.body.id);
    expect(res.body).toMatchObject({ url: 'https://example.com/hooks', events: ['key.purchased'], enabled: true, description: 'CRM' });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, res.body.id)).get();
    expect(row!.secret).toMatch(/^v1\./);
    expect(row!.secret).not.toContain(res.body.secret.slice(6));
    const list = await api('GET', '/api/webhooks', { token: ownerToken });
    const listed = list.body.endpoints.find((e: { id: string }) => e.id === res.body.id);
    expect(listed).toMatchObject({
      url: 'https://example.com/hooks',
      health: { delivered24h: 0, failed24h: 0, pending: 0, lastStatus: null },
    });
    expect(JSON.stringify(list.body)).not.toContain('secret');

    const patched = await api('PATCH', `/api/webhooks/${res.body.id}`, {
      token: ownerToken,
      body: { enabled: false, events: ['key.revoked'] },
    });
    expect(patched.body).toMatchObject({ enabled: false, events: ['key.revoked'], disabledReason: null });
    // A new secret takes the deliveries over: proof, and never through an API token.
    const unproven = await api('POST', `/api/webhooks/${res.body.id}/rotate-secret`, { token: ownerToken, body: {} });
    expect(unproven.status).toBe(403);
    expect(unproven.body.code).toBe('REAUTH_REQUIRED');
    expect(await secretOf(res.body.id)).toBe(row!.secret);
    const rotated = await api('POST', `/api/webhooks/${res.body.id}/rotate-secret`, {
      token: ownerToken,
      body: { currentPassword: TEST_PASSWORD },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(res.body.secret);
    expect((await api('DELETE', `/api/webhooks/${res.body.id}`, { token: ownerToken })).status).toBe(200);
    expect((await api('GET', `/api/webhooks/${res.body.id}`, { token: ownerToken })).status).toBe(404);
  });

  it.each([
    [{ url: 'http://example.com/hooks', events: ['key.purchased'] }, 'URL must use https (http is accepted for localhost only)'],
    [{ url: 'ftp://example.com/hooks', events: ['key.purchased'] }, 'URL must use https (http is accepted for localhost only)'],
    [{ url: 'https://user:pw@example.com/', events: ['key.purchased'] }, 'URL must not contain a user name or password'],
    [{ url: 'not a url', events: ['key.purchased'] }, 'URL must be a valid absolute URL, like https://example.com/webhooks'],
    [{ url: 'https://example.com/', events: [] }, 'Choose at least one event'],
    [{ url: 'https://example.com/', events: ['key.stolen'] }, expect.stringContaining('Events must be among') as unknown],
    [{ url: 'https://example.com/', events: ['webhook.test'] }, expect.stringContaining('Events must be among') as unknown],
  ])('refuses %j with a 400', async (body, message) => {
    const before = (await db().select().from(webhookEndpoints)).length;
    const res = await api('POST', '/api/webhooks', { token: ownerToken, body: { ...body, currentPassword: TEST_PASSWORD } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect((await db().select().from(webhookEndpoints)).length).toBe(before);
  });

  it.each([
    ['https://127.0.0.1/hooks', 'URL must name a public host, not an IP address'],
    ['https://2130706433/hooks', 'URL must name a public host, not an IP address'],
    ['https://10.0.0.8/hooks', 'URL must name a public host, not an IP address'],
    ['https://169.254.169.254/latest', 'URL must name a public host, not an IP address'],
    ['https://[::1]/hooks', 'URL must name a public host, not an IP address'],
    ['https://[fd00::1]/hooks', 'URL must name a public host, not an IP address'],
    ['https://localhost/hooks', 'URL must name a public host (not localhost or an internal name)'],
    ['https://api.localhost/hooks', 'URL must name a public host (not localhost or an internal name)'],
    ['https://intranet/hooks', 'URL must name a public host (not localhost or an internal name)'],
    ['https://printer.local/hooks', 'URL must name a public host (not localhost or an internal name)'],
    ['https://billing.internal/hooks', 'URL must name a public host (not localhost or an internal name)'],
    ['https://nas.home.arpa./hooks', 'URL must name a public host (not localhost or an internal name)'],
    ['http://127.0.0.1:8080/hooks', 'URL must use https'],
  ])('on a deployed Worker, refuses %s with a 400', async (url, message) => {
    const deployed = workerWith({ WEBHOOKS_ALLOW_LOOPBACK_HTTP: undefined, LOCAL_DEVELOPMENT: undefined });
    const before = (await db().select().from(webhookEndpoints)).length;
    const res = await api('POST', '/api/webhooks', {
      token: ownerToken,
      body: { url, events: ['key.purchased'], currentPassword: TEST_PASSWORD },
      fetch: deployed,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect((await db().select().from(webhookEndpoints)).length).toBe(before);
  });

  it('never passes the endpoint limit, even when endpoints are added at once', async () => {
    // Only this file makes endpoints, one test at a time, and each test removes its own.
    const room = MAX_WEBHOOK_ENDPOINTS - (await db().select().from(webhookEndpoints)).length;
    // An owner without a password, just signed in: that is the proof, so no password check throttles the burst.
    const { user } = await signedInUser('owner');
    await db().update(users).set({ passwordHash: null }).where(eq(users.id, user.id));
    const fresh = await openSessionAt(user, Date.now());
    const answers = await Promise.all(
      Array.from({ length: room + 4 }, () =>
        api('POST', '/api/webhooks', { token: fresh, body: { url: 'https://example.com/many', events: ['user.registered'] } }),
      ),
    );
    const created = answers.filter((a) => a.status === 201).map((a) => a.body.id);
    for (const id of created) await db().delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(created).toHaveLength(room);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(4);
    expect(answers.find((a) => a.status === 409)!.body).toEqual({
      code: 'CONFLICT',
      message: `A shop can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`,
    });
  });

  it('answers 404 for unknown endpoints and deliveries, 400 for an empty patch', async () => {
    expect((await api('PATCH', '/api/webhooks/0123456789abcdef01234567', { token: ownerToken, body: { enabled: true } })).status).toBe(404);
    expect((await api('POST', '/api/webhooks/0123456789abcdef01234567/test', { token: ownerToken })).status).toBe(404);
    expect((await api('GET', '/api/webhooks/0123456789abcdef01234567/deliveries', { token: ownerToken })).status).toBe(404);
    expect((await api('POST', '/api/webhooks/deliveries/msg_0123456789abcdef01234567/redeliver', { token: ownerToken })).status).toBe(404);
    const hook = await addEndpoint('ok', ['key.purchased']);
    expect((await api('PATCH', `/api/webhooks/${hook.id}`, { token: ownerToken, body: {} })).status).toBe(400);
  });
});

describe('delivery', () => {
  it('delivers a verified key.purchased within seconds of a purchase, and shows it in the deliveries', async () => {
    const hook = await addEndpoint('ok');
    const product = await makeProduct();
    const { token } = await signedInUser('user', { credits: 1000 });
    const bought = await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } });
    expect(bought.status).toBe(201);
    const keyId = bought.body.licenseKey._id;
    const { event, request } = await waitFor(hook, (e) => e.type === 'key.purchased' && e.data.licenseKey._id === keyId);
    expect(event.data.licenseKey).toMatchObject({
      key: bought.body.licenseKey.key,
      status: 'used',
      product: { _id: product.id, name: product.name },
      purchasePrice: 110,
    });
    expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(request.headers['webhook-signature']).toMatch(/^v1,/);
    // A signature under another secret does not verify.
    expect(() => new Webhook(`whsec_${btoa('x'.repeat(32))}`).verify(request.body, request.headers)).toThrow();

    const page = await api('GET', `/api/webhooks/${hook.id}/deliveries?limit=100`, { token: ownerToken });
    const delivery = page.body.deliveries.find((d: { id: string }) => d.id === request.headers['webhook-id']);
    await expect
      .poll(async () => (await deliveriesOf(hook.id)).find((d) => d.id === delivery!.id)?.status, { timeout: 5_000 })
      .toBe('delivered');
  });

  it('sends reseller.commission_earned when a referred customer’s purchase earns their reseller a commission, and only then', async () => {
    const hook = await addEndpoint('ok', ['reseller.commission_earned']);
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 0 });
    const tier = await api('POST', '/api/admin/reseller-tiers', {
      token: ownerToken,
      body: { name: uniqueName('Hook tier '), discountPercent: 0, commissionPercent: 12 },
    });
    const reseller = await signedInUser('reseller');
    await api('PUT', `/api/admin/resellers/${reseller.user.id}/tier`, { token: ownerToken, body: { tierId: tier.body._id } });
    const customer = await signedInUser('user', { credits: 1000 });
    await api('PUT', `/api/admin/users/${customer.user.id}/reseller`, { token: ownerToken, body: { resellerId: reseller.user.id } });
    const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 1 } });
    expect(bought.status).toBe(201);
    const { event } = await waitFor(
      hook,
      (e) => e.type === 'reseller.commission_earned' && e.data.licenseKey._id === bought.body.licenseKey._id,
    );
    expect(event.data).toMatchObject({
      reseller: { _id: reseller.user.id, username: reseller.username },
      customer: { _id: customer.user.id, username: customer.username },
      credits: 12,
      licenseKey: { key: bought.body.licenseKey.key, purchasePrice: 100 },
    });
    // A purchase that earns nobody anything sends nothing.
    const loner = await signedInUser('user', { credits: 1000 });
    const plain = await api('POST', '/api/keys/purchase', { token: loner.token, body: { productId: product.id, duration: 1 } });
    expect(plain.status).toBe(201);
    const events = await db().select().from(webhookEvents).where(eq(webhookEvents.type, 'reseller.commission_earned')).all();
    expect(events.filter((e) => String(e.data).includes(plain.body.licenseKey._id))).toEqual([]);
    expect(events.filter((e) => String(e.data).includes(bought.body.licenseKey._id))).toHaveLength(1);
  });

  it('sends the licensing events of floating seats, device swaps and trials', async () => {
    const hook = await addEndpoint('ok', ['license.seat_released', 'license.device_replaced', 'license.trial_started']);
    const floating = await makeProduct({ licenseModel: 'floating', maxActivations: 1, trialDays: 3 });
    const locked = await makeProduct({ maxActivations: 1, swapLimit: 2 });
    const { token } = await signedInUser('user', { credits: 1000 });
    const buy = async (productId: string) =>
      (await api('POST', '/api/keys/purchase', { token, body: { productId, duration: 1 } })).body.licenseKey;
    const seat = await buy(floating.id);
    const license = (path: string, body: object) => api('POST', `/api/v1/licenses/${path}`, { body });
    await license('activate', { key: seat.key, deviceFingerprint: 'seat-device-1' });
    expect((await license('deactivate', { key: seat.key, deviceFingerprint: 'seat-device-1' })).body.code).toBe('SEAT_RELEASED');
    const released = await waitFor(hook, (e) => e.type === 'license.seat_released' && e.data.licenseKey._id === seat._id);
    expect(released.event.data.activation).toMatchObject({ deviceFingerprint: 'seat-device-1' });
    expect(typeof released.event.data.activation.leaseExpiresAt).toBe('string');

    const bound = await buy(locked.id);
    await license('activate', { key: bound.key, deviceFingerprint: 'old-device-1', deviceInfo: { model: 'Old' } });
    const refused = await license('activate', { key: bound.key, deviceFingerprint: 'new-device-1' });
    const replaceDeviceId = (refused.body as unknown as { devices: Array<{ id: string }> }).devices[0].id;
    expect((await license('replace-device', { key: bound.key, deviceFingerprint: 'new-device-1', replaceDeviceId })).body.code).toBe(
      'DEVICE_REPLACED',
    );
    const replaced = await waitFor(hook, (e) => e.type === 'license.device_replaced' && e.data.licenseKey._id === bound._id);
    expect(replaced.event.data).toMatchObject({
      replaced: { _id: replaceDeviceId, deviceFingerprint: 'old-device-1', deviceInfo: { model: 'Old' } },
      replacedBy: { deviceFingerprint: 'new-device-1' },
    });

    const trial = await license('trial', { keyTag: floating.keyTag, deviceFingerprint: 'trial-device-1' });
    expect(trial.body.code).toBe('TRIAL_STARTED');
    const started = await waitFor(
      hook,
      (e) => e.type === 'license.trial_started' && e.data.activation.deviceFingerprint === 'trial-device-1',
    );
    expect(started.event.data.licenseKey.key).toBe((trial.body as unknown as { license: { key: string } }).license.key);
    // Only what the endpoint subscribed to.
    expect((await receivedBy(hook.name)).length).toBe(3);
  });

  it('sends license.offline_activated when an air-gapped request is turned into a response, and nothing for a refused one', async () => {
    const hook = await addEndpoint('ok', ['license.offline_activated']);
    const product = await makeProduct({ maxActivations: 1 });
    const { token } = await signedInUser('user', { credits: 1000 });
    const key = (await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } })).body.licenseKey;
    const request = (fingerprint: string) => ({
      type: 'keypanel.offline-activation-request' as const,
      key: key.key,
      deviceFingerprint: fingerprint,
      nonce: crypto.randomUUID().replace(/-/g, ''),
      deviceKey: 'A'.repeat(43),
    });
    const first = request('airgap-device-1');
    expect((await api('POST', '/api/users/my-keys/offline-activations', { token, body: first })).status).toBe(200);
    const sent = await waitFor(hook, (e) => e.type === 'license.offline_activated' && e.data.licenseKey._id === key._id);
    expect(sent.event.data).toMatchObject({
      activation: { deviceFingerprint: 'airgap-device-1' },
      offline: { nonce: first.nonce },
    });
    // The key is full: the second device is refused, and no event says otherwise.
    const full = await api('POST', '/api/users/my-keys/offline-activations', { token, body: request('airgap-device-2') });
    expect(JSON.parse(full.body.answer)).toMatchObject({ code: 'DEVICE_LIMIT_REACHED' });
    const events = await db().select().from(webhookEvents).where(eq(webhookEvents.type, 'license.offline_activated')).all();
    expect(events.filter((e) => String(e.data).includes(key._id))).toHaveLength(1);
  });

  it('sends each event type to its subscribers', async () => {
    const hook = await addEndpoint('ok');
    const product = await makeProduct({ maxActivations: 2 });
    const { user, token } = await signedInUser('user', { credits: 1000, balanceCents: 1000 });
    const bought = (await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } })).body.licenseKey;
    const generated = (await api('POST', '/api/keys/generate', { token: ownerToken, body: { productId: product.id, quantity: 2 } })).body;
    const generatedIds = generated.keys.map((k: { _id: string }) => k._id);
    await api('POST', '/api/v1/licenses/activate', { body: { key: bought.key, deviceFingerprint: 'device-1' } });
    await api('POST', '/api/v1/licenses/deactivate', { body: { key: bought.key, deviceFingerprint: 'device-1' } });
    await api('PUT', `/api/keys/${bought._id}/revoke`, { token: ownerToken, body: { reason: 'Chargeback' } });
    await api('DELETE', `/api/admin/keys/${generatedIds[0]}`, { token: ownerToken });
    await api('POST', '/api/credits/exchange', { token, body: { usdAmount: 1 } });
    const username = uniqueName('newcomer');
    const registered = await api('POST', '/api/auth/register', {
      body: { username, email: `${username}@example.com`, password: TEST_PASSWORD },
    });
    expect(registered.status).toBe(201);

    const purchased = await waitFor(hook, (e) => e.type === 'key.purchased' && e.data.licenseKey._id === bought._id);
    expect(purchased.event.data.licenseKey.purchasedBy).toEqual({ _id: user.id, username: user.username });
    const gen = await waitFor(hook, (e) => e.type === 'key.generated' && e.data.product._id === product.id);
    expect(gen.event.data).toMatchObject({
      quantity: 2,
      keys: generated.keys.map((k: { _id: string; key: string }) => ({ _id: k._id, key: k.key })),
    });
    const activated = await waitFor(hook, (e) => e.type === 'license.activated' && e.data.licenseKey._id === bought._id);
    expect(activated.event.data.activation).toMatchObject({ deviceFingerprint: 'device-1' });
    await waitFor(
      hook,
      (e) => e.type === 'license.deactivated' && e.data.activation.deviceFingerprint === 'device-1' && e.data.licenseKey._id === bought._id,
    );
    const revoked = await waitFor(hook, (e) => e.type === 'key.revoked' && e.data.licenseKey._id === bought._id);
    expect(revoked.event.data.licenseKey).toMatchObject({ status: 'revoked', revokeReason: 'Chargeback' });
    await waitFor(hook, (e) => e.type === 'key.deleted' && e.data.licenseKey._id === generatedIds[0]);
    const exchanged = await waitFor(hook, (e) => e.type === 'balance.exchanged' && e.data.user._id === user.id);
    expect(exchanged.event.data).toMatchObject({ usdAmount: 1, balances: { usd: 9 } });
    const newcomer = await waitFor(hook, (e) => e.type === 'user.registered' && e.data.user.username === username);
    expect(newcomer.event.data.user).toMatchObject({ email: `${username}@example.com`, role: 'user' });
    expect(JSON.stringify(newcomer.event.data)).not.toMatch(/password/i);

    // key.expired comes from the cron's expiry job.
    const expiring = (await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } })).body.licenseKey;
    await env.DB.prepare('UPDATE license_keys SET expires_at = ?1 WHERE id = ?2')
      .bind(Date.now() - 10 * 86_400_000, expiring._id)
      .run();
    expect(await expireKeys(db(), TEST_SETTINGS, Date.now(), env)).toBeGreaterThanOrEqual(1);
    const expired = await waitFor(hook, (e) => e.type === 'key.expired' && e.data.licenseKey._id === expiring._id);
    expect(expired.event.data.licenseKey.status).toBe('expired');
  });

  it('writes no event when no enabled endpoint subscribes to its type', async () => {
    const product = await makeProduct();
    const { token } = await signedInUser('user', { credits: 1000 });
    await addEndpoint('ok', ['key.purchased']);
    // Every endpoint disabled (only this file makes any).
    for (const id of made) await api('PATCH', `/api/webhooks/${id}`, { token: ownerToken, body: { enabled: false } });
    await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } });
    const events = await db().select().from(webhookEvents).all();
    expect(events.filter((e) => e.data.includes(product.id))).toHaveLength(0);
  });

  it('writes the events of a type an endpoint subscribed to since the isolate last looked: the guard refuses the write that left them out, which runs again with them', async () => {
    const product = await makeProduct();
    const { token } = await signedInUser('user', { credits: 10_000 });
    const worker = instrumentedWorker();
    const buy = async () => {
      const res = await api('POST', '/api/keys/purchase', {
        token,
        body: { productId: product.id, duration: 1 },
        fetch: (url, init) => worker.fetch(url, init),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return { key: res.body.licenseKey, statements: worker.take().roundTrips.map((trip) => trip.length) };
    };
    // No endpoint subscribes: the isolate reads so with its first write's batch (the guard, the key,
    // the two outbox statements and the read; after a read of the product), then leaves the outbox
    // statements out.
    expect((await buy()).statements.at(-1)).toBe(5);
    expect((await buy()).statements).toEqual([2]);
    // An endpoint subscribes now (in another isolate, as far as this one's copy knows).
    const hook = await addEndpoint('ok', ['key.purchased']);
    const bought = await buy();
    // The guard refused the batch without the outbox; it ran again with it, and read the types again.
    expect(bought.statements).toEqual([2, 5]);
    await waitFor(hook, (e) => e.type === 'key.purchased' && e.data.licenseKey._id === bought.key._id);
    // From then on the purchase carries the outbox statement of key.purchased, with nothing refused;
    // that of reseller.commission_earned, which nobody subscribes to, is still left out.
    const next = await buy();
    expect(next.statements).toEqual([3]);
    await waitFor(hook, (e) => e.type === 'key.purchased' && e.data.licenseKey._id === next.key._id);
  });

  it('writes no event for a change that did not commit', async () => {
    await addEndpoint('ok', ['key.purchased']);
    const product = await makeProduct();
    const { user, token } = await signedInUser('user', { credits: 5 });
    const refused = await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } });
    expect(refused.status).toBe(402);
    const events = await db().select().from(webhookEvents).all();
    expect(events.filter((e) => e.data.includes(user.id) || e.data.includes(product.id))).toHaveLength(0);
  });

  it('builds the balance.topped_up event for the card top-up batch, with the balances it leaves', async () => {
    const hook = await addEndpoint('ok', ['balance.topped_up']);
    const { user } = await signedInUser('user', { balanceCents: 550, credits: 7 });
    const results = await runBatch(db(), [
      new SqlStatement('UPDATE users SET balance_cents = balance_cents + 2000 WHERE id = ?1', [user.id]),
      balanceToppedUpEvent(user.id, { amountUsd: 20 }),
    ]);
    await dispatchCommitted(results, env);
    const { event } = await waitFor(hook, (e) => e.type === 'balance.topped_up' && e.data.user._id === user.id);
    expect(event.data).toEqual({
      user: { _id: user.id, username: user.username, email: user.email },
      amountUsd: 20,
      balances: { usd: 25.5, credits: 7 },
    });
  });

  it("sends a request's committed events through its own database, after the answer, and nothing from a plain binding", async () => {
    await addEndpoint('ok', ['balance.topped_up']);
    const { user } = await signedInUser('user');
    const commit = () => runBatch(db(), [new SqlStatement('SELECT 1', []), balanceToppedUpEvent(user.id, { amountUsd: 1 })]);
    const sent: unknown[] = [];
    const queue = { sendBatch: (messages: unknown[]) => Promise.resolve(sent.push(...messages)) };
    const afterAnswer: Promise<unknown>[] = [];
    const request = openRequestD1(env.DB, {
      write: true,
      bookmark: null,
      afterCommit: { later: async (work) => void (work && afterAnswer.push(work)), webhookQueue: queue },
    });
    const results = await commit();
    // Through the request's database: handed to the request's waitUntil, then sent.
    await dispatchCommitted(results, requestDb(request));
    expect(afterAnswer).toHaveLength(1);
    await Promise.all(afterAnswer);
    expect(sent).toEqual([{ body: { kind: 'event', eventId: eventIdsIn(results)[0] } }]);
    // A plain binding (the cron, a script) has no queue: nothing is sent, the cron redispatches later.
    await dispatchCommitted(await commit(), db());
    expect(sent).toHaveLength(1);
  });

  it('sends balance.topped_up once when Stripe delivers a paid Checkout Session 20 times at once', async () => {
    const hook = await addEndpoint('ok', ['balance.topped_up']);
    const customer = await signedInUser('user', { balanceCents: 150 });
    const checkout = await api('POST', '/api/payments/checkout', { token: customer.token, body: { usdAmount: 12 } });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
    const paid = await signedEvent('checkout.session.completed', paidSession(checkout.body.id, customer.user.id, 1200));
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(paid)));
    expect(answers.filter((a) => a.body.outcome === 'credited')).toHaveLength(1);
    const { event } = await waitFor(hook, (e) => e.type === 'balance.topped_up' && e.data.user._id === customer.user.id);
    expect(event.data).toEqual({
      user: { _id: customer.user.id, username: customer.username, email: customer.email },
      amountUsd: 12,
      balances: { usd: 13.5, credits: 0 },
    });
    const written = (await db().select().from(webhookEvents).all()).filter(
      (e) => e.type === 'balance.topped_up' && e.data.includes(customer.user.id),
    );
    expect(written).toHaveLength(1);
  });

  it('retries a failing receiver with the same webhook-id, and the deliveries show both attempts', async () => {
    const hook = await addEndpoint('fail-once', ['key.purchased']);
    const product = await makeProduct();
    const { token } = await signedInUser('user', { credits: 1000 });
    const keyId = (await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } })).body.licenseKey._id;
    const first = await waitFor(hook, (e) => e.data.licenseKey._id === keyId);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0], { timeout: 5_000 })
      .toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500, responseBody: 'receiver says no' });
    // The first retry comes 5 seconds later.
    await expect.poll(async () => (await receivedBy(hook.name)).length, { timeout: 12_000, interval: 250 }).toBe(2);
    const [a, b] = await receivedBy(hook.name);
    expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
    expect(new Webhook(hook.secret).verify(b.body, b.headers)).toEqual(first.event);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0], { timeout: 3_000 })
      .toMatchObject({ status: 'delivered', attempts: 2, responseStatus: 200 });
    const listed = await api('GET', `/api/webhooks/${hook.id}/deliveries`, { token: ownerToken });
    expect(listed.body).toMatchObject({
      total: 1,
      totalPages: 1,
      deliveries: [{ event: 'key.purchased', status: 'delivered', attempts: 2, responseStatus: 200 }],
    });
    // Both attempts are kept, oldest first: why the first failed, and the success.
    const [delivery] = listed.body.deliveries as WebhookDelivery[];
    expect(delivery.attemptLog).toEqual([
      {
        attempt: 1,
        startedAt: expect.any(String) as unknown,
        responseStatus: 500,
        durationMs: expect.any(Number) as unknown,
        responseBody: 'receiver says no',
        error: null,
      },
      {
        attempt: 2,
        startedAt: expect.any(String) as unknown,
        responseStatus: 200,
        durationMs: expect.any(Number) as unknown,
        responseBody: 'ok',
        error: null,
      },
    ]);
    const [one, two] = delivery.attemptLog;
    expect(Date.parse(two.startedAt) - Date.parse(one.startedAt)).toBeGreaterThanOrEqual(4_000);
    expect(two.startedAt).toBe(delivery.lastAttemptAt);
  }, 25_000);

  it('recovers with the cron an event committed but never enqueued (a crash after the commit)', async () => {
    const hook = await addEndpoint('ok', ['key.purchased']);
    const product = await makeProduct();
    const { user } = await signedInUser('user', { credits: 1000 });
    // Called outside a request, the purchase commits its outbox row and sends nothing, as after a crash.
    const { licenseKey } = await purchaseKey(db(), {
      productId: product.id,
      days: 1,
      buyerId: user.id,
      payerId: user.id,
      actorId: user.id,
      generationMethod: 'purchase',
    });
    const [row] = await db()
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.type, 'key.purchased'))
      .all()
      .then((rows) => rows.filter((r) => r.data.includes(licenseKey._id)));
    expect(row.dispatchedAt).toBeNull();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await receivedBy(hook.name)).toHaveLength(0);
    const { webhooks } = await runScheduledJobs(env, Date.now() + 61_000);
    expect(webhooks.events).toBeGreaterThanOrEqual(1);
    await waitFor(hook, (e) => e.id === row.id);
  });

  it('gives up with the cron a delivery that could never be attempted for days', async () => {
    const hook = await addEndpoint('ok', ['key.purchased']);
    const old = new Date(Date.now() - GIVE_UP_AFTER_MS - 60_000);
    await db().insert(webhookEvents).values({
      id: 'evt_0123456789abcdef01234567',
      type: 'webhook.test',
      data: '{}',
      endpointId: hook.id,
      createdAt: old,
      dispatchedAt: old,
    });
    await db()
      .insert(webhookDeliveries)
      .values({ id: 'msg_0123456789abcdef01234567', eventId: 'evt_0123456789abcdef01234567', endpointId: hook.id, createdAt: old });
    await runScheduledJobs(env);
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ status: 'failed', error: 'Given up: not delivered within 2 days' });
    await db().delete(webhookEvents).where(eq(webhookEvents.id, 'evt_0123456789abcdef01234567'));
  });

  it('never delivers to a disabled endpoint', async () => {
    const on = await addEndpoint('ok', ['key.purchased']);
    const off = await addEndpoint('ok', ['key.purchased']);
    await api('PATCH', `/api/webhooks/${off.id}`, { token: ownerToken, body: { enabled: false } });
    const product = await makeProduct();
    const { token } = await signedInUser('user', { credits: 1000 });
    const keyId = (await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } })).body.licenseKey._id;
    await waitFor(on, (e) => e.data.licenseKey._id === keyId);
    expect(await receivedBy(off.name)).toHaveLength(0);
    expect(await deliveriesOf(off.id)).toHaveLength(0);
    expect((await api('POST', `/api/webhooks/${off.id}/test`, { token: ownerToken })).status).toBe(409);

    // A delivery already queued when its endpoint is disabled is not sent either.
    const [queued] = await deliveriesOf(on.id);
    await db().update(webhookDeliveries).set({ status: 'pending' }).where(eq(webhookDeliveries.id, queued.id));
    await api('PATCH', `/api/webhooks/${on.id}`, { token: ownerToken, body: { enabled: false } });
    expect(await attemptDelivery(env, queued.id, 1)).toEqual({ status: 'failed' });
    expect(await receivedBy(on.name)).toHaveLength(1);
    expect((await deliveriesOf(on.id))[0]).toMatchObject({ status: 'failed', error: 'Not sent: the endpoint is disabled' });
    expect((await api('POST', `/api/webhooks/deliveries/${queued.id}/redeliver`, { token: ownerToken })).status).toBe(409);
  });

  it('sends a test event, and redelivers with the same webhook-id', async () => {
    const hook = await addEndpoint('ok', ['key.revoked']);
    const sent = await api('POST', `/api/webhooks/${hook.id}/test`, { token: ownerToken });
    expect(sent.status).toBe(202);
    const { event, request } = await waitFor(hook, (e) => e.type === 'webhook.test');
    expect(event).toMatchObject({ id: sent.body.eventId, data: { endpointId: hook.id } });
    await expect.poll(async () => (await deliveriesOf(hook.id))[0]?.status, { timeout: 5_000 }).toBe('delivered');
    const again = await api('POST', `/api/webhooks/deliveries/${request.headers['webhook-id']}/redeliver`, { token: ownerToken });
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ id: request.headers['webhook-id'], status: 'pending' });
    await expect.poll(async () => (await receivedBy(hook.name)).length, { timeout: 5_000 }).toBe(2);
    expect((await receivedBy(hook.name))[1].headers['webhook-id']).toBe(request.headers['webhook-id']);
    // The first attempt is kept beside the redelivery's.
    await expect.poll(async () => (await listedDeliveries(hook.id))[0]?.attemptLog.length, { timeout: 5_000 }).toBe(2);
    expect((await listedDeliveries(hook.id))[0]).toMatchObject({
      status: 'delivered',
      attempts: 2,
      attemptLog: [
        { attempt: 1, responseStatus: 200, error: null },
        { attempt: 2, responseStatus: 200, error: null },
      ],
    });
  });
  // Last in the file: the hanging request stays open until the consumer's 10-second timeout.
  it('a hanging receiver does not hold up another endpoint', async () => {
    const stuck = await addEndpoint('hang', ['key.purchased']);
    const quick = await addEndpoint('ok', ['key.purchased']);
    const product = await makeProduct();
    const { token } = await signedInUser('user', { credits: 1000 });
    const keyId = (await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } })).body.licenseKey._id;
    await waitFor(quick, (e) => e.data.licenseKey._id === keyId, 4_000);
    // Delivered while the other endpoint's request is still open.
    expect(await receivedBy(stuck.name)).toHaveLength(1);
    await expect.poll(async () => (await deliveriesOf(quick.id))[0]?.status, { timeout: 3_000 }).toBe('delivered');
    expect((await deliveriesOf(stuck.id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await db().update(webhookEndpoints).set({ enabled: false }).where(eq(webhookEndpoints.id, stuck.id));
  });
});

describe('attempts', () => {
  async function pendingDelivery(mode: string) {
    const hook = await addEndpoint(mode, ['key.revoked']);
    // Held pending without a queue message, so each attempt here is the test's own.
    await db().update(webhookEndpoints).set({ enabled: false }).where(eq(webhookEndpoints.id, hook.id));
    const sent = await api('POST', `/api/webhooks/${hook.id}/test`, { token: ownerToken });
    expect(sent.status).toBe(409);
    await db().update(webhookEndpoints).set({ enabled: true }).where(eq(webhookEndpoints.id, hook.id));
    const eventId = `evt_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const deliveryId = `msg_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;
    await db()
      .insert(webhookEvents)
      .values({ id: eventId, type: 'webhook.test', data: '{}', endpointId: hook.id, createdAt: new Date(), dispatchedAt: new Date() });
    await db().insert(webhookDeliveries).values({ id: deliveryId, eventId, endpointId: hook.id, createdAt: new Date() });
    return { hook, deliveryId };
  }

  it('does not follow a redirect: it is a failed attempt, retried', async () => {
    const { deliveryId, hook } = await pendingDelivery('redirect');
    expect(await attemptDelivery(env, deliveryId, 1)).toEqual({ status: 'pending', retryInSeconds: 5 });
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 302 });
    expect(await receivedBy(hook.name)).toHaveLength(1);
  });

  it('retries with growing delays, then marks the delivery failed', async () => {
    const { deliveryId, hook } = await pendingDelivery('fail');
    const delays: Array<number | undefined> = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) delays.push((await attemptDelivery(env, deliveryId, attempt)).retryInSeconds);
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000, undefined]);
    expect(delays.slice(0, -1).reduce((a, b) => a! + b!, 0)).toBeGreaterThan(20 * 3600);
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null });
  });

  it('disables an endpoint failing for days, with the reason shown', async () => {
    const { deliveryId, hook } = await pendingDelivery('fail');
    const now = Date.now();
    await db()
      .update(webhookEndpoints)
      .set({ failingSince: new Date(now - DISABLE_AFTER_MS - 1) })
      .where(eq(webhookEndpoints.id, hook.id));
    expect(await attemptDelivery(env, deliveryId, 1, now)).toEqual({ status: 'failed' });
    const shown = (await api('GET', `/api/webhooks/${hook.id}`, { token: ownerToken })).body;
    expect(shown.enabled).toBe(false);
    expect(shown.disabledReason).toMatch(/^Disabled automatically: every delivery has failed since .* \(last: HTTP 500\)$/);
    // A success clears the failing streak.
    const ok = await pendingDelivery('ok');
    await db()
      .update(webhookEndpoints)
      .set({ failingSince: new Date(now - 1000) })
      .where(eq(webhookEndpoints.id, ok.hook.id));
    expect(await attemptDelivery(env, ok.deliveryId, 1)).toEqual({ status: 'delivered' });
    expect((await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, ok.hook.id)).get())!.failingSince).toBeNull();
  });

  it('keeps every attempt, oldest first: no answer (the error), a 500 (its answer), then a 200', async () => {
    const { deliveryId, hook } = await pendingDelivery('fail-once');
    const url = `${receiver}/hook/${hook.name}?mode=fail-once`;
    // Nothing listens on port 1: the connection is refused.
    await db().update(webhookEndpoints).set({ url: 'http://127.0.0.1:1/refused' }).where(eq(webhookEndpoints.id, hook.id));
    expect(await attemptDelivery(env, deliveryId, 1)).toEqual({ status: 'pending', retryInSeconds: 5 });
    await db().update(webhookEndpoints).set({ url }).where(eq(webhookEndpoints.id, hook.id));
    expect(await attemptDelivery(env, deliveryId, 2)).toEqual({ status: 'pending', retryInSeconds: 300 });
    expect(await attemptDelivery(env, deliveryId, 3)).toEqual({ status: 'delivered' });

    const [delivery] = await listedDeliveries(hook.id);
    expect(delivery).toMatchObject({ id: deliveryId, status: 'delivered', attempts: 3, responseStatus: 200, responseBody: 'ok' });
    expect(delivery.attemptLog).toEqual([
      {
        attempt: 1,
        startedAt: expect.any(String) as unknown,
        responseStatus: null,
        durationMs: expect.any(Number) as unknown,
        responseBody: null,
        error: expect.stringMatching(/^Could not connect: /) as unknown,
      },
      {
        attempt: 2,
        startedAt: expect.any(String) as unknown,
        responseStatus: 500,
        durationMs: expect.any(Number) as unknown,
        responseBody: 'receiver says no',
        error: null,
      },
      {
        attempt: 3,
        startedAt: expect.any(String) as unknown,
        responseStatus: 200,
        durationMs: expect.any(Number) as unknown,
        responseBody: 'ok',
        error: null,
      },
    ]);
    expect(delivery.attemptLog.map((a) => Date.parse(a.startedAt))).toEqual(
      [...delivery.attemptLog.map((a) => Date.parse(a.startedAt))].sort(),
    );
    for (const a of delivery.attemptLog) expect(a.durationMs).toBeGreaterThanOrEqual(0);

    // Redelivered, it keeps them (the queue's new attempt adds to them: see the redelivery test above).
    const again = await api('POST', `/api/webhooks/deliveries/${deliveryId}/redeliver`, { token: ownerToken });
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ status: 'pending', attempts: 3 });
    expect(again.body.delivery.attemptLog).toEqual(delivery.attemptLog);
  });

  it('keeps the first KB of an answer, cut on a character boundary', async () => {
    const { deliveryId, hook } = await pendingDelivery('long');
    await attemptDelivery(env, deliveryId, 1);
    const [attempt] = (await listedDeliveries(hook.id))[0].attemptLog;
    // 1 + 511 × 2 bytes: the 512th "é" would end at byte 1025.
    expect(attempt.responseBody).toBe(`x${'é'.repeat(511)}`);
    expect(new TextEncoder().encode(attempt.responseBody!).byteLength).toBe(1023);
    expect(attempt.responseStatus).toBe(500);
  });

  it('cuts any answer to at most 1 KB of UTF-8, bytes that are not UTF-8 included', () => {
    const bytes = (...parts: Array<string | number[]>) =>
      new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...new TextEncoder().encode(p)] : p)));
    expect(utf8Prefix(bytes('ok'), 1024)).toBe('ok');
    expect(utf8Prefix(bytes('a'.repeat(1022), '😀'), 1024)).toBe('a'.repeat(1022));
    expect(utf8Prefix(bytes('a'.repeat(1020), '😀', 'b'), 1024)).toBe(`${'a'.repeat(1020)}😀`);
    // Each stray byte reads as U+FFFD, 3 bytes of UTF-8: 341 of them fit.
    const junk = utf8Prefix(bytes(new Array(1024).fill(0xff)), 1024);
    expect(junk).toBe('\ufffd'.repeat(341));
    expect(new TextEncoder().encode(junk).byteLength).toBeLessThanOrEqual(1024);
  });

  it(`keeps the latest ${WEBHOOK_ATTEMPTS_KEPT} attempts of a delivery redelivered again and again`, async () => {
    const { deliveryId, hook } = await pendingDelivery('fail');
    const total = WEBHOOK_ATTEMPTS_KEPT + 2;
    for (let i = 0; i < total; i++) await attemptDelivery(env, deliveryId, 1);
    const [delivery] = await listedDeliveries(hook.id);
    expect(delivery.attempts).toBe(total);
    expect(delivery.attemptLog.map((a) => a.attempt)).toEqual(Array.from({ length: WEBHOOK_ATTEMPTS_KEPT }, (_, i) => i + 3));
  });

  it('lists a page of deliveries with their attempts in one read round trip that writes nothing', async () => {
    const { deliveryId, hook } = await pendingDelivery('fail-once');
    await attemptDelivery(env, deliveryId, 1);
    await attemptDelivery(env, deliveryId, 2);
    const worker = instrumentedWorker();
    const list = () =>
      api('GET', `/api/webhooks/${hook.id}/deliveries`, { token: ownerToken, fetch: (url, init) => worker.fetch(url, init) });
    // Once to warm what the isolate keeps (the settings), as the budget test does; then measured.
    await list();
    worker.take();
    const res = await list();
    expect(res.body.deliveries[0].attemptLog).toHaveLength(2);
    const cost = worker.take();
    const measured = {
      roundTrips: cost.roundTrips.length,
      writes: cost.writes.length,
      kvReads: cost.kvReads,
      session: cost.sessions.join(','),
    };
    // As every page read (round-trip-budget.test.ts, docs/performance.md); measured here, where the endpoints are this file's own.
    expect(measured, JSON.stringify(cost.roundTrips, null, 1)).toEqual({
      roundTrips: 1,
      writes: 0,
      kvReads: 0,
      session: 'first-unconstrained',
    });
  });

  it('deletes the attempts with their endpoint, and with their delivery when the cron prunes old history', async () => {
    const { deliveryId, hook } = await pendingDelivery('fail-once');
    await attemptDelivery(env, deliveryId, 1);
    await attemptDelivery(env, deliveryId, 2);
    expect(await attemptRowsOf(deliveryId)).toHaveLength(2);
    expect((await api('DELETE', `/api/webhooks/${hook.id}`, { token: ownerToken })).status).toBe(200);
    expect(await attemptRowsOf(deliveryId)).toEqual([]);

    const old = await pendingDelivery('ok');
    await attemptDelivery(env, old.deliveryId, 1);
    expect(await attemptRowsOf(old.deliveryId)).toHaveLength(1);
    const monthAgo = new Date(Date.now() - 31 * 24 * 3600 * 1000);
    const [{ eventId }] = await db()
      .select({ eventId: webhookDeliveries.eventId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, old.deliveryId));
    await db().update(webhookEvents).set({ createdAt: monthAgo }).where(eq(webhookEvents.id, eventId));
    await runScheduledJobs(env);
    expect(await deliveriesOf(old.hook.id)).toEqual([]);
    expect(await attemptRowsOf(old.deliveryId)).toEqual([]);
  });
});
