import type { BatchItem } from 'drizzle-orm/batch';
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema';

export type DB = DrizzleD1Database<typeof schema> & { $client: D1Database };

// Building a drizzle instance walks the whole schema (relational config, dialect): a few percent of
// a licensing request's CPU when done per request. One per D1 binding, kept for the isolate's life.
const instances = new WeakMap<D1Database, DB>();

/** A D1 batch's statements, as `db.batch` takes them (at least one). */
export type BatchItems = [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];

/** How a request runs its one D1 batch; requireAuthInBatch's runner puts the session's checks in front. */
export type RunBatch = (items: BatchItem<'sqlite'>[]) => Promise<unknown[]>;

/** The plain runner: the statements alone. */
export const plainBatch =
  (db: DB): RunBatch =>
  (items) =>
    db.batch(items as BatchItems);

export function createDb(d1: D1Database): DB {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}
