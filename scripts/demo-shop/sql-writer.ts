// Bulk rows into D1, fast: multi-row INSERTs with the values written out as SQL literals (no bound
// parameters, so no per-statement parameter cap), many statements per exec() call, which is one
// round trip. From Node every D1 call crosses Miniflare's proxy, so few large calls are what make
// 200,000 keys take seconds, not minutes.

export type SqlValue = string | number | boolean | null;

/** What the writer needs of a D1 binding: Miniflare's, wrangler's platform proxy, or the Worker's. */
export type BatchDb = Pick<D1Database, 'prepare' | 'batch' | 'exec'>;

/** Past this many rows, a table's indexes are built after its rows rather than row by row. */
export const DEFER_INDEXES_FROM = 5_000;

/** D1 refuses statements over 100 KB (SQLITE_MAX_SQL_LENGTH); each INSERT stays under it. */
const MAX_STATEMENT_CHARS = 90_000;
const STATEMENTS_PER_BATCH = 25;

export function sqlLiteral(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`Not a finite number: ${value}`);
    return String(value);
  }
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * Inserts `rows` (values in `columns` order) into `table`; returns the number of rows written. The
 * statements go out as they fill, so a table of millions of rows is never all SQL text at once.
 */
export async function insertRows(
  d1: BatchDb,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly SqlValue[]>,
): Promise<number> {
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
  let statements: string[] = [];
  let values: string[] = [];
  let length = head.length;
  let written = 0;
  // exec() sends every line as one statement, all in one round trip and one transaction.
  const flush = async () => {
    if (statements.length) await d1.exec(statements.join('\n'));
    statements = [];
  };
  for (const row of rows) {
    if (row.length !== columns.length) throw new Error(`${table}: a row has ${row.length} values for ${columns.length} columns`);
    const tuple = `(${row.map(sqlLiteral).join(',')})`;
    if (values.length > 0 && length + tuple.length + 1 > MAX_STATEMENT_CHARS) {
      statements.push(head + values.join(','));
      values = [];
      length = head.length;
      if (statements.length === STATEMENTS_PER_BATCH) await flush();
    }
    values.push(tuple);
    length += tuple.length + 1;
    written++;
  }
  if (values.length > 0) statements.push(head + values.join(','));
  await flush();
  return written;
}

/**
 * Runs `write` with the schema's objects of one type dropped (all of them, or `table`'s), then
 * creates them again from their own definitions (sqlite_master keeps each one's SQL).
 */
async function withDropped<T>(
  d1: BatchDb,
  type: 'index' | 'trigger',
  table: string | null,
  write: () => Promise<T>,
  keep: (name: string) => boolean = () => false,
): Promise<T> {
  const { results: all } = await d1
    .prepare('SELECT name, sql FROM sqlite_master WHERE type = ?1 AND (?2 IS NULL OR tbl_name = ?2) AND sql IS NOT NULL')
    .bind(type, table)
    .all<{ name: string; sql: string }>();
  const results = all.filter((o) => !keep(o.name));
  if (results.length) await d1.batch(results.map((o) => d1.prepare(`DROP ${type.toUpperCase()} "${o.name}"`)));
  try {
    return await write();
  } finally {
    if (results.length) await d1.batch(results.map((o) => d1.prepare(o.sql)));
  }
}

/**
 * Runs `write` with the table's secondary indexes dropped, then builds them again: one sort per
 * index instead of 200,000 random insertions into each (ten times faster).
 */
export const withIndexesDeferred = <T>(d1: BatchDb, table: string, write: () => Promise<T>) => withDropped(d1, 'index', table, write);

/**
 * Runs `write` with every trigger of the database dropped, then creates them again: for rows whose
 * figures are already worked out (a generated shop's balances and product counters), which the
 * triggers would otherwise count a second time.
 */
export const withTriggersDeferred = <T>(d1: BatchDb, write: () => Promise<T>, keep?: (trigger: string) => boolean) =>
  withDropped(d1, 'trigger', null, write, keep);
