// Devices' lastUsed, written in batches. A validation of a device last seen more than
// LAST_USED_WRITE_MS ago is due a write; software that checks its licence at start-up, or hourly,
// is due one on every validation. Instead of a D1 call of its own after each such answer, the writes
// due in an isolate within LAST_USED_BATCH_MS go together, as one statement: the first validation
// to need one opens the batch and keeps it alive (its request's waitUntil), the others join it.
import { isolateCache } from './isolate-cache';

import { rawSql, sqlRows } from './db/client';

/** How long a batch stays open for more devices before it is written. */
export const LAST_USED_BATCH_MS = 200;
/** At most this many devices a statement (about 45 bytes each in its parameter, far under D1's 2 MB). */
export const LAST_USED_BATCH_MAX = 1_000;

/** The open batch per D1 binding: activation id → when the device was seen. */
const open = isolateCache<D1Database, Map<string, number>>('last-used-batches');

/** Sets each listed activation's lastUsed, never moving it back: `?1` is JSON `[[id, seenAt], ...]`. */
const WRITE_LAST_USED = `UPDATE activations SET last_used = json_extract(j.value, '$[1]')
  FROM json_each(?1) AS j
  WHERE activations.id = json_extract(j.value, '$[0]')
    AND (activations.last_used IS NULL OR activations.last_used < json_extract(j.value, '$[1]'))`;

/**
 * Notes that a device (its activation) was seen at `at`, for the next batched write. Returns that
 * write when this call opened the batch, for the caller to keep alive, or null when an open batch
 * carries it (only the request that opened a batch waits on it: a promise of another request's
 * I/O is not one a request may wait for).
 */
export function noteDeviceSeen(d1: D1Database, activationId: string, at: number, windowMs = LAST_USED_BATCH_MS): Promise<void> | null {
  const batch = open.get(d1);
  if (batch && (batch.size < LAST_USED_BATCH_MAX || batch.has(activationId))) {
    batch.set(activationId, Math.max(at, batch.get(activationId) ?? at));
    return null;
  }
  // None open, or the open one is full: a new one (a full one is still written on its own timer).
  const seen = new Map([[activationId, at]]);
  open.set(d1, seen);
  return new Promise((resolve) => setTimeout(resolve, windowMs)).then(async () => {
    if (open.get(d1) === seen) open.delete(d1);
    await sqlRows(d1, rawSql(WRITE_LAST_USED, JSON.stringify([...seen])));
  });
}
