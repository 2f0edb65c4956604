// Counts that ride in the batch of the page that shows them (one round trip for a page and its
// totals), and whole-shop counts an isolate may reuse for a few seconds on a large shop.
import { databaseOf, runBatch, type DB, type Statement } from './client';
import { isolateCache, type IsolateCache } from '../isolate-cache';

/**
 * A count as statements for a batch and how to read their results, so that it can ride in the
 * batch of the page that shows it (one round trip for the page and its counts).
 */
export type Count<T> = { statements: Statement[]; read: (results: unknown[]) => T };

/** Past this many rows, the owner's whole-shop counts are reused for a few seconds (see `ReusedCount`). */
export const COUNTS_REUSE_FROM = 10_000;
export const COUNTS_REUSE_MS = 5_000;

/**
 * A whole-shop count for the owner's screens, which walks every row it counts: about 10 ms of
 * SQLite for 200,000 keys and 0.7 ms for 10,000 users, for a panel that many admins may have open.
 * Once it covers 10,000 rows or more this isolate reuses it for up to 5 s; a smaller shop is counted
 * on every request, so its figures are exact right after any change.
 */
export class ReusedCount<T> {
  private readonly kept: IsolateCache<D1Database, T>;

  constructor(
    name: 'owner-key-counts' | 'owner-role-counts',
    readonly count: (db: DB, now: number) => Count<T>,
    private readonly rows: (value: T) => number,
  ) {
    this.kept = isolateCache(name);
  }

  /** The reused count, or null when it must be counted again. */
  peek(db: DB, now: number): T | null {
    return this.kept.get(databaseOf(db), now) ?? null;
  }

  remember(db: DB, now: number, value: T) {
    if (this.rows(value) < COUNTS_REUSE_FROM) this.kept.delete(databaseOf(db));
    else this.kept.set(databaseOf(db), value, now, COUNTS_REUSE_MS);
  }
}

/**
 * Runs `page` with every count it needs that is not being reused, in one batch: the page's results,
 * and each count's value.
 */
export async function withCounts<C extends unknown[]>(
  db: DB,
  now: number,
  page: Statement[],
  counts: { [K in keyof C]: Count<C[K]> | { reused: ReusedCount<C[K]> } | { value: C[K] } },
): Promise<{ page: unknown[]; counts: C }> {
  const plans = counts.map((c) => {
    if ('value' in c) return { value: c.value };
    if ('statements' in c) return { count: c };
    const value = c.reused.peek(db, now);
    return value === null ? { count: c.reused.count(db, now), reused: c.reused } : { value };
  });
  const statements = [...page, ...plans.flatMap((p) => p.count?.statements ?? [])];
  const results = await runBatch(db, statements);
  let at = page.length;
  const values = plans.map((p) => {
    if (!p.count) return p.value;
    const value = p.count.read(results.slice(at, (at += p.count.statements.length)));
    p.reused?.remember(db, now, value);
    return value;
  });
  return { page: results.slice(0, page.length), counts: values as C };
}
