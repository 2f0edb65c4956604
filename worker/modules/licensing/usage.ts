// Metered usage: the licensed app debits a key's uses (POST /consume). The debit is one batch whose
// first statement is the conditional one: it writes the key's usage row only while the uses left
// (refill applied, catalog/usage.ts) cover the amount, and only once per (key, Idempotency-Key), the
// unique index deciding between racing copies. The key's count moves only when that row went in, so
// a repeated key or a refusal changes nothing, and the answer is read in the same batch.
import { rawSql, runBatch } from '../../platform/db/client';
import { newId } from '../../platform/ids';
import { AppError } from '../../platform/errors';
import { usageSql } from '../catalog';
import type { Settings } from '../settings';
import { dispatchCommitted, usageExhaustedEvent } from '../webhooks';
import { describe, liveDevice, unknownKey, type KeyRow, type LicenseResult } from './licensing';
import type { AddressGuard } from './throttle';

// ?1 key id, ?2 amount, ?3 now, ?4 the Idempotency-Key, ?5 the new usage row's id.
const USE = usageSql('k', 'p', '?3');

const DEBIT_ROW = `INSERT INTO usage_events (id, key_id, product_id, kind, amount, remaining, idempotency_key, at)
  SELECT ?5, k.id, k.product_id, 'consume', ?2, ${USE.remaining} - ?2, ?4, ?3
    FROM license_keys k JOIN products p ON p.id = k.product_id
   WHERE k.id = ?1 AND p.usage_allowance IS NOT NULL AND ${USE.remaining} >= ?2
  ON CONFLICT (key_id, idempotency_key) DO NOTHING`;

const DEBIT_KEY = `UPDATE license_keys AS k SET usage_remaining = ${USE.remaining} - ?2, usage_period_start = ${USE.periodStart}
    FROM products p
   WHERE k.id = ?1 AND p.id = k.product_id AND EXISTS (SELECT 1 FROM usage_events WHERE id = ?5)`;

// The key as the batch left it, and the debit this Idempotency-Key made (now or before), if any.
const AFTER = `SELECT k.usage_remaining, k.usage_period_start, p.usage_allowance, p.usage_refill_amount, p.usage_refill_days,
       e.id AS event_id, e.amount AS event_amount, e.remaining AS event_remaining
  FROM license_keys k JOIN products p ON p.id = k.product_id
  LEFT JOIN usage_events e ON e.key_id = k.id AND e.idempotency_key = ?4
 WHERE k.id = ?1`;

type After = Pick<KeyRow, 'usage_remaining' | 'usage_period_start' | 'usage_allowance' | 'usage_refill_amount' | 'usage_refill_days'> & {
  event_id: string | null;
  event_amount: number | null;
  event_remaining: number | null;
};

const notMetered = (row: KeyRow, now: number): LicenseResult => ({
  valid: false,
  code: 'USAGE_NOT_METERED',
  detail: "This license key's product has no usage allowance",
  license: describe(row, now),
});

/**
 * POST /consume: debits `amount` uses from the key for a device activated on it. The same
 * Idempotency-Key answers the same debit again, however often or concurrently it is sent; with
 * another amount it is a 409.
 */
export async function consumeUsage(
  d1: D1Database,
  settings: Settings,
  input: { key: string; deviceFingerprint: string; amount: number },
  idempotencyKey: string,
  now = Date.now(),
  guard?: AddressGuard,
): Promise<LicenseResult> {
  const device = await liveDevice(d1, settings, input, now, guard);
  if ('refusal' in device) return device.refusal;
  const { row } = device;
  if (row.usage_allowance === null) return notMetered(row, now);

  const eventId = newId(now);
  const params = [row.id, input.amount, now, idempotencyKey, eventId];
  const [, , event, afterRows] = await runBatch(d1, [
    rawSql(DEBIT_ROW, ...params),
    rawSql(DEBIT_KEY, ...params),
    usageExhaustedEvent(eventId, now),
    rawSql(AFTER, ...params.slice(0, 4)),
  ]);
  await dispatchCommitted([event], d1);
  const after = (afterRows as After[])[0];
  if (!after) return unknownKey(d1, input.key, guard);
  const license = describe({ ...row, ...after }, now);
  if (after.event_id === null) {
    if (!license.usage) return notMetered({ ...row, ...after }, now);
    const left = license.usage.remaining;
    return {
      valid: false,
      code: 'USAGE_EXHAUSTED',
      detail: `This license key has ${left} use${left === 1 ? '' : 's'} left, fewer than the ${input.amount} asked for`,
      license,
    };
  }
  if (after.event_amount !== input.amount) {
    throw new AppError('CONFLICT', 'This Idempotency-Key already debited a different amount. Use a new key for a new debit.', {
      details: { field: 'Idempotency-Key' },
    });
  }
  const remaining = after.event_remaining!;
  return {
    valid: true,
    code: 'CONSUMED',
    replayed: after.event_id !== eventId,
    detail: `${input.amount} use${input.amount === 1 ? '' : 's'} debited; ${remaining} left`,
    license: { ...license, usage: license.usage && { ...license.usage, remaining } },
  };
}
