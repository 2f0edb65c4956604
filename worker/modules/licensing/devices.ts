// A customer removing a device from their own key: the top support request of every licensing
// product, allowed once a day per key so a key cannot be passed around by removing devices, and
// within the product's swap budget. Or replacing one: the device works on until the next new device
// activates the key, which takes its place in the same statement, so the key never loses a slot it
// is not given back (migration 0020's trigger).
import { and, eq } from 'drizzle-orm';
import { rawSql, runBatch, type DB } from '../../platform/db/client';
import { newId } from '../../platform/ids';
import { activations, licenseKeys } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { deviceExitStatements, withinSwapBudget, type ExitCondition } from './device-exit';
import { iso, swapBudget, type FullKeyRow } from './licensing';
import { DAY_MS } from '../../platform/vocabulary';
import { dispatchCommitted } from '../webhooks';

export const DEVICE_REMOVAL_INTERVAL_MS = DAY_MS;

/**
 * The holder's daily allowance of removals on a key, as an exit's condition: one device removal or
 * regeneration that frees devices a day (`a` is the exit's activation).
 */
export const dailyAllowance =
  (allowedFrom: number): ExitCondition =>
  (param) =>
    `EXISTS (SELECT 1 FROM license_keys WHERE id = a.key_id AND (last_device_removal_at IS NULL OR last_device_removal_at <= ${param(allowedFrom)}))`;

/** Removes the device; returns when its slot frees (held while its offline tokens may live). */
export async function removeOwnDevice(
  db: DB,
  userId: string,
  keyId: string,
  activationId: string,
  now = Date.now(),
): Promise<{ slotFreesAt: number }> {
  const found = await db
    .select({ fingerprint: activations.deviceFingerprint, leaseExpiresAt: activations.leaseExpiresAt })
    .from(licenseKeys)
    .innerJoin(activations, and(eq(activations.keyId, licenseKeys.id), eq(activations.id, activationId)))
    .where(and(eq(licenseKeys.id, keyId), eq(licenseKeys.purchasedBy, userId)))
    .get();
  if (!found) throw notFound('Device');
  const allowedFrom = now - DEVICE_REMOVAL_INTERVAL_MS;
  // The daily allowance is claimed and the device removed in one batch: the device leaves (its one
  // way out, device-exit.ts: held slot, swap budget) only while the key is still allowed, so two
  // removals racing cannot both pass; the allowance is spent only when it did.
  const exit = deviceExitStatements(
    {
      keyId,
      activationId,
      fingerprint: found.fingerprint,
      tokensUntil: found.leaseExpiresAt?.getTime(),
      budget: 'counted',
      slot: 'held',
      when: dailyAllowance(allowedFrom),
    },
    now,
  );
  const results = await runBatch(db, [
    ...exit.statements,
    rawSql(
      'UPDATE license_keys SET last_device_removal_at = ?1 WHERE id = ?2 AND EXISTS (SELECT 1 FROM device_removals WHERE id = ?3)',
      now,
      keyId,
      exit.claimId,
    ),
  ]);
  await dispatchCommitted(results, db);
  const { left, slotFreesAt } = exit.outcome(results, 0);
  if (left && slotFreesAt !== null) return { slotFreesAt };
  const swaps = await ownKeySwaps(db, userId, keyId, now);
  if (swaps.swapsLeft === 0) throw swapsSpent(swaps.nextSwapAt, now);
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

export type OwnKeySwaps = { swapLimit: number | null; swapWindowDays: number; swapsLeft: number | null; nextSwapAt: number | null };

/** A customer's key's swap budget now (My Keys shows it). */
export async function ownKeySwaps(db: DB, userId: string, keyId: string, now = Date.now()): Promise<OwnKeySwaps> {
  const [rows] = await runBatch(db, [
    rawSql(
      `SELECT p.swap_limit, p.swap_window_days,
              (SELECT json_group_array(r.removed_at) FROM device_removals r WHERE r.key_id = k.id AND r.counted AND r.removed_at > ?3 - p.swap_window_days * ${DAY_MS}) AS recent_removals
         FROM license_keys k JOIN products p ON p.id = k.product_id WHERE k.id = ?1 AND k.purchased_by = ?2`,
      keyId,
      userId,
      now,
    ),
  ]);
  const row = (rows as Array<Pick<FullKeyRow, 'swap_limit' | 'swap_window_days' | 'recent_removals'>>)[0];
  if (!row) throw notFound('License key');
  const { swapsLeft, nextSwapAt } = swapBudget(row);
  return { swapLimit: row.swap_limit, swapWindowDays: row.swap_window_days ?? 0, swapsLeft, nextSwapAt };
}

function swapsSpent(nextSwapAt: number | null, now: number) {
  if (nextSwapAt === null) return new AppError('CONFLICT', "This key's devices cannot be removed or replaced: its product allows no swaps");
  const seconds = Math.max(1, Math.ceil((nextSwapAt - now) / 1000));
  return new AppError('RATE_LIMITED', `This key has no device swaps left for now. The next is allowed at ${iso(nextSwapAt)}.`, {
    headers: { 'Retry-After': String(seconds) },
    details: { nextSwapAt: iso(nextSwapAt) },
  });
}

/**
 * The customer asks to replace a device (My Keys): its swap is spent now, within the budget, and it
 * works on until the next new device activates the key and takes its place. Nothing else changes
 * until then, so the key never has fewer devices than the customer meant nor more than its limit.
 */
export async function requestDeviceReplacement(
  db: DB,
  userId: string,
  keyId: string,
  activationId: string,
  now = Date.now(),
): Promise<OwnKeySwaps> {
  const removalId = newId(now);
  const [, marked] = await runBatch(db, [
    rawSql(
      `INSERT INTO device_removals (id, key_id, device_fingerprint, removed_at, replaced)
         SELECT ?1, a.key_id, a.device_fingerprint, ?2, 1 FROM activations a JOIN license_keys k ON k.id = a.key_id
          WHERE a.id = ?3 AND k.id = ?4 AND k.purchased_by = ?5 AND a.replace_pending_at IS NULL AND ${withinSwapBudget('k.id', '?2')}`,
      removalId,
      now,
      activationId,
      keyId,
      userId,
    ),
    rawSql(
      'UPDATE activations SET replace_pending_at = ?1 WHERE id = ?2 AND EXISTS (SELECT 1 FROM device_removals WHERE id = ?3) RETURNING id',
      now,
      activationId,
      removalId,
    ),
  ]);
  if ((marked as unknown[]).length === 1) return ownKeySwaps(db, userId, keyId, now);
  const device = await db
    .select({ pending: activations.replacePendingAt })
    .from(licenseKeys)
    .innerJoin(activations, and(eq(activations.keyId, licenseKeys.id), eq(activations.id, activationId)))
    .where(and(eq(licenseKeys.id, keyId), eq(licenseKeys.purchasedBy, userId)))
    .get();
  if (!device) throw notFound('Device');
  if (device.pending) throw new AppError('CONFLICT', 'This device is already waiting for its replacement');
  const swaps = await ownKeySwaps(db, userId, keyId, now);
  throw swapsSpent(swaps.nextSwapAt, now);
}
