// "Starts with" as an index range: `>= p AND < p || END`, END above every code point, so SQLite
// answers a prefix search from the column's index (LIKE 'p%' would not use it for every collation).
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

const PREFIX_END = '\u{10FFFF}';

/** The first value past every string that starts with `prefix`. */
export const prefixEnd = (prefix: string) => prefix + PREFIX_END;

/**
 * With inPrefixRange, the one value `exact` and nothing after it: the next string in order is
 * `exact` followed by the lowest character, and the values searched this way (usernames) hold none.
 */
export const exactEnd = (exact: string) => exact + '\u0001';

/** `from <= column < to`: with `to` = prefixEnd(from), the values that start with `from`. */
export const inPrefixRange = (column: SQLWrapper, from: unknown, to: unknown): SQL => sql`(${column} >= ${from} AND ${column} < ${to})`;

export const startsWith = (column: SQLWrapper, prefix: string): SQL => inPrefixRange(column, prefix, prefixEnd(prefix));
