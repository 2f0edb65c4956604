// "Starts with" as an index range: `>= p AND < p || END`, END above every code point, so SQLite
// answers a prefix search from the column's index (LIKE 'p%' would not use it for every collation).
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

const PREFIX_END = '\u{10FFFF}';

export const startsWith = (column: SQLWrapper, prefix: string): SQL => sql`(${column} >= ${prefix} AND ${column} < ${prefix + PREFIX_END})`;
