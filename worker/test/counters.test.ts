// Every counter has one owner (migration 0015): a product's totalActivations is moved only by the
// activations' triggers, up as a device goes in and down as one goes, whichever path removes it: the
// app's deactivation, its customer, the owner, a revoked key's device, a key deleted by the owner or
// by the cron. The shop's counts (migration 0032) are moved by their triggers alone too: keys by
// stored status, accounts by role. Each test compares the figure with the rows themselves.
import { env } from 'cloudflare:test';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, licenseKeys, products, type Actor } from '../platform/db/schema';
import { bulkDeleteKeys, deleteKey, removeKeyActivation, revokeKey, type KeyAdmin } from '../modules/keys/admin-keys';
import { removeOwnDevice } from '../modules/licensing/devices';
import { cleanupExpiredKeys } from '../modules/keys/key-lifecycle';
import { deactivateLicense } from '../modules/licensing/licensing';
import { createUser } from '../modules/accounts/users';
import { TEST_SETTINGS, db, uniqueName } from './helpers';
import { activate, activationsOf, generated, sold } from './key-admin-helpers';
import { makeProduct } from './shop-helpers';
import { DAY_MS } from '../platform/vocabulary';

async function account(role: Actor['role'], credits = 0) {
  const username = uniqueName(role);
  const user = await createUser(db(), { username, email: `${username}@counters.example`, password: 'Steady-Secret-9', role, credits });
  return { id: user.id, username, email: `${username}@counters.example`, role };
}

/** A product whose keys take many devices, its owner, a customer, and the figure against the rows. */
async function shop() {
  const product = await makeProduct({ maxActivations: 50, baseCreditCost: 1, creditsPerDay: 0 });
  const owner = await account('owner');
  const customer = await account('user', 10_000);
  const admin: KeyAdmin = { db: db(), actor: owner, ip: null };
  const figure = async () => (await db().select().from(products).where(eq(products.id, product.id)).get())!.totalActivations;
  const rows = async () =>
    (await db()
      .select({ n: sql<number>`count(*)` })
      .from(activations)
      .innerJoin(licenseKeys, eq(licenseKeys.id, activations.keyId))
      .where(eq(licenseKeys.productId, product.id))
      .get())!.n;
  /** The figure, checked against the rows. */
  const counted = async () => {
    const n = await figure();
    expect(n).toBe(await rows());
    return n;
  };
  const activated = async (key: string, devices: number) => {
    const fingerprints: string[] = [];
    for (let i = 0; i < devices; i++) fingerprints.push(await activate(key));
    return fingerprints;
  };
  return { product, owner, customer, admin, counted, activated };
}

