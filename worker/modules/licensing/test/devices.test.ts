import { env } from 'cloudflare:test';

import { describe, expect, it } from 'vitest';

import { removeOwnDevice } from '../devices';
import { api, db, signedInUser } from '../../../test/helpers';
import { DAY_MS } from '../../../platform/vocabulary';

async function ownedKeyWithDevices(maxActivations = 3) {
  const owner = await signedInUser('owner');
  const buyer = await signedInUser('user', { credits: 1000 });
  const keyTag = `DV${Math.random().toString(36).slice(2, 7).toUpperCase()}`;
  const product = await api('POST', '/api/products', {
    token: owner.token,
    body: {
      name: `Devices ${keyTag}`,
      description: 'd',
      keyTag,
      baseCreditCost: 5,
      creditsPerDay: 1,
      minDays: 1,
      maxDays: 30,
      maxActivations,
    },
  });
  expect(product.status).toBe(201);
  const bought = await api('POST', '/api/keys/purchase', { token: buyer.token, body: { productId: product.body._id, duration: 10 } });
  expect(bought.status).toBe(201);
  const key = bought.body.licenseKey.key;
  for (const fp of ['device-one-123', 'device-two-456']) {
    expect((await api('POST', '/api/v1/licenses/activate', { body: { key, deviceFingerprint: fp } })).body.code).toBe('VALID');
  }
  const row = await env.DB.prepare('SELECT id, product_id FROM license_keys WHERE key = ?')
    .bind(key)
    .first<{ id: string; product_id: string }>();
  const devices = await env.DB.prepare('SELECT id, device_fingerprint FROM activations WHERE key_id = ? ORDER BY device_fingerprint')
    .bind(row!.id)
    .all<{ id: string; device_fingerprint: string }>();
  return { owner, buyer, key, keyId: row!.id, productId: row!.product_id, devices: devices.results };
}

describe('DELETE /api/users/my-keys/{keyId}/activations/{activationId}', () => {
  it('lets the key owner remove a device once a day, freeing its slot', async () => {
    const k = await ownedKeyWithDevices();
    const path = (id: string) => `/api/users/my-keys/${k.keyId}/activations/${id}` as const;
    const res = await api('DELETE', path(k.devices[0].id), { token: k.buyer.token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    // Its slot stays held while its offline token may live (device-limit-offline.test.ts).
    expect(new Date(res.body.slotFreesAt).getTime()).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
    expect(res.body.message).toContain(`Its slot frees at ${res.body.slotFreesAt}`);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM activations WHERE key_id = ?').bind(k.keyId).first('n')).toBe(1);
    const product = await env.DB.prepare('SELECT total_activations AS n FROM products WHERE id = ?').bind(k.productId).first('n');
    expect(product).toBe(1);
    // The removed device validates no more.
    expect((await api('POST', '/api/v1/licenses/validate', { body: { key: k.key, deviceFingerprint: 'device-one-123' } })).body.code).toBe(
      'NOT_ACTIVATED',
    );

    const second = await api('DELETE', path(k.devices[1].id), { token: k.buyer.token });
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('RATE_LIMITED');
    expect(second.body.message).toMatch(/once|each day/);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(23 * 3600);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM activations WHERE key_id = ?').bind(k.keyId).first('n')).toBe(1);
  });

  it('allows the next removal a day later (injected clock)', async () => {
    const k = await ownedKeyWithDevices();
    const now = Date.now();
    await removeOwnDevice(db(), k.buyer.user.id, k.keyId, k.devices[0].id, now);
    await expect(removeOwnDevice(db(), k.buyer.user.id, k.keyId, k.devices[1].id, now + DAY_MS - 1000)).rejects.toThrow(/each day/);
    await removeOwnDevice(db(), k.buyer.user.id, k.keyId, k.devices[1].id, now + DAY_MS);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM activations WHERE key_id = ?').bind(k.keyId).first('n')).toBe(0);
  });

  it('lets only one of two racing removals through', async () => {
    const k = await ownedKeyWithDevices();
    const results = await Promise.all(
      k.devices.map((d) => api('DELETE', `/api/users/my-keys/${k.keyId}/activations/${d.id}`, { token: k.buyer.token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 429]);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM activations WHERE key_id = ?').bind(k.keyId).first('n')).toBe(1);
  });

  it("refuses someone else's key, an unknown device, and a guest", async () => {
    const k = await ownedKeyWithDevices();
    const stranger = await signedInUser('user');
    const path = `/api/users/my-keys/${k.keyId}/activations/${k.devices[0].id}`;
    expect((await api('DELETE', path, { token: stranger.token })).status).toBe(404);
    expect((await api('DELETE', path, { token: k.owner.token })).status).toBe(404);
    expect((await api('DELETE', path)).status).toBe(401);
    expect((await api('DELETE', `/api/users/my-keys/${k.keyId}/activations/${'0'.repeat(24)}`, { token: k.buyer.token })).status).toBe(404);
    expect((await api('DELETE', `/api/users/my-keys/${k.keyId}/activations/${'x'.repeat(65)}`, { token: k.buyer.token })).status).toBe(400);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM activations WHERE key_id = ?').bind(k.keyId).first('n')).toBe(2);
    const row = await env.DB.prepare('SELECT last_device_removal_at AS at FROM license_keys WHERE id = ?').bind(k.keyId).first('at');
    expect(row).toBeNull();
  });
});
