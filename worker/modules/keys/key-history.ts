// A key's history (its activity), newest first, paged: one query over where each kind of line is
// recorded, so nothing is written twice. The key row: its purchase (or creation) and its
// revocation. key_events: its transfers, regenerations and its devices' activations (the last by a
// trigger, migration 0023). device_removals: devices its customer or their app removed or swapped (the
// exempt ones are the owner's, in the audit log, and a transfer's, in its own line).
// The audit log: devices the owner removed. device_days: the UTC days each device validated, with
// the day's count (licensing's batch of touches adds to it). key_renewals: its renewals, and the
// auto-renewals its customer's balance did not cover.
import { licenseKeys } from '../../platform/db/schema';
import { rawSql, runBatch } from '../../platform/db/client';
import { eq } from 'drizzle-orm';
import { DAY_MS, type KeyHistoryKind, type RenewalSource } from '../../platform/vocabulary';
import { notFound } from '../../platform/errors';
import { mayReach, type KeyCarer, type Reach } from './key-care';
import type { LicenseKeyRow } from './license-keys';
import type { KeyHistoryEvent, KeyHistoryQuery, KeyHistoryResponse } from './schemas/key-history';

// Every branch has the same columns: id, at, kind, device, device_name, by_owner, from_id, to_id,
// reason, devices_freed, price, day, validations, source, days, expires_to. ?1 is the key. Each reads
// by an index on its key. The key row gives two lines (its purchase, and its revocation once revoked)
// from one branch, and key_events and key_renewals share one (a compound of their own): D1 allows
// five terms in a compound SELECT.
const LINES = `
  SELECT k.id || CASE WHEN n.value = 0 THEN ':created' ELSE ':revoked' END AS id,
         CASE WHEN n.value = 0 THEN coalesce(k.purchased_at, k.created_at) ELSE k.revoked_at END AS at,
         CASE WHEN n.value = 1 THEN 'revoked' WHEN k.purchased_at IS NULL THEN 'created' ELSE 'purchased' END AS kind,
         NULL AS device, NULL AS device_name, NULL AS by_owner, NULL AS from_id, NULL AS to_id,
         CASE WHEN n.value = 1 THEN k.revoke_reason END AS reason, NULL AS devices_freed,
         CASE WHEN n.value = 0 AND k.purchased_at IS NOT NULL THEN k.purchase_price END AS price, NULL AS day, NULL AS validations,
         NULL AS source, NULL AS days, NULL AS expires_to
    FROM license_keys k, json_each('[0, 1]') AS n
   WHERE k.id = ?1 AND (n.value = 0 OR (k.status = 'revoked' AND k.revoked_at IS NOT NULL))
  UNION ALL
  SELECT * FROM (
    SELECT e.id, e.at, e.kind, json_extract(e.detail, '$.device'), coalesce(json_extract(e.detail, '$.name'), json_extract(e.detail, '$.model')),
           NULL, e.from_user_id, e.to_user_id, json_extract(e.detail, '$.reason'), json_extract(e.detail, '$.devicesFreed'), NULL, NULL, NULL,
           NULL, NULL, NULL
      FROM key_events e WHERE e.key_id = ?1
    UNION ALL
    SELECT n.id, n.at, CASE WHEN n.outcome = 'failed' THEN 'auto_renew_failed' ELSE 'renewed' END, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           n.credits, NULL, NULL, n.source, n.days, n.to_expires_at
      FROM key_renewals n WHERE n.key_id = ?1)
  UNION ALL
  SELECT r.id, r.removed_at, CASE WHEN r.replaced THEN 'device_swapped' ELSE 'device_removed' END, r.device_fingerprint, NULL,
         CASE WHEN r.replaced THEN NULL ELSE 0 END, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM device_removals r WHERE r.key_id = ?1 AND r.counted
  UNION ALL
  SELECT l.id, l.created_at, 'device_removed', json_extract(l.details, '$.deviceFingerprint'),
         coalesce(json_extract(l.details, '$.deviceInfo.device'), json_extract(l.details, '$.deviceInfo.model')), 1,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM audit_log l WHERE l.target_id = ?1 AND l.action = 'key.remove_activation'
  UNION ALL
  SELECT d.key_id || ':' || d.day || ':' || d.device_fingerprint, d.last_at, 'validated', d.device_fingerprint, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL, d.day, d.validations, NULL, NULL, NULL
    FROM device_days d WHERE d.key_id = ?1`;

