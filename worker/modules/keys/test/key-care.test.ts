// A key's care by its holder: giving it to another account (transfer) and replacing a leaked value
// (regeneration), for customers from My Keys and for owners and resellers from the admin panel.
import { env } from 'cloudflare:test';
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, auditLog, heldSlots, keyEvents, licenseKeys, rateLimits, retiredKeys } from '../../../platform/db/schema';
import { readOutbox } from '../../../platform/mail';
import { UNKNOWN_KEYS_PER_ADDRESS } from '../../licensing/throttle';
import { api, clearOfMinuteEdge, db, freshIp, signedInUser, TEST_PASSWORD, withSettings } from '../../../test/helpers';
import { makeProduct, productRow } from '../../../test/shop-helpers';

type Key = { _id: string; key: string; status: string; expiresAt: string | null; activations: unknown[] };

async function customerWithKey(maxActivations = 3) {
  const product = await makeProduct({ maxActivations });
  const customer = await signedInUser('user', { credits: 10_000 });
  const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 30 } });
  expect(bought.status).toBe(201);
  const keyId = (bought.body as { licenseKey: { _id: string; key: string } }).licenseKey._id;
  const key = (bought.body as { licenseKey: { _id: string; key: string } }).licenseKey.key;
  return { product, customer, keyId, key };
}

const license = (path: 'activate' | 'validate', key: string, deviceFingerprint: string, ip = freshIp()) =>
  api('POST', `/api/v1/licenses/${path}`, { body: { key, deviceFingerprint }, ip });
const keyRow = (id: string) => db().select().from(licenseKeys).where(eq(licenseKeys.id, id)).get();
const myKeys = async (token: string) => ((await api('GET', '/api/users/my-keys?limit=50', { token })).body as { keys: Key[] }).keys;
// The key's care lines (its history also holds its devices' activations: key-history.test.ts).
const eventsOf = (keyId: string) =>
  db()
    .select()
    .from(keyEvents)
    .where(and(eq(keyEvents.keyId, keyId), inArray(keyEvents.kind, ['transferred', 'regenerated'])))
    .all();

