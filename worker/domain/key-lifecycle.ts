// Keys over time: used keys past expiry (plus the grace period) become `expired`; with
// autoCleanupExpiredKeys, keys expired for more than 30 days are deleted and the deletion audited.
import type { Env } from '../env';
import { newId } from '../lib/ids';
import type { Settings } from '../schemas/settings';
import { DAY_MS } from './licensing';
import { asD1, dispatchCommitted, expiringKeyEvents } from './webhook-outbox';

export const CLEANUP_AFTER_DAYS = 30;
const DELETE_CHUNK = 90; // D1 allows 100 bound parameters per statement.

/**
 * Marks used keys whose expiry plus grace has passed as expired, with a key.expired event for each
 * (sent to `webhooks`' queue when given); returns how many changed.
 */
export async function expireKeys(d1: D1Database, settings: Settings, now: number, webhooks?: Pick<Env, 'WEBHOOK_QUEUE'>): Promise<number> {
  const cutoff = now - settings.keyExpiryGracePeriod * DAY_MS;
  const [events, result] = await d1.batch([
    asD1(d1, expiringKeyEvents(cutoff, now)),
    d1
      .prepare(`UPDATE license_keys SET status = 'expired' WHERE status = 'used' AND expires_at IS NOT NULL AND expires_at < ?1`)
      .bind(cutoff),
  ]);
  if (webhooks) await dispatchCommitted([events], webhooks);
  return result.meta.changes;
}

/** Recounts the activations of products from the rows themselves (after keys went away). */
export function recountProductActivations(d1: D1Database, productIds: string[]): D1PreparedStatement[] {
  return [...new Set(productIds)].map((id) =>
    d1
      .prepare(
        `UPDATE products SET total_activations =
           (SELECT count(*) FROM activations a JOIN license_keys k ON k.id = a.key_id WHERE k.product_id = ?1)
         WHERE id = ?1`,
      )
      .bind(id),
  );
}

/** Deletes keys expired for more than 30 days (past the grace period), audited; returns how many. */
export async function cleanupExpiredKeys(d1: D1Database, settings: Settings, now: number): Promise<number> {
  if (!settings.autoCleanupExpiredKeys) return 0;
  const cutoff = now - (settings.keyExpiryGracePeriod + CLEANUP_AFTER_DAYS) * DAY_MS;
  const { results } = await d1
    .prepare(`SELECT id, key, product_id FROM license_keys WHERE status = 'expired' AND expires_at < ?1`)
    .bind(cutoff)
    .all<{ id: string; key: string; product_id: string }>();
  for (let i = 0; i < results.length; i += DELETE_CHUNK) {
    const chunk = results.slice(i, i + DELETE_CHUNK);
    const marks = chunk.map((_, j) => `?${j + 1}`).join(', ');
    await d1.batch([
      // Activations go with their key (ON DELETE CASCADE).
      d1.prepare(`DELETE FROM license_keys WHERE id IN (${marks})`).bind(...chunk.map((k) => k.id)),
      ...recountProductActivations(
        d1,
        chunk.map((k) => k.product_id),
      ),
      d1
        .prepare(
          `INSERT INTO audit_log (id, actor_id, action, target_type, target_id, details, ip_address, created_at) VALUES (?1, NULL, 'keys.auto_cleanup', 'license_key', NULL, ?2, NULL, ?3)`,
        )
        .bind(newId(now), JSON.stringify({ count: chunk.length, keys: chunk.map((k) => k.key), olderThanDays: CLEANUP_AFTER_DAYS }), now),
    ]);
  }
  return results.length;
}
