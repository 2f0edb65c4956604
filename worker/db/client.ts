import type { BatchItem } from 'drizzle-orm/batch';
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema';
import { isolateCache } from '../lib/isolate-cache';
import { bindingOf, type RequestD1 } from './session';

export type DB = DrizzleD1Database<typeof schema> & { $client: D1Database };

// Building a drizzle instance walks the whole schema (relational config, dialect): a few percent of
// a licensing request's CPU when done per request. One per D1 binding, kept for the isolate's life.
const instances = isolateCache<D1Database, DB>('drizzle-instances');

/** A D1 batch's statements, as `db.batch` takes them (at least one). */
export type BatchItems = [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];

/**
 * A statement written once as SQL text and bound per call, for the hottest paths: drizzle builds a
 * query's text from its parts on every call, which was most of a purchase's own CPU. Its result in a
 * batch is its rows, unmapped (column names as the SQL gives them).
 */
export class SqlStatement {
  constructor(
    readonly text: string,
    readonly params: unknown[],
  ) {}
}

/** One statement of a request's batch: a drizzle query, or SQL text with its parameters. */
export type Statement = BatchItem<'sqlite'> | SqlStatement;

/**
 * Runs the statements as one D1 batch (one transaction) and answers each one's result as `db.batch`
 * would: a drizzle query's mapped result, a SqlStatement's rows.
 */
export async function runBatch(db: DB, items: Statement[]): Promise<unknown[]> {
  if (!items.some((item) => item instanceof SqlStatement)) return db.batch(items as BatchItems);
  // drizzle's own batch for D1 does this for each of its queries: prepare, bind, then map the result.
  const prepared = items.map((item) => (item instanceof SqlStatement ? null : (item as unknown as DrizzlePrepared)._prepare()));
  const d1 = db.$client;
  const statements = items.map((item, i) => {
    if (item instanceof SqlStatement) return d1.prepare(item.text).bind(...item.params);
    // drizzle's own statement, bound: preparing its SQL again would cost a second compile.
    const query = prepared[i]!;
    const { params } = query.getQuery();
    return params.length ? query.stmt.bind(...params) : query.stmt;
  });
  const results = await d1.batch(statements);
  return results.map((result, i) => (prepared[i] ? prepared[i].mapResult(result, true) : result.results));
}

/** What drizzle's D1 queries expose to its batch (drizzle-orm/d1 session). */
type DrizzlePrepared = {
  _prepare(): {
    stmt: D1PreparedStatement;
    getQuery(): { sql: string; params: unknown[] };
    mapResult(result: unknown, isFromBatch: boolean): unknown;
  };
};

/**
 * The drizzle instance over a request's D1 session (db/session.ts). Without the schema's relational
 * config, which no query here uses, making one per request costs next to nothing.
 */
export const requestDb = (d1: RequestD1): DB => drizzle(d1 as unknown as D1Database) as unknown as DB;

/** The database behind a drizzle instance (the binding, whichever request's session it runs on), for per-database caches. */
export const databaseOf = (db: DB): D1Database => bindingOf(db.$client);

export function createDb(d1: D1Database): DB {
  return instances.getOrSet(d1, () => drizzle(d1, { schema }));
}
