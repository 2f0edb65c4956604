// The device limit holds offline: a device that leaves a key (deactivated by the app, removed by its
// customer or by the owner) may still carry an offline token, so its slot stays taken until the
// longest token it can hold has expired. The owner can release such a slot at once.
import { rawSql } from '../../platform/db/client';
import { newId } from '../../platform/ids';
import { HOUR_MS } from '../../platform/vocabulary';
import { DEFAULT_OFFLINE_TOKEN_HOURS, MAX_OFFLINE_TOKEN_HOURS } from '../catalog';

export { DEFAULT_OFFLINE_TOKEN_HOURS };
/**
 * Added to every hold: a validation that read the activation just before it went may sign its token
 * a moment after, and Workers in different places read slightly different clocks.
 */
export const HOLD_SLACK_MS = 60 * 1000;

/**
 * Holds the slot of `fingerprint` on key `keyId`, once its activation `activationId` is gone (run in
 * the exit's batch, after its DELETE: device-exit.ts; a refused DELETE leaves the activation, so
 * nothing is held).
 * A slot is held for the product's token lifetime, or until tokens of a longer earlier lifetime have
 * expired; a device released twice keeps the later end. A floating device's tokens live no longer
 * than its lease or borrow: `tokensUntil`, when given, is that end. RETURNING gives `frees_at`.
 */
export function holdSlotStatement(
  keyId: string,
  activationId: string,
  fingerprint: string,
  now: number,
  tokensUntil?: number | null,
  /** The exit's claim (device-exit.ts): nothing is held unless it went in. */
  claimId?: string,
) {
  const tokensEnd =
    tokensUntil === undefined || tokensUntil === null
      ? `?4 + ${HOLD_SLACK_MS} + max(coalesce(p.offline_token_hours, ${MAX_OFFLINE_TOKEN_HOURS}) * ${HOUR_MS}, coalesce(p.earlier_tokens_live_until, 0) - ?4)`
      : `max(${Math.floor(tokensUntil)}, ?4) + ${HOLD_SLACK_MS}`;
  return rawSql(
    `INSERT INTO held_slots (id, key_id, device_fingerprint, released_at, frees_at)
       SELECT ?1, k.id, ?3, ?4, ${tokensEnd}
         FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
        WHERE k.id = ?2 AND NOT EXISTS (SELECT 1 FROM activations a WHERE a.id = ?5)${claimId ? ' AND EXISTS (SELECT 1 FROM device_removals WHERE id = ?6)' : ''}
       ON CONFLICT (key_id, device_fingerprint) DO UPDATE SET released_at = excluded.released_at, frees_at = max(held_slots.frees_at, excluded.frees_at)
       RETURNING frees_at`,
    newId(now),
    keyId,
    fingerprint,
    now,
    activationId,
    ...(claimId ? [claimId] : []),
  );
}

/** `frees_at` from the result of `holdSlotStatement`, or null when nothing was held. */
export const heldUntil = (rows: unknown) => (rows as Array<{ frees_at: number }>)[0]?.frees_at ?? null;
