// A key's history (its activity): every kind of line, read from where it is recorded, paged newest
// first, for its customer (My Keys), the owner and a reseller who bought it; nobody else's key.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { validateLicense } from '../../licensing/licensing';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { DAY_MS } from '../../../platform/vocabulary';
import { api, freshIp, signedInUser, TEST_PASSWORD } from '../../../test/helpers';
import { makeProduct } from '../../../test/shop-helpers';
import type { KeyHistoryEvent, KeyHistoryResponse } from '../schemas/key-history';

async function customerWithKey() {
  const product = await makeProduct({ maxActivations: 5 });
  const customer = await signedInUser('user', { credits: 10_000 });
  const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 30 } });
  expect(bought.status).toBe(201);
  const { _id: keyId, key } = (bought.body as { licenseKey: { _id: string; key: string } }).licenseKey;
  return { product, customer, keyId, key };
}

const activate = async (key: string, deviceFingerprint: string, name?: string) => {
  const res = await api('POST', '/api/v1/licenses/activate', {
    body: { key, deviceFingerprint, ...(name ? { deviceInfo: { device: name } } : {}) },
    ip: freshIp(),
  });
  expect(res.body.code, JSON.stringify(res.body)).toBe('VALID');
};

const activationId = async (keyId: string, fingerprint: string) =>
  (await env.DB.prepare('SELECT id FROM activations WHERE key_id = ?1 AND device_fingerprint = ?2')
    .bind(keyId, fingerprint)
    .first<{ id: string }>())!.id;

