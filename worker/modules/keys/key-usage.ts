// The owner's side of entitlements and metered usage on one key: the entitlements granted to it
// beyond its product's, a top-up of its uses, and its usage with its history. Each change is one
// batch with its audit row; a top-up moves the key's uses and writes its history row together.
import { and, desc, eq, sql } from 'drizzle-orm';
import { rawSql, runBatch, type DB } from '../../platform/db/client';
import { licenseKeys, usageEvents, users } from '../../platform/db/schema';
import { AppError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { auditStatement } from '../audit';
import { usageSql } from '../catalog';
import { findKey, requireKey, type KeyAdmin } from './admin-keys';
import { licenseKeysJson } from './license-keys';
import type { KeyUsageResponse, LicenseKey } from './schemas/answers';
import { DELETED_USER } from './license-keys';

/** Sets the entitlements granted to one key (its product's stay); its next licensing answer carries them. */
export async function setKeyEntitlements(admin: KeyAdmin, keyId: string, granted: string[], now = Date.now()): Promise<LicenseKey> {
  const { db, actor, ip } = admin;
  const key = await requireKey(db, keyId);
  await runBatch(db, [
    auditStatement(
      db,
      actor,
      'key.entitlements',
      { type: 'license_key', id: keyId },
      { key: key.key, granted, before: key.entitlements },
      ip,
    ),
    db.update(licenseKeys).set({ entitlements: granted }).where(eq(licenseKeys.id, keyId)),
  ]);
  const [json] = await licenseKeysJson(db, [(await findKey(db, keyId)) ?? key], now);
  return json;
}

const USE = usageSql('k', 'p', '?3');
// ?1 key, ?2 amount, ?3 now, ?4 the history row's id, ?5 the owner.
const TOP_UP_ROW = `INSERT INTO usage_events (id, key_id, product_id, kind, amount, remaining, actor_id, at)
  SELECT ?4, k.id, k.product_id, 'top_up', ?2, ${USE.remaining} + ?2, ?5, ?3
    FROM license_keys k JOIN products p ON p.id = k.product_id
   WHERE k.id = ?1 AND p.usage_allowance IS NOT NULL`;
const TOP_UP_KEY = `UPDATE license_keys AS k SET usage_remaining = ${USE.remaining} + ?2, usage_period_start = ${USE.periodStart}
    FROM products p
   WHERE k.id = ?1 AND p.id = k.product_id AND EXISTS (SELECT 1 FROM usage_events WHERE id = ?4)`;

const notMetered = () =>
  new AppError('CONFLICT', "This key's product has no usage allowance: give the product one before topping up its keys");

/** Adds uses to a metered key, on top of what it has now (a refill due is applied first). */
export async function topUpKey(admin: KeyAdmin, keyId: string, amount: number, now = Date.now()): Promise<LicenseKey> {
  const { db, actor, ip } = admin;
  const key = await requireKey(db, keyId);
  const eventId = newId(now);
  const params = [keyId, amount, now, eventId, actor.id];
  const [added] = await runBatch(db, [
    rawSql(`${TOP_UP_ROW} RETURNING id`, ...params),
    rawSql(TOP_UP_KEY, ...params.slice(0, 4)),
    auditStatement(
      db,
      actor,
      'key.top_up',
      { type: 'license_key', id: keyId },
      { key: key.key, amount },
      ip,
      sql`EXISTS (SELECT 1 FROM ${usageEvents} WHERE ${usageEvents.id} = ${eventId})`,
    ),
  ]);
  if ((added as unknown[]).length === 0) throw notMetered();
  const [json] = await licenseKeysJson(db, [(await findKey(db, keyId)) ?? key], now);
  return json;
}

/** A key's usage now and its history, newest first (a page). */
export async function keyUsage(db: DB, keyId: string, page: { page: number; limit: number }, now = Date.now()): Promise<KeyUsageResponse> {
  const key = await requireKey(db, keyId);
  const where = eq(usageEvents.keyId, keyId);
  const [rows, [totals], [json]] = await Promise.all([
    db
      .select({
        id: usageEvents.id,
        kind: usageEvents.kind,
        amount: usageEvents.amount,
        remaining: usageEvents.remaining,
        at: usageEvents.at,
        actor: users.username,
        actorId: usageEvents.actorId,
      })
      .from(usageEvents)
      .leftJoin(users, eq(users.id, usageEvents.actorId))
      .where(where)
      .orderBy(desc(usageEvents.at), desc(usageEvents.id))
      .limit(page.limit)
      .offset((page.page - 1) * page.limit)
      .all(),
    db
      .select({
        events: sql<number>`count(*)`,
        consumed: sql<number>`coalesce(sum(CASE WHEN ${usageEvents.kind} = 'consume' THEN ${usageEvents.amount} END), 0)`,
        toppedUp: sql<number>`coalesce(sum(CASE WHEN ${usageEvents.kind} = 'top_up' THEN ${usageEvents.amount} END), 0)`,
      })
      .from(usageEvents)
      .where(and(where))
      .all(),
    licenseKeysJson(db, [key], now),
  ]);
  return {
    key: json.key,
    entitlements: json.entitlements,
    grantedEntitlements: key.entitlements,
    usage: json.usage,
    consumed: totals.consumed,
    toppedUp: totals.toppedUp,
    history: rows.map((r) => ({
      _id: r.id,
      kind: r.kind,
      amount: r.amount,
      remaining: r.remaining,
      at: r.at.toISOString(),
      by: r.actorId === null ? null : { _id: r.actorId, username: r.actor ?? DELETED_USER },
    })),
    totalPages: Math.max(1, Math.ceil(totals.events / page.limit)),
    total: totals.events,
  };
}
