// Last-seen times (and counts of sightings), written together. A device's lastUsed, an API token's lastUsed and a session's
// lastActive are each rewritten at most every few minutes per row (the modules decide when one is
// due), and never on the request's own round trip. The touches due in an isolate within
// TOUCH_BATCH_MS go together, whatever their kind, as one D1 batch (one round trip, one statement
// per kind): the first touch opens the batch and keeps it alive (its request's waitUntil), the
// others join it.
//
// What an isolate's end can lose, and how a loss is seen, is in docs/performance.md ("Touches").
import { isolateCache } from './isolate-cache';

/** How long a batch stays open for more touches before it is written. */
export const TOUCH_BATCH_MS = 200;
/** At most this many rows a batch (about 45 bytes each in its parameter, far under D1's 2 MB). */
export const TOUCH_BATCH_MAX = 1_000;

/**
 * A kind of last-seen time. `sql` is its UPDATE, which reads `?1` as JSON `[[id, at, ...extra], ...]`
 * and never moves a time back. `forget` hears of rows whose write failed, so the module's own
 * "written recently" marks do not hold back the next touch. `merge`, for a kind that counts, makes
 * one entry of a row's two sightings in a batch (by default the later one is kept).
 */
export type TouchKind = {
  readonly name: string;
  readonly sql: string;
  readonly forget?: (ids: string[]) => void;
  readonly merge?: (known: number[], seen: number[]) => number[];
};

type Batch = { rows: Map<TouchKind, Map<string, number[]>>; size: number };

/** The open batch per D1 binding. */
const open = isolateCache<D1Database, Batch>('touch-batches');

/**
 * Notes that `id` of `kind` was seen at `at` (with the kind's `extra` values), for the next batched
 * write. Returns that write when this call opened the batch, for the caller to keep alive, or null
 * when an open batch carries it (only the request that opened a batch waits on it: a promise of
 * another request's I/O is not one a request may wait for). The same row noted twice keeps its
 * later sighting.
 */
export function noteTouch(
  d1: D1Database,
  kind: TouchKind,
  id: string,
  at: number,
  extra: number[] = [],
  windowMs = TOUCH_BATCH_MS,
): Promise<void> | null {
  const entry = [at, ...extra];
  const batch = open.get(d1);
  const known = batch?.rows.get(kind)?.get(id);
  if (batch && (known || batch.size < TOUCH_BATCH_MAX)) {
    if (known) {
      if (kind.merge) batch.rows.get(kind)!.set(id, kind.merge(known, entry));
      else if (known[0] < at) batch.rows.get(kind)!.set(id, entry);
    } else {
      const rows = batch.rows.get(kind) ?? new Map<string, number[]>();
      batch.rows.set(kind, rows.set(id, entry));
      batch.size++;
    }
    return null;
  }
  // None open, or the open one is full: a new one (a full one is still written on its own timer).
  const fresh: Batch = { rows: new Map([[kind, new Map([[id, entry]])]]), size: 1 };
  open.set(d1, fresh);
  return new Promise((resolve) => setTimeout(resolve, windowMs)).then(() => write(d1, fresh));
}

async function write(d1: D1Database, batch: Batch): Promise<void> {
  if (open.get(d1) === batch) open.delete(d1);
  const kinds = [...batch.rows];
  try {
    await d1.batch(kinds.map(([kind, rows]) => d1.prepare(kind.sql).bind(JSON.stringify([...rows].map(([id, entry]) => [id, ...entry])))));
  } catch (error) {
    // Not silent: the loss is logged, and the rows are due again at their next use.
    const counts = kinds.map(([kind, rows]) => `${rows.size} ${kind.name}`).join(', ');
    console.error(`Last-seen times not written (${counts}): ${error instanceof Error ? error.message : String(error)}`);
    for (const [kind, rows] of kinds) kind.forget?.([...rows.keys()]);
  }
}
