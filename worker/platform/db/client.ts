import type { BatchItem } from 'drizzle-orm/batch';
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema';
import { isolateCache } from '../isolate-cache';
import { bindingOf, writesEvents, type RequestD1 } from './session';

export type DB = DrizzleD1Database<typeof schema> & { $client: D1Database };

// Building a drizzle instance walks the whole schema (relational config, dialect): a few percent of
// a licensing request's CPU when done per request. One per D1 binding, kept for the isolate's life.
const instances = isolateCache<D1Database, DB>('drizzle-instances');

/** A D1 batch's statements, as `db.batch` takes them (at least one). */
export type BatchItems = [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];

/**
 * Raw SQL, for what drizzle's query builder cannot say (a guarded many-row insert, an
 * `INSERT ... SELECT` with its guard, a statement compiled once for a hot path: compiled.ts). It is
 * the one way raw SQL reaches D1: written beside the domain function that uses it, run by runBatch,
 * sqlRows or sqlFirst below. Its result is its rows, unmapped (column names as the SQL gives them);
 * a write that must say what it changed says so with RETURNING (D1's `changes` counts triggers' writes).
 */
export class SqlStatement {
  constructor(
    readonly text: string,
    readonly params: unknown[],
    /**
     * The webhook event type the statement writes, for an outbox statement (modules/webhooks/outbox.ts):
     * a batch guarded by its caller may leave it out while no endpoint subscribes to the type (session.ts).
     */
    readonly eventType?: string,
  ) {}
}

/** Raw SQL with its parameters (`?1`, `?2`, ... in the text), as a SqlStatement. */
export const rawSql = (text: string, ...params: unknown[]) => new SqlStatement(text, params);

/** SQL for the ISO 8601 text of a time in milliseconds (`column`, an SQL expression), as the API writes times; NULL stays NULL. */
export const isoTextSql = (column: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${column} / 1000.0, 'unixepoch')`;

/** One statement of a request's batch: a drizzle query, or raw SQL. */
export type Statement = BatchItem<'sqlite'> | SqlStatement;

/** A drizzle instance, or a bare D1 binding where no drizzle query runs (the licensing hot path, the cron). */
export type Database = DB | D1Database;

const clientOf = (db: Database): D1Database => ('$client' in db ? db.$client : db);
const prepared = (d1: D1Database, statement: SqlStatement) => {
  const bound = d1.prepare(statement.text).bind(...statement.params);
  if (statement.eventType !== undefined) writesEvents(bound, statement.eventType);
  return bound;
};

/** The rows of one raw statement (one round trip). */
export async function sqlRows<Row>(db: Database, statement: SqlStatement): Promise<Row[]> {
  return (await prepared(clientOf(db), statement).all<Row>()).results;
}

/** The first row of one raw statement, or null (one round trip). */
export async function sqlFirst<Row>(db: Database, statement: SqlStatement): Promise<Row | null> {
  return (await sqlRows<Row>(db, statement))[0] ?? null;
}

/**
 * Runs the statements as one D1 batch (one transaction, one round trip) and answers each one's
 * result as `db.batch` would: a drizzle query's mapped result, a SqlStatement's rows.
 */
export async function runBatch(db: Database, items: Statement[]): Promise<unknown[]> {
  if ('$client' in db && !items.some((item) => item instanceof SqlStatement)) return db.batch(items as BatchItems);
  // drizzle's own batch for D1 does this for each of its queries: prepare, bind, then map the result.
  const queries = items.map((item) => (item instanceof SqlStatement ? null : (item as unknown as DrizzlePrepared)._prepare()));
  const d1 = clientOf(db);
  const statements = items.map((item, i) => {
    if (item instanceof SqlStatement) return prepared(d1, item);
    // drizzle's own statement, bound: preparing its SQL again would cost a second compile.
    const query = queries[i]!;
    const { params } = query.getQuery();
    return params.length ? query.stmt.bind(...params) : query.stmt;
  });
  const results = await d1.batch(statements);
  return results.map((result, i) => (queries[i] ? queries[i].mapResult(result, true) : result.results));
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
 * The drizzle instance over a request's D1 session (platform/db/session.ts). Without the schema's relational
 * config, which no query here uses, making one per request costs next to nothing.
 */
export const requestDb = (d1: RequestD1): DB => drizzle(d1 as unknown as D1Database) as unknown as DB;

/** The database behind a drizzle instance (the binding, whichever request's session it runs on), for per-database caches. */
export const databaseOf = (db: DB): D1Database => bindingOf(db.$client);

export function createDb(d1: D1Database): DB {
  return instances.getOrSet(d1, () => drizzle(d1, { schema }));
}

/** Every text value of `column` in a batch's results (rows of raw statements or D1 results): the ids an outbox's RETURNING gave. */
export function columnValuesIn(results: readonly unknown[], column: string): string[] {
  const values: string[] = [];
  for (const result of results) {
    const rows = Array.isArray(result) ? result : (result as { results?: unknown } | null)?.results;
    if (!Array.isArray(rows)) continue;
    for (const row of rows) {
      const value = (row as Record<string, unknown> | null)?.[column];
      if (typeof value === 'string') values.push(value);
    }
  }
  return values;
}