describe("a product's totalActivations", () => {
  it('goes down with every device removed, by its app, its customer or the owner, and only once per device', async () => {
    const s = await shop();
    const bought = await sold(s.product.id, s.customer.id, s.customer.id);
    const fingerprints = await s.activated(bought.key, 4);
    expect(await s.counted()).toBe(4);

    expect((await deactivateLicense(env.DB, { key: bought.key, deviceFingerprint: fingerprints[0] })).code).toBe('DEACTIVATED');
    expect(await s.counted()).toBe(3);
    // Deactivated again: nothing left to remove, nothing uncounted.
    expect((await deactivateLicense(env.DB, { key: bought.key, deviceFingerprint: fingerprints[0] })).code).toBe('NOT_ACTIVATED');
    expect(await s.counted()).toBe(3);

    const [own] = (await activationsOf(bought._id)).filter((a) => a.deviceFingerprint === fingerprints[1]);
    await removeOwnDevice(db(), s.customer.id, bought._id, own.id);
    expect(await s.counted()).toBe(2);
    // The daily allowance is spent: the refused removal leaves the figure alone.
    const [next] = (await activationsOf(bought._id)).filter((a) => a.deviceFingerprint === fingerprints[2]);
    await expect(removeOwnDevice(db(), s.customer.id, bought._id, next.id)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(await s.counted()).toBe(2);

    await removeKeyActivation(s.admin, bought._id, next.id);
    expect(await s.counted()).toBe(1);
    await expect(removeKeyActivation(s.admin, bought._id, next.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await s.counted()).toBe(1);
  });

  it("goes down with a revoked key's devices as the owner removes them", async () => {
    const s = await shop();
    const bought = await sold(s.product.id, s.customer.id, s.customer.id);
    await s.activated(bought.key, 2);
    await revokeKey(s.admin, bought._id, 'Charged back');
    // Revoking stops the devices validating; they stay on the key, and counted, until removed.
    expect(await s.counted()).toBe(2);
    for (const device of await activationsOf(bought._id)) await removeKeyActivation(s.admin, bought._id, device.id);
    expect(await s.counted()).toBe(0);
  });

  it('goes down by all of its devices when a key is deleted, alone, in bulk, or by the cleanup job', async () => {
    const s = await shop();
    const [a, b, c, d] = await generated(s.owner, s.product.id, 4, 1);
    for (const key of [a, b, c, d]) await s.activated(key.key, 2);
    expect(await s.counted()).toBe(8);

    await deleteKey(s.admin, a._id);
    expect(await s.counted()).toBe(6);
    expect(await bulkDeleteKeys(s.admin, [b._id, c._id], 'Test')).toEqual({ deleted: 2, notFound: [] });
    expect(await s.counted()).toBe(2);

    // Expired long ago: the cleanup job deletes it, devices and all.
    const longAgo = new Date(Date.now() - 400 * DAY_MS);
    await db().update(licenseKeys).set({ status: 'expired', expiresAt: longAgo }).where(eq(licenseKeys.id, d._id));
    expect(await cleanupExpiredKeys(db(), { ...TEST_SETTINGS, autoCleanupExpiredKeys: true }, Date.now())).toBeGreaterThanOrEqual(1);
    expect(await s.counted()).toBe(0);
  });

  it('is moved by the triggers alone: any statement that removes a device uncounts it', async () => {
    const s = await shop();
    const bought = await sold(s.product.id, s.customer.id, s.customer.id);
    await s.activated(bought.key, 3);
    const [first] = await activationsOf(bought._id);
    await db().delete(activations).where(eq(activations.id, first.id));
    expect(await s.counted()).toBe(2);
    await db().delete(licenseKeys).where(eq(licenseKeys.id, bought._id));
    expect(await s.counted()).toBe(0);
  });

  it('stays exact under many removals at once, of the same devices and of different ones', async () => {
    const s = await shop();
    const keys = await generated(s.owner, s.product.id, 3, 30);
    const devices = [];
    for (const key of keys) {
      for (const fingerprint of await s.activated(key.key, 5)) devices.push({ key, fingerprint });
    }
    expect(await s.counted()).toBe(15);
    // Every device of the first key twice over by its app and once by the owner; the second key
    // deleted while its devices are being removed; the third key's devices once each.
    const firstKeyRows = await activationsOf(keys[0]._id);
    const secondKeyRows = await activationsOf(keys[1]._id);
    const settled = await Promise.allSettled([
      ...devices
        .filter((d) => d.key._id !== keys[1]._id)
        .flatMap((d) => [
          deactivateLicense(env.DB, { key: d.key.key, deviceFingerprint: d.fingerprint }),
          ...(d.key._id === keys[0]._id ? [deactivateLicense(env.DB, { key: d.key.key, deviceFingerprint: d.fingerprint })] : []),
        ]),
      ...firstKeyRows.map((row) => removeKeyActivation(s.admin, keys[0]._id, row.id)),
      ...secondKeyRows.map((row) => removeKeyActivation(s.admin, keys[1]._id, row.id)),
      deleteKey(s.admin, keys[1]._id),
    ]);
    expect(settled.length).toBeGreaterThan(20);
    expect(await s.counted()).toBe(0);
  });
});

/** shop_counts (migration 0032) against the rows themselves: keys by stored status, accounts by role. */
async function expectShopCountsExact() {
  const { results: kept } = await env.DB.prepare('SELECT kind, value, n FROM shop_counts').all<{
    kind: string;
    value: string;
    n: number;
  }>();
  const { results: rows } = await env.DB.prepare(
    `SELECT 'key_status' AS kind, status AS value, count(*) AS n FROM license_keys GROUP BY status
     UNION ALL SELECT 'user_role', role, count(*) FROM users GROUP BY role`,
  ).all<{ kind: string; value: string; n: number }>();
  const actual = new Map(rows.map((r) => [`${r.kind}:${r.value}`, r.n]));
  const counted = Object.fromEntries(kept.map((r) => [`${r.kind}:${r.value}`, r.n]));
  expect(counted).toEqual(Object.fromEntries(kept.map((r) => [`${r.kind}:${r.value}`, actual.get(`${r.kind}:${r.value}`) ?? 0])));
  // Every status and role has its row, so no row the tables have is missing from the counts.
  for (const key of actual.keys()) expect(counted).toHaveProperty([key]);
  return counted;
}

describe("the shop's counts (keys by status, accounts by role)", () => {
  it('follow every key made, bought, revoked, expired and deleted, and every account made, promoted and deleted', async () => {
    const s = await shop();
    const before = await expectShopCountsExact();
    const keys = await generated(s.owner, s.product.id, 5, 30);
    const bought = await sold(s.product.id, s.customer.id, s.customer.id);
    await s.activated(keys[0].key, 1);
    await revokeKey(s.admin, keys[1]._id, 'Charged back');
    await db()
      .update(licenseKeys)
      .set({ status: 'expired', expiresAt: new Date(Date.now() - 400 * DAY_MS) })
      .where(eq(licenseKeys.id, keys[2]._id));
    await deleteKey(s.admin, keys[3]._id);
    await bulkDeleteKeys(s.admin, [bought._id], 'Test');
    const promoted = await account('user');
    await env.DB.prepare("UPDATE users SET role = 'reseller' WHERE id = ?1").bind(promoted.id).run();
    const gone = await account('user');
    await env.DB.prepare('DELETE FROM users WHERE id = ?1').bind(gone.id).run();
    const after = await expectShopCountsExact();
    expect(after['key_status:available'] - before['key_status:available']).toBe(1);
    expect(after['key_status:used'] - before['key_status:used']).toBe(1);
    expect(after['key_status:revoked'] - before['key_status:revoked']).toBe(1);
    expect(after['key_status:expired'] - before['key_status:expired']).toBe(1);
    expect(after['user_role:reseller'] - before['user_role:reseller']).toBe(1);
  });

  it('stay exact under many purchases, generations, revocations and deletions at once', async () => {
    const s = await shop();
    const customers = await Promise.all(Array.from({ length: 4 }, () => account('user', 10_000)));
    const standing = await generated(s.owner, s.product.id, 20, 30);
    await Promise.allSettled([
      ...customers.flatMap((c) => Array.from({ length: 5 }, () => sold(s.product.id, c.id, c.id))),
      ...Array.from({ length: 5 }, () => generated(s.owner, s.product.id, 10, 30)),
      ...standing.slice(0, 10).map((k) => revokeKey(s.admin, k._id, 'Burst')),
      ...standing.slice(5, 15).map((k) => deleteKey(s.admin, k._id)),
      ...standing.slice(15).map((k) => activate(k.key)),
    ]);
    await expectShopCountsExact();
  });
});