describe('regenerating a key', () => {
  it('gives a customer a new value with the same product, expiry and devices; the old one answers KEY_REGENERATED at once', async () => {
    const { customer, keyId, key } = await customerWithKey();
    const device = `regen-device-${crypto.randomUUID()}`;
    expect((await license('activate', key, device)).body.code).toBe('VALID');
    const before = (await keyRow(keyId))!;

    const res = await api('POST', `/api/users/my-keys/${keyId}/regenerate`, {
      token: customer.token,
      body: { reason: 'Posted on a forum' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const renewed = (res.body as { licenseKey: Key }).licenseKey;
    expect(renewed.key).not.toBe(key);
    expect(renewed.key.startsWith(key.split('-')[0] + '-')).toBe(true);
    const after = (await keyRow(keyId))!;
    expect({ product: after.productId, expires: after.expiresAt, status: after.status }).toEqual({
      product: before.productId,
      expires: before.expiresAt,
      status: before.status,
    });

    const old = await license('validate', key, device);
    expect(old.status).toBe(200);
    expect(old.headers.get('x-signature')).toBeTruthy();
    expect(old.body).toMatchObject({ valid: false, code: 'KEY_REGENERATED' });
    // The device kept its slot under the new value.
    expect((await license('validate', renewed.key, device)).body).toMatchObject({ valid: true, code: 'VALID' });
    expect(await eventsOf(keyId)).toEqual([
      expect.objectContaining({ kind: 'regenerated', actorId: customer.user.id, detail: { reason: 'Posted on a forum', devicesFreed: 0 } }),
    ]);
  });

  it('frees the devices when asked, and uncounts them on the product', async () => {
    const { product, customer, keyId, key } = await customerWithKey();
    for (const n of [1, 2]) expect((await license('activate', key, `free-device-${n}-${crypto.randomUUID()}`)).body.code).toBe('VALID');
    const counted = (await productRow(product.id))!.totalActivations;

    const res = await api('POST', `/api/users/my-keys/${keyId}/regenerate`, {
      token: customer.token,
      body: { reason: 'Leaked', freeDevices: true },
    });
    expect(res.status).toBe(200);
    expect((res.body as { licenseKey: Key }).licenseKey.activations).toEqual([]);
    expect(await db().select().from(activations).where(eq(activations.keyId, keyId)).all()).toEqual([]);
    expect((await productRow(product.id))!.totalActivations).toBe(counted - 2);
    expect((await eventsOf(keyId))[0].detail).toEqual({ reason: 'Leaked', devicesFreed: 2 });
  });

  it("refuses another customer's key (not found, unchanged), a revoked key, and a missing reason", async () => {
    const { keyId, key } = await customerWithKey();
    const stranger = await signedInUser();
    const theirs = await api('POST', `/api/users/my-keys/${keyId}/regenerate`, { token: stranger.token, body: { reason: 'Mine now' } });
    expect(theirs.status).toBe(404);
    expect((await keyRow(keyId))!.key).toBe(key);

    const owner = await signedInUser('owner');
    const noReason = await api('POST', `/api/admin/keys/${keyId}/regenerate`, { token: owner.token, body: { reason: ' ' } });
    expect(noReason.status).toBe(400);
    expect(noReason.body).toMatchObject({ message: 'Please say why the key is being replaced' });
    expect((await api('PUT', `/api/keys/${keyId}/revoke`, { token: owner.token, body: { reason: 'Chargeback' } })).status).toBe(200);
    const revoked = await api('POST', `/api/admin/keys/${keyId}/regenerate`, { token: owner.token, body: { reason: 'Leaked' } });
    expect(revoked.status).toBe(409);
    expect((await keyRow(keyId))!.key).toBe(key);
    expect(await db().select().from(retiredKeys).where(eq(retiredKeys.keyId, keyId)).all()).toEqual([]);
  });

  it('lets the owner regenerate any key, audited, and keeps the old value out of the unknown-key count', async () => {
    await clearOfMinuteEdge(5_000);
    const { keyId, key } = await customerWithKey();
    const owner = await signedInUser('owner');
    const res = await api('POST', `/api/admin/keys/${keyId}/regenerate`, { token: owner.token, body: { reason: 'Support ticket 12' } });
    expect(res.status).toBe(200);
    const audits = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'key.regenerate'), eq(auditLog.targetId, keyId)))
      .all();
    expect(audits).toHaveLength(1);
    expect(audits[0].details).toMatchObject({ key, reason: 'Support ticket 12', freeDevices: false });

    // An old value is not a guess: many of them count nothing against the address.
    const ip = freshIp();
    for (let i = 0; i < UNKNOWN_KEYS_PER_ADDRESS.limit + 2; i++)
      expect((await license('validate', key, 'some-device-1', ip)).body.code).toBe('KEY_REGENERATED');
    expect(
      await db()
        .select()
        .from(rateLimits)
        .where(eq(rateLimits.bucket, `license-miss:${ip}`))
        .all(),
    ).toEqual([]);
  });
});

