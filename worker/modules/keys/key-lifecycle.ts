// Keys over time: used keys past expiry (plus the grace period) become `expired` (a perpetual key has
// no expiry and never does); with autoCleanupExpiredKeys, keys expired for more than 30 days are
// deleted and the deletion audited, except perpetual-fallback keys, whose older releases live on.
import { and, eq, inArray, lt, ne } from 'drizzle-orm';
import { runBatch, type DB } from '../../platform/db/client';
import { licenseKeys } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { DAY_MS } from '../../platform/vocabulary';
import { auditStatement } from '../audit';
import type { Settings } from '../settings';
import { dispatchCommitted, expiringKeyEvents } from '../webhooks';
import { passedAt } from '../../platform/db/expiry';

export const CLEANUP_AFTER_DAYS = 30;
const DELETE_CHUNK = 90; // D1 allows 100 bound parameters per statement.

/**
 * Marks used keys whose expiry plus grace has passed as expired, with a key.expired event for each
 * (sent to `webhooks`' queue when given); returns how many changed.
 */
export async function expireKeys(db: DB, settings: Settings, now: number, webhooks?: Pick<Env, 'WEBHOOK_QUEUE'>): Promise<number> {
  const cutoff = now - settings.keyExpiryGracePeriod * DAY_MS;
  const expire = db
    .update(licenseKeys)
    .set({ status: 'expired' })
    .where(and(eq(licenseKeys.status, 'used'), passedAt(licenseKeys.expiresAt, new Date(cutoff))))
    .returning({ id: licenseKeys.id });
  const [events, expired] = await runBatch(db, [expiringKeyEvents(cutoff, now), expire]);
  if (webhooks) await dispatchCommitted([events], webhooks);
  return (expired as unknown[]).length;
}

/** Deletes keys expired for more than 30 days (past the grace period), audited; returns how many. */
export async function cleanupExpiredKeys(db: DB, settings: Settings, now: number): Promise<number> {
  if (!settings.autoCleanupExpiredKeys) return 0;
  const cutoff = now - (settings.keyExpiryGracePeriod + CLEANUP_AFTER_DAYS) * DAY_MS;
  const keys = await db
    .select({ id: licenseKeys.id, key: licenseKeys.key })
    .from(licenseKeys)
    // A perpetual-fallback key stays: the releases it covered keep validating with it.
    .where(
      and(
        eq(licenseKeys.status, 'expired'),
        lt(licenseKeys.expiresAt, new Date(cutoff)),
        ne(licenseKeys.expiryModel, 'perpetual-fallback'),
      ),
    )
    .all();
  for (let i = 0; i < keys.length; i += DELETE_CHUNK) {
    const chunk = keys.slice(i, i + DELETE_CHUNK);
    const details = { count: chunk.length, keys: chunk.map((k) => k.key), olderThanDays: CLEANUP_AFTER_DAYS };
    await db.batch([
      // Their devices go first and uncount on their products (triggers, migration 0015).
      db.delete(licenseKeys).where(
        inArray(
          licenseKeys.id,
          chunk.map((k) => k.id),
        ),
      ),
      auditStatement(db, null, 'keys.auto_cleanup', { type: 'license_key', id: null }, details, null),
    ]);
  }
  return keys.length;
}
