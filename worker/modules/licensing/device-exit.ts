// The one way a device leaves a key. Whoever removes it (its app deactivating, its customer on My
// Keys, the owner or a reseller in the panel, a regeneration or a transfer that frees the key's
// devices, an air-gapped device's signed proof), the same statements run in the remover's batch:
//
// 1. a claim: a device_removals row, written only while the device is there, the key's swap budget
//    has room (unless the exit is exempt from it) and the caller's own condition holds;
// 2. the device's webhook event, read while it is still there;
// 3. its DELETE, only when the claim went in;
// 4. its held slot: the slot stays taken until every offline token the device may carry has expired
//    (held-slots.ts), unless the device proved it erased its token (an air-gapped device the
//    offline request itself activated, whose proof is signed by a key only it holds).
//
// So no path frees a slot that another does not, and every removal is one row of the key's history.
// Exempt from the swap budget (counted = 0), and why: the owner's removal (the shop's own decision,
// audited) and a transfer's (the key changes hands; the giver's devices leave but their slots stay
// held, so the receiver cannot be handed more devices than the key allows). A swap (swaps.ts, My
// Keys' replace) passes the slot to the device that replaces it, within the swap budget: that path
// spends a swap but holds nothing, since the key never has more devices than its limit.
import { rawSql, type SqlStatement } from '../../platform/db/client';
import { newId } from '../../platform/ids';
import { activationEvent } from '../webhooks';
import { heldUntil, holdSlotStatement } from './held-slots';
import { DAY_MS } from '../../platform/vocabulary';

/**
 * SQL that holds while key `keyId` (an SQL expression) may lose `leaving` more devices (one by
 * default) at `at` within its product's swap budget: no budget, or room for them in the window.
 */
export const withinSwapBudget = (keyId: string, at: string, leaving = '1') => `coalesce((
  SELECT sp.swap_limit IS NULL OR (SELECT count(*) FROM device_removals r WHERE r.key_id = sk.id AND r.counted AND r.removed_at > ${at} - sp.swap_window_days * ${DAY_MS}) + ${leaving} <= sp.swap_limit
    FROM license_keys sk JOIN products sp ON sp.id = sk.product_id WHERE sk.id = ${keyId}), 1)`;

/** A condition of the caller's, written with `param` for each value it binds. */
export type ExitCondition = (param: (value: unknown) => string) => string;

export type DeviceExit = {
  keyId: string;
  activationId: string;
  fingerprint: string;
  /** A floating device's tokens end with its lease or borrow: that end, when it has one. */
  tokensUntil?: number | null;
  /** Spent from the key's swap budget (the holder's and their app's removals), or exempt (see above). */
  budget: 'counted' | 'exempt';
  /** `held` while its offline tokens may live; `proven-free` only for an offline-made device's signed proof. */
  slot: 'held' | 'proven-free';
  /** More that must hold for the device to leave (the customer's daily allowance, an unused proof). */
  when?: ExitCondition;
};

/** The statements of one device's exit, in the order they run, and how to read what they did. */
export type ExitStatements = {
  statements: SqlStatement[];
  /** The exit's device_removals row: later statements of the batch run only `WHERE EXISTS` it. */
  claimId: string;
  /** Whether the device left and, when its slot is held, until when; from the batch's results at `offset`. */
  outcome: (results: unknown[], offset: number) => { left: boolean; slotFreesAt: number | null };
};

export function deviceExitStatements(exit: DeviceExit, now: number): ExitStatements {
  const claimId = newId(now);
  const params: unknown[] = [claimId, now, exit.activationId, exit.keyId, exit.budget === 'counted' ? 1 : 0];
  const param = (value: unknown) => {
    params.push(value);
    return `?${params.length}`;
  };
  const budget = exit.budget === 'counted' ? ` AND ${withinSwapBudget('a.key_id', '?2')}` : '';
  const when = exit.when ? ` AND (${exit.when(param)})` : '';
  const claimed = 'EXISTS (SELECT 1 FROM device_removals WHERE id = ?';
  const statements = [
    rawSql(
      `INSERT INTO device_removals (id, key_id, device_fingerprint, removed_at, replaced, counted)
         SELECT ?1, a.key_id, a.device_fingerprint, ?2, 0, ?5 FROM activations a
          WHERE a.id = ?3 AND a.key_id = ?4${budget}${when}`,
      ...params,
    ),
    activationEvent('license.deactivated', exit.activationId, now, { sql: ` AND ${claimed}4)`, params: [claimId] }),
    rawSql(`DELETE FROM activations WHERE id = ?1 AND ${claimed}2) RETURNING id`, exit.activationId, claimId),
    ...(exit.slot === 'held' ? [holdSlotStatement(exit.keyId, exit.activationId, exit.fingerprint, now, exit.tokensUntil, claimId)] : []),
  ];
  return {
    statements,
    claimId,
    outcome: (results, offset) => {
      const left = (results[offset + 2] as unknown[]).length === 1;
      return { left, slotFreesAt: left && exit.slot === 'held' ? heldUntil(results[offset + 3]) : null };
    },
  };
}

/**
 * Every device of key `keyId` that the caller read, leaving in one batch: a regeneration that frees
 * the devices, a transfer. Each is its own exit, so each is held and claimed as a single removal is;
 * their webhook events are among the batch's results (dispatchCommitted finds them).
 */
export function devicesExitStatements(
  devices: Array<{ activationId: string; fingerprint: string; tokensUntil?: number | null }>,
  keyId: string,
  budget: DeviceExit['budget'],
  now: number,
  when?: ExitCondition,
): SqlStatement[] {
  return devices.flatMap((device) => deviceExitStatements({ ...device, keyId, budget, slot: 'held', when }, now).statements);
}

/** The rows the key's live devices are read by, for `devicesExitStatements`. */
export const keyDevicesStatement = (keyId: string) =>
  rawSql('SELECT id, device_fingerprint, lease_expires_at, borrowed_until FROM activations WHERE key_id = ?1', keyId);

export type KeyDeviceRow = { id: string; device_fingerprint: string; lease_expires_at: number | null; borrowed_until: number | null };

/** A device row as an exit's device: a floating device's tokens end with its lease or borrow. */
export const exitingDevice = (row: KeyDeviceRow) => ({
  activationId: row.id,
  fingerprint: row.device_fingerprint,
  tokensUntil: row.lease_expires_at === null ? null : Math.max(row.lease_expires_at, row.borrowed_until ?? 0),
});
