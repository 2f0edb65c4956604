// The audit log: who did what, to whom, when and from where, for every admin action.
// `auditStatement` returns a batch item, so an admin write and its audit row commit together.
import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { runtimeLimit } from '../../platform/db/compiled';
import { auditLog, users } from '../../platform/db/schema';
import { newId } from '../../platform/ids';
import { AUDIT_ACTIONS, type AuditAction, type AuditEntry, type AuditLogQuery } from './schemas';

export { AUDIT_ACTIONS, type AuditAction };

export type AuditActor = { id: string } | null;
export type AuditTarget = { type: 'user' | 'product' | 'license_key' | 'settings' | 'payment' | 'reseller_tier'; id: string | null };
export type AuditDetails = Record<string, unknown> | null;

function auditRow(actor: AuditActor, action: AuditAction, target: AuditTarget, details: AuditDetails, ip: string | null) {
  return {
    id: newId(),
    actorId: actor?.id ?? null,
    action,
    targetType: target.type,
    targetId: target.id,
    details,
    ipAddress: ip,
    createdAt: new Date(),
  };
}

/**
 * The audit row as a statement for `db.batch([...])`. With `onlyIf`, the row is written only when
 * that condition holds inside the batch: the same guard as the write it records, so a refused
 * write leaves no audit row behind.
 */
export function auditStatement(
  db: DB,
  actor: AuditActor,
  action: AuditAction,
  target: AuditTarget,
  details: AuditDetails,
  ip: string | null,
  onlyIf?: SQL,
) {
  const row = auditRow(actor, action, target, details, ip);
  if (!onlyIf) return db.insert(auditLog).values(row);
  // INSERT ... SELECT lists every column in the table's order.
  return db
    .insert(auditLog)
    .select(
      sql`SELECT ${row.id}, ${row.actorId}, ${row.action}, ${row.targetType}, ${row.targetId}, ${row.details === null ? null : JSON.stringify(row.details)}, ${row.ipAddress}, ${row.createdAt.getTime()} WHERE ${onlyIf}`,
    );
}

/** Writes the audit row on its own (for a change already committed, or one that cannot be refused). */
export async function recordAudit(db: DB, ...entry: [AuditActor, AuditAction, AuditTarget, AuditDetails, ip: string | null]) {
  await auditStatement(db, ...entry);
}

/** One page of the log, newest first, filtered by action and by the actor's username. */
export async function listAuditLog(db: DB, query: AuditLogQuery): Promise<{ entries: AuditEntry[]; totalPages: number; total: number }> {
  let actorId: string | undefined;
  if (query.actor) {
    const actor = await db
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.username}) = ${query.actor.toLowerCase()}`)
      .get();
    if (!actor) return { entries: [], totalPages: 0, total: 0 };
    actorId = actor.id;
  }
  // Each filter has its own index: (action, created_at) and (actor_id, created_at).
  const where = and(query.action ? eq(auditLog.action, query.action) : undefined, actorId ? eq(auditLog.actorId, actorId) : undefined);
  // The page and its total in one round trip.
  const [rows, [totalRow]] = await db.batch([
    db
      .select({ entry: auditLog, actorName: users.username })
      .from(auditLog)
      .leftJoin(users, eq(users.id, auditLog.actorId))
      .where(where)
      .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
      .limit(runtimeLimit(query.limit))
      .offset(runtimeLimit((query.page - 1) * query.limit)),
    db.select({ n: count() }).from(auditLog).where(where),
  ]);
  const total = totalRow?.n ?? 0;
  return {
    entries: rows.map(({ entry, actorName }) => ({
      _id: entry.id,
      action: entry.action as AuditAction,
      actor: entry.actorId ? { _id: entry.actorId, username: actorName ?? null } : null,
      targetType: entry.targetType,
      targetId: entry.targetId,
      details: entry.details ?? null,
      ipAddress: entry.ipAddress,
      createdAt: entry.createdAt.toISOString(),
    })),
    totalPages: Math.ceil(total / query.limit),
    total,
  };
}
