// A customer removing a device from their own key: the top support request of every licensing
// product, allowed once a day per key so a key cannot be passed around by removing devices.
import type { DB } from '../db/client';
import { AppError, notFound } from '../lib/errors';
import { heldUntil, holdSlotStatement } from './held-slots';
import { DAY_MS } from './licensing';
import { activationEvent, asD1, dispatchCommitted } from './webhook-outbox';

export const DEVICE_REMOVAL_INTERVAL_MS = DAY_MS;

/** Removes the device; returns when its slot frees (held while its offline tokens may live). */
export async function removeOwnDevice(
  db: DB,
  userId: string,
  keyId: string,
  activationId: string,
  now = Date.now(),
): Promise<{ slotFreesAt: number }> {
  const d1 = db.$client;
  const found = await d1
    .prepare(
      `SELECT k.product_id, k.last_device_removal_at, a.device_fingerprint FROM license_keys k
         JOIN activations a ON a.key_id = k.id AND a.id = ?3
        WHERE k.id = ?1 AND k.purchased_by = ?2`,
    )
    .bind(keyId, userId, activationId)
    .first<{ product_id: string; last_device_removal_at: number | null; device_fingerprint: string }>();
  if (!found) throw notFound('Device');
  const allowedFrom = now - DEVICE_REMOVAL_INTERVAL_MS;
  // The daily allowance is claimed and the device removed in one batch: the DELETE runs only while
  // the key is still allowed, so two removals racing cannot both pass. The device's slot stays held
  // while its offline tokens may live (held-slots.ts). Its webhook event is read before it goes.
  const allowed =
    ' AND EXISTS (SELECT 1 FROM license_keys WHERE id = a.key_id AND (last_device_removal_at IS NULL OR last_device_removal_at <= ?4))';
  const [event, removed, , , held] = await d1.batch([
    asD1(d1, activationEvent('license.deactivated', activationId, now, { sql: allowed, params: [allowedFrom] })),
    d1
      .prepare(
        `DELETE FROM activations WHERE id = ?1 AND key_id = ?2 AND EXISTS (
           SELECT 1 FROM license_keys WHERE id = ?2 AND (last_device_removal_at IS NULL OR last_device_removal_at <= ?3))`,
      )
      .bind(activationId, keyId, allowedFrom),
    d1.prepare('UPDATE license_keys SET last_device_removal_at = ?1 WHERE id = ?2 AND changes() = 1').bind(now, keyId),
    d1
      .prepare('UPDATE products SET total_activations = max(total_activations - 1, 0) WHERE id = ?1 AND changes() = 1')
      .bind(found.product_id),
    holdSlotStatement(d1, keyId, activationId, found.device_fingerprint, now),
  ]);
  await dispatchCommitted([event]);
  const slotFreesAt = heldUntil(held);
  if (removed.meta.changes === 1 && slotFreesAt !== null) return { slotFreesAt };
  const latest = await d1
    .prepare('SELECT last_device_removal_at AS at FROM license_keys WHERE id = ?1')
    .bind(keyId)
    .first<{ at: number | null }>();
  const nextAt = (latest?.at ?? now) + DEVICE_REMOVAL_INTERVAL_MS;
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
