// Counts that ride in the batch of the page that shows them (one round trip for a page and its
// totals).
import { runBatch, type DB, type Statement } from './client';

/**
 * A count as statements for a batch and how to read their results, so that it can ride in the
 * batch of the page that shows it (one round trip for the page and its counts).
 */
export type Count<T> = { statements: Statement[]; read: (results: unknown[]) => T };

/** Runs `page` with every count it needs, in one batch: the page's results, and each count's value. */
export async function withCounts<C extends unknown[]>(
  db: DB,
  page: Statement[],
  counts: { [K in keyof C]: Count<C[K]> },
): Promise<{ page: unknown[]; counts: C }> {
  const statements = [...page, ...counts.flatMap((c) => c.statements)];
  const results = await runBatch(db, statements);
  let at = page.length;
  const values = counts.map((c) => c.read(results.slice(at, (at += c.statements.length))));
  return { page: results.slice(0, page.length), counts: values as C };
}