const username = (column: string) => `(SELECT u.username FROM users u WHERE u.id = h.${column})`;

// Who held the key when line h happened: the receiver of the last transfer before it, else the
// giver of the first transfer (the first holder), else the holder now. A line at the very moment of a
// transfer is the giver's (what a transfer does to the giver's devices and value), but for the
// transfer's own line, which both of them see.
const TRANSFERS = `FROM key_events t WHERE t.key_id = ?1 AND t.kind = 'transferred'`;
const HOLDER_AT = `coalesce(
    (SELECT t.to_user_id ${TRANSFERS} AND t.at < h.at ORDER BY t.at DESC, t.id DESC LIMIT 1),
    (SELECT t.from_user_id ${TRANSFERS} ORDER BY t.at, t.id LIMIT 1),
    (SELECT k.purchased_by FROM license_keys k WHERE k.id = ?1))`;
/**
 * ?4: the holder asking (My Keys), who sees only what happened while they held the key (earlier
 * holders' devices, names, prices and usernames are theirs), or null for the owner and a reseller.
 */
const SEEN_BY = `(?4 IS NULL OR (CASE WHEN h.kind = 'transferred' THEN ?4 IN (h.from_id, h.to_id) ELSE ${HOLDER_AT} = ?4 END))`;

const PAGE_SQL = `SELECT h.*, ${username('from_id')} AS from_name, ${username('to_id')} AS to_name
  FROM (${LINES}) h WHERE ${SEEN_BY} ORDER BY h.at DESC, h.id DESC LIMIT (?2 + 0) OFFSET (?3 + 0)`;
const COUNT_SQL = `SELECT count(*) AS n FROM (${LINES}) h WHERE ${SEEN_BY}`;

type LineRow = {
  id: string;
  at: number;
  kind: KeyHistoryKind;
  device: string | null;
  device_name: string | null;
  by_owner: number | null;
  from_name: string | null;
  to_name: string | null;
  reason: string | null;
  devices_freed: number | null;
  price: number | null;
  day: number | null;
  validations: number | null;
  source: RenewalSource | null;
  days: number | null;
  expires_to: number | null;
};

const line = (r: LineRow): KeyHistoryEvent => ({
  _id: r.id,
  at: new Date(r.at).toISOString(),
  kind: r.kind,
  device: r.device,
  deviceName: r.device_name,
  by: r.source ?? (r.by_owner === null ? null : r.by_owner === 1 ? 'owner' : 'customer'),
  from: r.from_name,
  to: r.to_name,
  reason: r.reason,
  devicesFreed: r.devices_freed,
  price: r.price,
  day: r.day === null ? null : new Date(r.day * DAY_MS).toISOString().slice(0, 10),
  validations: r.validations,
  days: r.days,
  expiresAt: r.expires_to === null ? null : new Date(r.expires_to).toISOString(),
});

/**
 * The key's history, newest first, for an actor who may reach it (as key care: a customer their own
 * key, the owner any key, a reseller the keys they bought for customers); one round trip, the key
 * read with the page. A key out of reach is not found. A holder sees only what happened while they
 * held it (issue 42): a key given to them shows neither the earlier holder's devices and their
 * names, nor the price it was bought at, nor earlier transfers' usernames.
 */
export async function keyHistory(
  carer: Pick<KeyCarer, 'db' | 'actor'>,
  id: string,
  reach: Reach,
  { page, limit }: KeyHistoryQuery,
): Promise<KeyHistoryResponse> {
  const { db, actor } = carer;
  // A holder sees their own time with the key; the owner (and a reseller reaching it) all of it.
  const holder = reach === 'holder' ? actor.id : null;
  const [keys, rows, counted] = await runBatch(db, [
    db.select().from(licenseKeys).where(eq(licenseKeys.id, id)),
    rawSql(PAGE_SQL, id, limit, (page - 1) * limit, holder),
    rawSql(COUNT_SQL, id, null, null, holder),
  ]);
  const key = (keys as LicenseKeyRow[])[0];
  if (!key || !(await mayReach(db, actor, key, reach))) throw notFound('License key');
  const total = (counted as Array<{ n: number }>)[0]?.n ?? 0;
  return { events: (rows as LineRow[]).map(line), total, totalPages: Math.max(1, Math.ceil(total / limit)) };
}
