// Some writes are raw D1 statements (many-row inserts, the activation recount); a drizzle query
// (an audit row) joins their `d1.batch()` as the same SQL drizzle would have run.
type BuiltQuery = { toSQL(): { sql: string; params: unknown[] } };

export function toD1Statement(d1: D1Database, query: BuiltQuery): D1PreparedStatement {
  const { sql, params } = query.toSQL();
  return d1.prepare(sql).bind(...params);
}