describe('transferring a key', () => {
  it('moves the key with its time to the account named under a new value, its devices gone, mails both, and keeps a history line for each', async () => {
    const { customer, keyId, key } = await customerWithKey();
    const device = `moving-device-${crypto.randomUUID()}`;
    await license('activate', key, device);
    const before = (await keyRow(keyId))!;
    const friend = await signedInUser();

    const res = await api('POST', `/api/users/my-keys/${keyId}/transfer`, {
      token: customer.token,
      body: { to: friend.email.toUpperCase(), currentPassword: TEST_PASSWORD },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, key, to: friend.username, valueKept: false });

    const after = (await keyRow(keyId))!;
    expect(after).toMatchObject({ purchasedBy: friend.user.id, transferCount: 1, expiresAt: before.expiresAt });
    expect(after.key).not.toBe(key);
    // The giver's value is retired and their device left the key (its slot held while its tokens live).
    expect((await license('validate', key, device)).body.code).toBe('KEY_REGENERATED');
    expect(JSON.stringify(res.body)).not.toContain(after.key);
    expect((await myKeys(customer.token)).map((k) => k._id)).not.toContain(keyId);
    const received = (await myKeys(friend.token)).find((k) => k._id === keyId)!;
    expect(received.key).toBe(after.key);
    expect(received.activations).toHaveLength(0);
    expect(await db().select().from(heldSlots).where(eq(heldSlots.keyId, keyId)).all()).toEqual([
      expect.objectContaining({ deviceFingerprint: device }),
    ]);

    const given = await api('GET', '/api/users/key-transfers', { token: customer.token });
    expect(given.body).toMatchObject({
      total: 1,
      transfers: [{ key, direction: 'given', from: customer.username, to: friend.username, valueKept: false }],
    });
    expect(JSON.stringify(given.body)).not.toContain(after.key);
    const got = await api('GET', '/api/users/key-transfers', { token: friend.token });
    expect(got.body).toMatchObject({ total: 1, transfers: [{ key, direction: 'received', from: customer.username }] });

    await expect
      .poll(async () => (await readOutbox(env.KV, friend.email)).map((m) => m.subject))
      .toContain(`${customer.username} gave you a license key`);
    await expect
      .poll(async () => (await readOutbox(env.KV, customer.email)).map((m) => m.subject))
      .toContain(`You gave a license key to ${friend.username}`);
  });

  it('asks for proof, and refuses an unknown account, the holder itself and a key that is not theirs, changing nothing', async () => {
    const { customer, keyId } = await customerWithKey();
    const other = await signedInUser();
    const send = (token: string, body: Record<string, unknown>) => api('POST', `/api/users/my-keys/${keyId}/transfer`, { token, body });
    const noProof = await send(customer.token, { to: other.email });
    expect(noProof.status).toBe(403);
    expect(noProof.body).toMatchObject({ code: 'REAUTH_REQUIRED' });
    const unknown = await send(customer.token, { to: 'nobody-here@example.com', currentPassword: TEST_PASSWORD });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ message: 'No active account has that email or username' });
    const self = await send(customer.token, { to: customer.username, currentPassword: TEST_PASSWORD });
    expect(self.status).toBe(400);
    const stolen = await send(other.token, { to: other.username, currentPassword: TEST_PASSWORD });
    expect(stolen.status).toBe(404);
    expect((await keyRow(keyId))!).toMatchObject({ purchasedBy: customer.user.id, transferCount: 0 });
    expect(await eventsOf(keyId)).toEqual([]);
  });

  it("follows the owner's setting: off, or at most N times a key", async () => {
    const { customer, keyId } = await customerWithKey();
    const a = await signedInUser();
    const b = await signedInUser();
    const give = (token: string, to: string) =>
      api('POST', `/api/users/my-keys/${keyId}/transfer`, { token, body: { to, currentPassword: TEST_PASSWORD } });
    await withSettings({ keyTransfers: { enabled: false, maxPerKey: 0 } }, async () => {
      const off = await give(customer.token, a.username);
      expect(off.status).toBe(403);
      expect(off.body).toMatchObject({ message: 'Key transfers are turned off in this shop' });
    });
    await withSettings({ keyTransfers: { enabled: true, maxPerKey: 1 } }, async () => {
      expect((await give(customer.token, a.username)).status).toBe(200);
      const again = await give(a.token, b.username);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ message: 'This license key has been transferred 1 time, the most this shop allows' });
    });
    expect((await keyRow(keyId))!).toMatchObject({ purchasedBy: a.user.id, transferCount: 1 });
  });

  it('gives a key to exactly one account when many transfers race', async () => {
    const { customer, keyId } = await customerWithKey();
    const takers = await Promise.all(Array.from({ length: 8 }, () => signedInUser()));
    const results = await Promise.all(
      takers.map((t) =>
        api('POST', `/api/users/my-keys/${keyId}/transfer`, {
          token: customer.token,
          body: { to: t.username, currentPassword: TEST_PASSWORD },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409 || r.status === 404)).toBe(true);
    const winner = takers[results.findIndex((r) => r.status === 200)];
    expect((await keyRow(keyId))!).toMatchObject({ purchasedBy: winner.user.id, transferCount: 1 });
    expect(await eventsOf(keyId)).toHaveLength(1);
  });

  it('lets a reseller transfer a key they bought for a customer, audited, and no other key', async () => {
    const product = await makeProduct();
    const reseller = await signedInUser('reseller', { credits: 10_000 });
    const customer = await signedInUser();
    const next = await signedInUser();
    const bought = await api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, {
      token: reseller.token,
      body: { duration: 30 },
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    const keyId = (bought.body as { licenseKey: { _id: string } }).licenseKey._id;
    const res = await api('POST', `/api/admin/keys/${keyId}/transfer`, {
      token: reseller.token,
      body: { to: next.email, currentPassword: TEST_PASSWORD },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await keyRow(keyId))!.purchasedBy).toBe(next.user.id);
    expect(
      await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'key.transfer'), eq(auditLog.targetId, keyId)))
        .all(),
    ).toHaveLength(1);

    const { keyId: someoneElses } = await customerWithKey();
    const refused = await api('POST', `/api/admin/keys/${someoneElses}/transfer`, {
      token: reseller.token,
      body: { to: next.email, currentPassword: TEST_PASSWORD },
    });
    expect(refused.status).toBe(404);
  });
});

