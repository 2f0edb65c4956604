// Idempotency-Key: a retried request gets the first answer and changes nothing more. The claim is
// an insert in the same D1 batch as the work itself, so the table's primary key (user, key) lets
// exactly one of two racing copies commit; the other's batch fails whole and replays the answer.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { DB } from './db/client';
import { idempotencyKeys } from './db/schema';
import { failedConstraint } from './db/errors';
import { AppError } from './errors';

/** An Idempotency-Key header: what Stripe and the IETF draft accept, printable ASCII up to 255. */
export const idempotencyKeySchema = z
  .string()
  .min(1, 'Idempotency-Key must not be empty')
  .max(255, 'Idempotency-Key must be at most 255 characters')
  .regex(/^[\x21-\x7e]+$/, 'Idempotency-Key must be printable ASCII without spaces');
import { z } from 'zod';

export type IdempotencyClaim = {
  userId: string;
  /** The client's header, prefixed with the operation so one key cannot replay another call's answer. */
  key: string;
  /** What the request asked for; the same key with another request is refused. */
  fingerprint: string;
};

/** The claim for a request's Idempotency-Key header; undefined when the request sent none. */
export function idempotencyClaim(
  operation: string,
  userId: string,
  header: string | undefined,
  fingerprint: string,
): IdempotencyClaim | undefined {
  if (header === undefined) return undefined;
  const parsed = idempotencyKeySchema.safeParse(header);
  if (!parsed.success) throw new AppError('VALIDATION_ERROR', parsed.error.issues[0].message, { details: { field: 'Idempotency-Key' } });
  return { userId, key: `${operation}:${parsed.data}`, fingerprint };
}

type Stored = { fingerprint: string; body: unknown };

/** The stored first answer for this claim, or null when there is none yet. */
export async function findReplay<T>(db: DB, claim: IdempotencyClaim): Promise<{ status: number; body: T } | null> {
  const row = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, claim.userId), eq(idempotencyKeys.key, claim.key)))
    .get();
  if (!row) return null;
  const stored = JSON.parse(row.response) as Stored;
  if (stored.fingerprint !== claim.fingerprint) {
    throw new AppError('CONFLICT', 'This Idempotency-Key was already used for a different request. Use a new key for a new request.');
  }
  return { status: row.status, body: stored.body as T };
}

/**
 * The batch statement that claims the key and stores the answer. `body` is SQL yielding JSON text,
 * so figures known only inside the batch (a balance after the debit) are the ones stored.
 */
export function claimStatement(db: DB, claim: IdempotencyClaim, body: SQL, status: number, now: Date) {
  return db.insert(idempotencyKeys).values({
    userId: claim.userId,
    key: claim.key,
    response: sql`json_object('fingerprint', ${claim.fingerprint}, 'body', json(${body}))`,
    status,
    createdAt: now,
  });
}

/** True when a batch failed because another request had already claimed the key. */
export const lostIdempotencyRace = (err: unknown) => failedConstraint(err, 'UNIQUE', 'idempotency_keys');
