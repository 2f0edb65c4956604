// Statements drizzle writes once per shape. A list's SQL (the keys' JSON, a search's four index
// lookups) is hundreds of parts, and drizzle walks them all to write the text on every call: most of
// a list's own CPU. Here drizzle writes each shape once per isolate, with a placeholder for every
// value that varies from call to call, and each call only fills the placeholders in.
import { is, Param, Placeholder, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import type { DB } from './client';
import { SqlStatement } from './client';
import { isolateCache } from '../isolate-cache';

/** A value of the call, by name: `sql.placeholder(name)` in the builder, `values[name]` in the call. */
export const slot = <Name extends string>(name: Name) => sql.placeholder(name);

/**
 * SQLite plans with some bound values (a LIMIT, an OFFSET, a LIKE pattern) and then compiles the
 * statement anew whenever one is bound again. workerd keeps each statement compiled between calls,
 * so such a value would cost a whole compilation on every call: for a page of keys, a third of
 * SQLite's work. Inside an expression a value is only read as the statement runs; these wrap one so.
 */
export const runtimeNumber = (value: number | Placeholder) => sql`(${value} + 0)`;
export const runtimeText = (value: string | Placeholder) => sql`('' || ${value})`;
/** runtimeNumber for a query builder's limit() or offset(): drizzle writes an object given there as SQL. */
export const runtimeLimit = (value: number | Placeholder) => runtimeNumber(value) as unknown as Placeholder;

type Built = { toSQL(): { sql: string; params: unknown[] } };
type ParamSlot = { name: string; encode?: (value: unknown) => unknown } | { constant: unknown };

const texts = isolateCache<string, { text: string; slots: ParamSlot[] }>('compiled-sql');
let builders = 0;

/**
 * A statement builder compiled once per shape. `build` sees only the shape (which filters there are:
 * structure, never a caller's value) and writes every value as a `slot`; the statement's result in a
 * batch is its rows as SQLite names their columns, so `build` names each selected expression.
 * Shapes are few (a list's filters present or not), so each builder keeps a handful of texts.
 */
export function compiledStatement<Shape>(build: (db: DB, shape: Shape) => Built) {
  const builder = builders++;
  return (db: DB, shape: Shape, values: Record<string, unknown>): SqlStatement => {
    const compiled = texts.getOrSet(`${builder}:${JSON.stringify(shape)}`, () => {
      const { sql: text, params } = build(db, shape).toSQL();
      return { text, slots: params.map(toSlot) };
    });
    return new SqlStatement(
      compiled.text,
      compiled.slots.map((s) => fill(s, values)),
    );
  };
}

const dialect = new SQLiteAsyncDialect();

/** A statement written with drizzle's `sql` template (what its query builders cannot say), for compiledStatement. */
export const sqlStatement = (query: SQL): Built => ({ toSQL: () => dialect.sqlToQuery(query) });

/**
 * The rows of `rows` (a subquery with named columns) as one JSON array of objects, each of `columns`
 * under its own name: a column of a statement, so that counts or a short list ride in the page's own
 * statement (read back with JSON.parse). `orderBy`: SQL over those names, the array's order.
 */
export const rowsAsJson = (rows: SQLWrapper, columns: readonly string[], orderBy?: string) =>
  sql`(SELECT json_group_array(json_object(${sql.raw(columns.map((c) => `'${c}', "${c}"`).join(', '))})${sql.raw(
    orderBy ? ` ORDER BY ${orderBy}` : '',
  )}) FROM ${rows})`;

function toSlot(param: unknown): ParamSlot {
  if (is(param, Placeholder)) return { name: param.name };
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { encoder } = param;
    return { name: param.value.name, encode: encoder ? (v) => encoder.mapToDriverValue(v) : undefined };
  }
  return { constant: param };
}

function fill(s: ParamSlot, values: Record<string, unknown>): unknown {
  if ('constant' in s) return s.constant;
  if (!(s.name in values)) throw new Error(`compiledStatement: no value for "${s.name}"`);
  const value = values[s.name];
  return s.encode ? s.encode(value) : value;
}
