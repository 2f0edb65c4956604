import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, auditLog, licenseKeys, products, rateLimits, sessions } from '../platform/db/schema';
import { runScheduledJobs } from '../scheduled';
import { HOUSEKEEPING_CRON, KEY_JOBS_CRON } from '../platform/crons';
import worker from '../index';
import { newId } from '../platform/ids';
import { clearSettingsCache, saveSettings } from '../modules/settings/store';
import { TEST_SETTINGS, api, db, openSessionAt, signedInUser, withSettings } from './helpers';
import { DAY_MS } from '../platform/vocabulary';

async function productWithKeys(expiries: Array<number | null>, status: 'used' | 'available' = 'used') {
  const productId = newId();
  const keyTag = `SC${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
  await db().insert(products).values({ id: productId, name: 'Scheduled', keyTag, baseCreditCost: 1, createdAt: new Date() });
  const ids: string[] = [];
  for (const expiresAt of expiries) {
    const id = newId();
    ids.push(id);
    await db()
      .insert(licenseKeys)
      .values({
        id,
        key: `${keyTag}-${id.toUpperCase()}`,
        status,
        productId,
        productName: 'Scheduled',
        productKeyTag: keyTag,
        productType: 'software',
        duration: 30,
        maxActivations: 1,
        expiresAt: expiresAt === null ? null : new Date(expiresAt),
        createdAt: new Date(),
      });
    // A key in use has its device (which counts on the product: migration 0008); an available one has none.
    if (status === 'used')
      await db()
        .insert(activations)
        .values({ id: newId(), keyId: id, deviceFingerprint: `fp-${id}`, activatedAt: new Date() });
  }
  return { productId, ids };
}

const statuses = async (ids: string[]) =>
  (await db().select({ id: licenseKeys.id, status: licenseKeys.status }).from(licenseKeys).where(inArray(licenseKeys.id, ids)).all())
    .map((r) => [ids.indexOf(r.id), r.status])
    .sort();

describe('scheduled jobs', () => {
  it('runs expiry every minute and the housekeeping every quarter hour, each cron only its own jobs', async () => {
    const now = Date.now() + 2000 * DAY_MS; // far ahead, so only this test's keys lapse
    const { ids } = await productWithKeys([now - 1]);
    const bucket = `cron-split-${newId()}`;
    await db()
      .insert(rateLimits)
      .values({ bucket, windowStart: now - 2 * DAY_MS, count: 1 });
    const staleWindow = async () => (await db().select().from(rateLimits).where(eq(rateLimits.bucket, bucket)).all()).length;
    const fire = async (cron: string) => {
      const ctx = createExecutionContext();
      worker.scheduled({ cron, scheduledTime: now, noRetry: () => {} }, env, ctx);
      await waitOnExecutionContext(ctx);
    };

    await fire(HOUSEKEEPING_CRON);
    expect(await staleWindow()).toBe(0);
    expect(await statuses(ids)).toEqual([[0, 'used']]);

    await fire(KEY_JOBS_CRON);
    expect(await statuses(ids)).toEqual([[0, 'expired']]);
    await db()
      .insert(rateLimits)
      .values({ bucket, windowStart: now - 2 * DAY_MS, count: 1 });
    await fire(KEY_JOBS_CRON);
    expect(await staleWindow()).toBe(1);
  });

  it('expires used keys past expiry plus grace, and running twice changes nothing more', async () => {
    const now = Date.now() + 1000 * DAY_MS; // far ahead, so only this test's keys are affected by its numbers
    const { ids } = await productWithKeys([now - 1, now - 3 * DAY_MS, now + DAY_MS]);
    const unactivated = await productWithKeys([null], 'available');
    await withSettings({ keyExpiryGracePeriod: 2 }, async () => {
      await runScheduledJobs(env, now);
      expect(await statuses(ids)).toEqual([
        [0, 'used'],
        [1, 'expired'],
        [2, 'used'],
      ]);
      const second = await runScheduledJobs(env, now);
      expect(second.expired).toBe(0);
      expect(await statuses(ids)).toEqual([
        [0, 'used'],
        [1, 'expired'],
        [2, 'used'],
      ]);
      expect(await statuses(unactivated.ids)).toEqual([[0, 'available']]);
    });
  });

  it('deletes keys expired over 30 days only with autoCleanupExpiredKeys, audited and idempotent', async () => {
    const now = Date.now() + 2000 * DAY_MS;
    const { productId, ids } = await productWithKeys([now - 31 * DAY_MS, now - 29 * DAY_MS, now + DAY_MS]);
    clearSettingsCache();
    await saveSettings(env.KV, TEST_SETTINGS);
    await runScheduledJobs(env, now);
    expect(await statuses(ids)).toEqual([
      [0, 'expired'],
      [1, 'expired'],
      [2, 'used'],
    ]);

    await withSettings({ autoCleanupExpiredKeys: true }, async () => {
      const first = await runScheduledJobs(env, now);
      expect(first.deleted).toBeGreaterThanOrEqual(1);
      expect(await statuses(ids)).toEqual([
        [1, 'expired'],
        [2, 'used'],
      ]);
      expect(await db().select().from(activations).where(eq(activations.keyId, ids[0])).all()).toHaveLength(0);
      const product = await db().select().from(products).where(eq(products.id, productId)).get();
      expect(product!.totalActivations).toBe(2);
      const audits = await db().select().from(auditLog).where(eq(auditLog.action, 'keys.auto_cleanup')).all();
      expect(audits.some((a) => (a.details as { keys: string[] }).keys.some((k) => k.endsWith(ids[0].toUpperCase())))).toBe(true);

      const auditCount = audits.length;
      const second = await runScheduledJobs(env, now);
      expect(second.deleted).toBe(0);
      expect(await statuses(ids)).toEqual([
        [1, 'expired'],
        [2, 'used'],
      ]);
      expect(await db().select().from(auditLog).where(eq(auditLog.action, 'keys.auto_cleanup')).all()).toHaveLength(auditCount);
    });
  });
});

describe('the sessions table', () => {
  it('loses the rows of sessions past their lifetime, and keeps every session still live', async () => {
    const { user, token } = await signedInUser();
    // Opened 31 days ago with "remember me" (30 days): over. And one opened an hour ago.
    await openSessionAt(user, Date.now() - 31 * DAY_MS);
    const recent = await openSessionAt(user, Date.now() - 60 * 60 * 1000);
    const rowsOf = async () => (await db().select().from(sessions).where(eq(sessions.userId, user.id)).all()).length;
    expect(await rowsOf()).toBe(3);
    await runScheduledJobs(env);
    expect(await rowsOf()).toBe(2);
    await runScheduledJobs(env);
    expect(await rowsOf()).toBe(2);
    for (const live of [token, recent]) expect((await api('GET', '/api/users/profile', { token: live })).status).toBe(200);
  });
});
