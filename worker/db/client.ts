import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema';

export type DB = DrizzleD1Database<typeof schema> & { $client: D1Database };

// Building a drizzle instance walks the whole schema (relational config, dialect): a few percent of
// a licensing request's CPU when done per request. One per D1 binding, kept for the isolate's life.
const instances = new WeakMap<D1Database, DB>();

export function createDb(d1: D1Database): DB {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}