const history = async (path: string, token: string) => {
  const res = await api('GET', path, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as KeyHistoryResponse;
};

const mine = (keyId: string, query = '') => `/api/users/my-keys/${keyId}/history${query}`;
const owners = (keyId: string, query = '') => `/api/admin/keys/${keyId}/history${query}`;

describe("a key's history", () => {
  it('lists its purchase, activations, removals, swaps, transfer, regeneration, revocation and validated days', async () => {
    const { customer, keyId, key } = await customerWithKey();
    const owner = await signedInUser('owner');
    const next = await signedInUser();
    await activate(key, 'hist-laptop', 'Work laptop');
    await activate(key, 'hist-phone');
    await activate(key, 'hist-tablet');
    await activate(key, 'hist-desktop');

    // Validations: three on one day (one batch, counted together) and one on the next, by one
    // device; one by another device on the first day.
    const day1 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS + 3_600_000;
    const validate = (fingerprint: string, at: number) =>
      validateLicense(env.DB, DEFAULT_SETTINGS, { key, deviceFingerprint: fingerprint }, at).then((r) => expect(r.valid).toBe(true));
    await Promise.all([validate('hist-laptop', day1), validate('hist-laptop', day1 + 60_000), validate('hist-laptop', day1 + 120_000)]);
    await validate('hist-laptop', day1 + DAY_MS);
    await validate('hist-phone', day1 + 5_000);

    // The customer removes one device; the app swaps another for a new one; the owner removes a third.
    const removed = await api('DELETE', `/api/users/my-keys/${keyId}/activations/${await activationId(keyId, 'hist-phone')}`, {
      token: customer.token,
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const swapped = await api('POST', '/api/v1/licenses/replace-device', {
      body: { key, deviceFingerprint: 'hist-new-phone', replaceDeviceId: await activationId(keyId, 'hist-tablet') },
      ip: freshIp(),
    });
    expect(swapped.body.code, JSON.stringify(swapped.body)).toBe('DEVICE_REPLACED');
    const ownerRemoved = await api('DELETE', `/api/admin/keys/${keyId}/activations/${await activationId(keyId, 'hist-desktop')}`, {
      token: owner.token,
    });
    expect(ownerRemoved.status).toBe(200);

    const given = await api('POST', `/api/users/my-keys/${keyId}/transfer`, {
      token: customer.token,
      body: { to: next.email, currentPassword: TEST_PASSWORD },
    });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    const renewed = await api('POST', `/api/users/my-keys/${keyId}/regenerate`, {
      token: next.token,
      body: { reason: 'Leaked in a chat' },
    });
    expect(renewed.status).toBe(200);
    const revoked = await api('PUT', `/api/keys/${keyId}/revoke`, { token: owner.token, body: { reason: 'Chargeback' } });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);

    const { events, total } = await history(owners(keyId, '?limit=100'), owner.token);
    expect(total).toBe(events.length);
    const of = (kind: KeyHistoryEvent['kind']) => events.filter((e) => e.kind === kind);
    expect(of('purchased')).toHaveLength(1);
    expect(of('purchased')[0].price).toBeGreaterThan(0);
    expect(
      of('activated')
        .map((e) => e.device)
        .sort(),
    ).toEqual(['hist-desktop', 'hist-laptop', 'hist-new-phone', 'hist-phone', 'hist-tablet'].sort());
    expect(of('activated').find((e) => e.device === 'hist-laptop')!.deviceName).toBe('Work laptop');
    expect(
      of('device_removed')
        .map((e) => [e.device, e.by])
        .sort(),
    ).toEqual([
      ['hist-desktop', 'owner'],
      ['hist-phone', 'customer'],
    ]);
    expect(of('device_swapped').map((e) => e.device)).toEqual(['hist-tablet']);
    expect(of('transferred')).toEqual([expect.objectContaining({ from: customer.user.username, to: next.user.username })]);
    expect(of('regenerated')).toEqual([expect.objectContaining({ reason: 'Leaked in a chat', devicesFreed: 0 })]);
    expect(of('revoked')).toEqual([expect.objectContaining({ reason: 'Chargeback' })]);
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    expect(
      of('validated')
        .map((e) => [e.device, e.day, e.validations])
        .sort(),
    ).toEqual(
      [
        ['hist-laptop', day(day1), 3],
        ['hist-laptop', day(day1 + DAY_MS), 1],
        ['hist-phone', day(day1), 1],
      ].sort(),
    );
    // A day's line is at its last validation.
    expect(of('validated').find((e) => e.device === 'hist-laptop' && e.day === day(day1))!.at).toBe(new Date(day1 + 120_000).toISOString());
    // Newest first.
    const times = events.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(events[0].kind).toBe('revoked');

    // The holder it was given to sees only their own time with it (issue 42): the transfer that gave
    // it to them, their regeneration and the revocation; no earlier device, name, price or username.
    const held = await history(mine(keyId, '?limit=100'), next.token);
    expect(held.events.map((e) => e.kind)).toEqual(['revoked', 'regenerated', 'transferred']);
    expect(held.total).toBe(3);
    expect(held.events).toEqual(events.filter((e) => ['revoked', 'regenerated', 'transferred'].includes(e.kind)));
    const seen = JSON.stringify(held);
    for (const hidden of ['hist-laptop', 'hist-phone', 'Work laptop', 'hist-desktop']) expect(seen).not.toContain(hidden);
  });

  it('shows each holder only their own time with the key, as it passes from hand to hand (issue 42)', async () => {
    const { customer: first, keyId, key } = await customerWithKey();
    const second = await signedInUser();
    const third = await signedInUser();
    const give = async (from: { token: string }, to: { email: string }) => {
      const res = await api('POST', `/api/users/my-keys/${keyId}/transfer`, {
        token: from.token,
        body: { to: to.email, currentPassword: TEST_PASSWORD },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const valueNow = async () =>
      (await env.DB.prepare('SELECT key FROM license_keys WHERE id = ?1').bind(keyId).first<{ key: string }>())!.key;
    await activate(key, 'hand-first', 'First machine');
    const before = await history(mine(keyId, '?limit=100'), first.token);
    expect(before.events.map((e) => e.kind).sort()).toEqual(['activated', 'purchased']);
    await give(first, second);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await activate(await valueNow(), 'hand-second', 'Second machine');
    await give(second, third);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await activate(await valueNow(), 'hand-third');

    const third_ = await history(mine(keyId, '?limit=100'), third.token);
    expect(third_.events.map((e) => [e.kind, e.device ?? e.from])).toEqual([
      ['activated', 'hand-third'],
      ['transferred', second.user.username],
    ]);
    const text = JSON.stringify(third_);
    for (const hidden of [first.user.username, 'hand-first', 'First machine', 'hand-second', 'Second machine'])
      expect(text).not.toContain(hidden);
    expect(third_.events.some((e) => e.price !== null)).toBe(false);
    // The owner sees every line.
    const owner = await signedInUser('owner');
    const all = await history(owners(keyId, '?limit=100'), owner.token);
    expect(all.events.filter((e) => e.kind === 'transferred')).toHaveLength(2);
    expect(
      all.events
        .filter((e) => e.kind === 'activated')
        .map((e) => e.device)
        .sort(),
    ).toEqual(['hand-first', 'hand-second', 'hand-third']);
  });

  it('pages newest first, with the total', async () => {
    const { customer, keyId, key } = await customerWithKey();
    for (const n of [1, 2, 3, 4]) await activate(key, `page-device-${n}`);
    const all = await history(mine(keyId, '?limit=100'), customer.token);
    expect(all.total).toBe(5);
    const first = await history(mine(keyId, '?limit=2'), customer.token);
    const second = await history(mine(keyId, '?limit=2&page=2'), customer.token);
    const third = await history(mine(keyId, '?limit=2&page=3'), customer.token);
    expect({ total: first.total, totalPages: first.totalPages }).toEqual({ total: 5, totalPages: 3 });
    expect([...first.events, ...second.events, ...third.events]).toEqual(all.events);
    expect(all.events.at(-1)!.kind).toBe('purchased');
    expect((await history(mine(keyId, '?limit=2&page=9'), customer.token)).events).toEqual([]);
    const bad = await api('GET', mine(keyId, '?limit=0'), { token: customer.token });
    expect(bad.status).toBe(400);
  });

  it("shows an owner's generated key as created", async () => {
    const product = await makeProduct();
    const owner = await signedInUser('owner');
    const made = await api('POST', '/api/keys/generate', {
      token: owner.token,
      body: { productId: product.id, quantity: 1, duration: 30 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const keyId = (made.body as { keys: Array<{ _id: string }> }).keys[0]._id;
    const { events } = await history(owners(keyId), owner.token);
    expect(events).toEqual([expect.objectContaining({ kind: 'created', price: null })]);
  });

  it("refuses another's key as a missing one: customers, and resellers but for keys they bought for a customer", async () => {
    const { keyId } = await customerWithKey();
    const stranger = await signedInUser();
    const missing = '0123456789abcdef01234567';
    const theirs = await api('GET', mine(keyId), { token: stranger.token });
    const none = await api('GET', mine(missing), { token: stranger.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(none.body);
    // The owner's own route is the owner's (and resellers'): a customer is refused it.
    expect((await api('GET', owners(keyId), { token: stranger.token })).status).toBe(403);

    const reseller = await signedInUser('reseller', { credits: 10_000 });
    expect((await api('GET', owners(keyId), { token: reseller.token })).body).toEqual(
      (await api('GET', owners(missing), { token: reseller.token })).body,
    );
    const product = await makeProduct();
    const bought = await api('POST', `/api/admin/users/${stranger.user.id}/purchase/${product.id}`, {
      token: reseller.token,
      body: { duration: 30 },
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    const sold = (bought.body as { licenseKey: { _id: string } }).licenseKey._id;
    const { events } = await history(owners(sold), reseller.token);
    expect(events.map((e) => e.kind)).toEqual(['purchased']);
    // And its customer sees it in My Keys.
    expect((await history(mine(sold), stranger.token)).events.map((e) => e.kind)).toEqual(['purchased']);
  });
});
