// A customer removing a device from their own key: the top support request of every licensing
// product, allowed once a day per key so a key cannot be passed around by removing devices.
import { and, eq } from 'drizzle-orm';
import { rawSql, runBatch, type DB } from '../../platform/db/client';
import { activations, licenseKeys } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { heldUntil, holdSlotStatement } from './held-slots';
import { DAY_MS } from '../../platform/vocabulary';
import { activationEvent, dispatchCommitted } from '../webhooks';

export const DEVICE_REMOVAL_INTERVAL_MS = DAY_MS;

/** Removes the device; returns when its slot frees (held while its offline tokens may live). */
export async function removeOwnDevice(
  db: DB,
  userId: string,
  keyId: string,
  activationId: string,
  now = Date.now(),
): Promise<{ slotFreesAt: number }> {
  const found = await db
    .select({ fingerprint: activations.deviceFingerprint })
    .from(licenseKeys)
    .innerJoin(activations, and(eq(activations.keyId, licenseKeys.id), eq(activations.id, activationId)))
    .where(and(eq(licenseKeys.id, keyId), eq(licenseKeys.purchasedBy, userId)))
    .get();
  if (!found) throw notFound('Device');
  const allowedFrom = now - DEVICE_REMOVAL_INTERVAL_MS;
  // The daily allowance is claimed and the device removed in one batch: the DELETE runs only while
  // the key is still allowed, so two removals racing cannot both pass. The device's slot stays held
  // while its offline tokens may live (held-slots.ts), and it uncounts on its product as it goes (a
  // trigger, migration 0015). Its webhook event is read before it goes.
  const allowed =
    ' AND EXISTS (SELECT 1 FROM license_keys WHERE id = a.key_id AND (last_device_removal_at IS NULL OR last_device_removal_at <= ?4))';
  const [event, removed, , held] = await runBatch(db, [
    activationEvent('license.deactivated', activationId, now, { sql: allowed, params: [allowedFrom] }),
    rawSql(
      `DELETE FROM activations WHERE id = ?1 AND key_id = ?2 AND EXISTS (
         SELECT 1 FROM license_keys WHERE id = ?2 AND (last_device_removal_at IS NULL OR last_device_removal_at <= ?3))
       RETURNING id`,
      activationId,
      keyId,
      allowedFrom,
    ),
    // changes() is the DELETE's own count (never its triggers'): the allowance is spent only by a removal.
    rawSql('UPDATE license_keys SET last_device_removal_at = ?1 WHERE id = ?2 AND changes() = 1', now, keyId),
    holdSlotStatement(keyId, activationId, found.fingerprint, now),
  ]);
  await dispatchCommitted([event], db);
  const slotFreesAt = heldUntil(held);
  if ((removed as unknown[]).length === 1 && slotFreesAt !== null) return { slotFreesAt };
  const latest = await db.select({ at: licenseKeys.lastDeviceRemovalAt }).from(licenseKeys).where(eq(licenseKeys.id, keyId)).get();
  const nextAt = (latest?.at?.getTime() ?? now) + DEVICE_REMOVAL_INTERVAL_MS;
  const seconds = Math.max(1, Math.ceil((nextAt - now) / 1000));
  const hours = Math.ceil(seconds / 3600);
  throw new AppError(
    'RATE_LIMITED',
    `You can remove one device from this key each day. Try again in ${hours} hour${hours === 1 ? '' : 's'}.`,
    {
      headers: { 'Retry-After': String(seconds) },
      details: { nextRemovalAt: new Date(nextAt).toISOString() },
    },
  );
}
