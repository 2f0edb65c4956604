// The expiry rule in SQL, with the boundary of `hasPassed` (platform/vocabulary.ts): a moment has
// passed from the instant itself on (`expires_at <= now`), and no moment (NULL) never passes.
import { gt, isNull, lte, or, sql, type Column, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';

/** A moment as drizzle compares it with a timestamp column: a Date, or a compiled statement's slot. */
type At = Date | Placeholder;

/** `column` has passed at `at`. */
export const passedAt = (column: Column, at: At): SQL => lte(column, at);

/** `column` has not passed at `at` (or is NULL: it never passes). */
export const notPassedAt = (column: Column, at: At): SQL => or(isNull(column), gt(column, at))!;

/** The same rule for raw SQL text: `column` and `at` are SQL expressions (`k.expires_at`, `?3`). */
export const hasPassedSql = (column: string, at: string) => `(${column} IS NOT NULL AND ${column} <= ${at})`;

/** drizzle's form of `hasPassedSql`, for a CASE or a filter over a column of milliseconds. */
export const hasPassedExpr = (column: Column, at: number | SQLWrapper): SQL => sql`(${column} IS NOT NULL AND ${column} <= ${at})`;