describe('side doors: a key given away is gone, and no regeneration breaks the device limit', () => {
  const regenerate = (token: string, keyId: string) =>
    api('POST', `/api/users/my-keys/${keyId}/regenerate`, { token, body: { reason: 'Again', freeDevices: true } });
  const liveDevices = async (keyId: string) => (await db().select().from(activations).where(eq(activations.keyId, keyId)).all()).length;

  it('cannot hold more devices than the limit by regenerating with freed devices: their slots stay held, and once a day', async () => {
    const { customer, keyId, key } = await customerWithKey(3);
    let value = key;
    for (const n of [1, 2, 3]) expect((await license('activate', value, `loop-a-${n}-${keyId}`)).body.code).toBe('VALID');
    const freed = await regenerate(customer.token, keyId);
    expect(freed.status, JSON.stringify(freed.body)).toBe(200);
    value = (freed.body as { licenseKey: Key }).licenseKey.key;
    expect(await liveDevices(keyId)).toBe(0);
    // The three that left may still hold offline tokens: their slots are held, so no new device fits.
    const next = await license('activate', value, `loop-b-1-${keyId}`);
    expect(next.body).toMatchObject({ valid: false, code: 'DEVICE_LIMIT_REACHED' });
    // And the loop cannot go round again today: a regeneration spends the day's removal allowance.
    const again = await regenerate(customer.token, keyId);
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBeTruthy();
    expect((await keyRow(keyId))!.key).toBe(value);
  });

  it("spends the key's swap budget on the devices a regeneration frees, and refuses when it has no room", async () => {
    const product = await makeProduct({ maxActivations: 3, swapLimit: 2, swapWindowDays: 30 });
    const customer = await signedInUser('user', { credits: 10_000 });
    const bought = await api('POST', '/api/keys/purchase', { token: customer.token, body: { productId: product.id, duration: 30 } });
    const { _id: keyId, key } = bought.body.licenseKey as { _id: string; key: string };
    for (const n of [1, 2, 3]) expect((await license('activate', key, `budget-${n}-${keyId}`)).body.code).toBe('VALID');
    const refused = await regenerate(customer.token, keyId);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('swap budget');
    expect((await keyRow(keyId))!.key).toBe(key);
    expect(await liveDevices(keyId)).toBe(3);
  });

  it("lets the giver do nothing more with the value they knew: replace-device on the receiver's device answers KEY_REGENERATED", async () => {
    const { customer, keyId, key } = await customerWithKey(1);
    const mine = `giver-${keyId}`;
    expect((await license('activate', key, mine)).body.code).toBe('VALID');
    const friend = await signedInUser();
    const given = await api('POST', `/api/users/my-keys/${keyId}/transfer`, {
      token: customer.token,
      body: { to: friend.username, currentPassword: TEST_PASSWORD },
    });
    expect(given.status).toBe(200);
    const received = (await myKeys(friend.token)).find((k) => k._id === keyId)!;
    const theirs = `receiver-${keyId}`;
    // The giver's device left (its slot held for its offline tokens); the owner releases it for the new holder.
    const owner = await signedInUser('owner');
    const held = (await db().select().from(heldSlots).where(eq(heldSlots.keyId, keyId)).all())[0];
    expect((await api('DELETE', `/api/admin/keys/${keyId}/held-slots/${held.id}`, { token: owner.token })).status).toBe(200);
    expect((await license('activate', received.key, theirs)).body.code).toBe('VALID');
    const activationId = (await db().select().from(activations).where(eq(activations.keyId, keyId)).get())!.id;

    const pushed = await api('POST', '/api/v1/licenses/replace-device', {
      body: { key, deviceFingerprint: mine, replaceDeviceId: activationId },
      ip: freshIp(),
    });
    expect(pushed.body).toMatchObject({ valid: false, code: 'KEY_REGENERATED' });
    expect((await license('validate', received.key, theirs)).body.code).toBe('VALID');
  });

  it('keeps the value and devices only when the giver chooses to, and tells the receiver', async () => {
    const { customer, keyId, key } = await customerWithKey();
    const device = `kept-${keyId}`;
    await license('activate', key, device);
    const friend = await signedInUser();
    const res = await api('POST', `/api/users/my-keys/${keyId}/transfer`, {
      token: customer.token,
      body: { to: friend.username, keepValue: true, currentPassword: TEST_PASSWORD },
    });
    expect(res.body).toMatchObject({ valueKept: true, key });
    expect((await keyRow(keyId))!.key).toBe(key);
    expect((await license('validate', key, device)).body.code).toBe('VALID');
    const got = await api('GET', '/api/users/key-transfers', { token: friend.token });
    expect(got.body).toMatchObject({ transfers: [{ key, direction: 'received', valueKept: true }] });
    await expect
      .poll(async () => (await readOutbox(env.KV, friend.email)).map((m) => m.text).join('\n'))
      .toContain('chose to keep its value');
  });

  it('keeps a reseller from a key its customer gave away, and from buying at wholesale for itself or another reseller through a transfer', async () => {
    const product = await makeProduct();
    const reseller = await signedInUser('reseller', { credits: 10_000 });
    const otherReseller = await signedInUser('reseller');
    const owner = await signedInUser('owner');
    const customer = await signedInUser();
    const stranger = await signedInUser();
    const buy = async () => {
      const bought = await api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, {
        token: reseller.token,
        body: { duration: 30 },
      });
      expect(bought.status, JSON.stringify(bought.body)).toBe(201);
      return bought.body.licenseKey as { _id: string; key: string };
    };
    const adminTransfer = (token: string, keyId: string, to: string) =>
      api('POST', `/api/admin/keys/${keyId}/transfer`, { token, body: { to, currentPassword: TEST_PASSWORD } });

    // A wholesale key goes to customers only: not to the reseller itself, another reseller or an owner.
    const first = await buy();
    for (const to of [reseller.username, otherReseller.username, owner.username]) {
      const refused = await adminTransfer(reseller.token, first._id, to);
      expect(refused.status, to).toBe(403);
    }
    const byHolder = await api('POST', `/api/users/my-keys/${first._id}/transfer`, {
      token: customer.token,
      body: { to: reseller.username, currentPassword: TEST_PASSWORD },
    });
    expect(byHolder.status).toBe(403);
    expect((await keyRow(first._id))!.purchasedBy).toBe(customer.user.id);

    // Once the customer gives the key away, the reseller reaches it no more: not to move, not to see.
    const given = await api('POST', `/api/users/my-keys/${first._id}/transfer`, {
      token: customer.token,
      body: { to: stranger.username, currentPassword: TEST_PASSWORD },
    });
    expect(given.status).toBe(200);
    expect((await adminTransfer(reseller.token, first._id, customer.username)).status).toBe(404);
    expect((await api('GET', `/api/admin/keys/${first._id}/history`, { token: reseller.token })).status).toBe(404);
    const listed = await api('GET', '/api/admin/keys?limit=100', { token: reseller.token });
    expect((listed.body as { keys: Key[] }).keys.map((k) => k._id)).not.toContain(first._id);
    expect(JSON.stringify(listed.body)).not.toContain((await keyRow(first._id))!.key);

    // A value the holder regenerated is not one the reseller sold: out of reach too.
    const second = await buy();
    expect(
      (await api('POST', `/api/users/my-keys/${second._id}/regenerate`, { token: customer.token, body: { reason: 'Leaked' } })).status,
    ).toBe(200);
    expect((await api('GET', `/api/admin/keys/${second._id}/history`, { token: reseller.token })).status).toBe(404);
  });
});
