// Paged lists: every list's `page` and `limit` query parameters, and how a query string's empty value
// reads. Defined once, so every list answers the same words to the same mistakes.
import { z } from 'zod';
import { decimalInput } from './amounts';

/** The most items one page may hold, whatever the list. */
export const MAX_PAGE_SIZE = 100;

/** Query strings arrive as text; an empty value means "not given", as the original client sends them. */
export const emptyAsUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** `page` (from 1) and `limit` (1 to MAX_PAGE_SIZE, `defaultLimit` when not given), plain decimal digits only. */
export const pageQuery = (defaultLimit: number) => ({
  page: z.preprocess(
    emptyAsUndefined,
    decimalInput(
      z
        .number({ error: 'page must be a number' })
        .int('page must be a whole number')
        .min(1, 'page must be at least 1')
        .max(1_000_000, 'page is too large')
        .default(1),
    ),
  ),
  limit: z.preprocess(
    emptyAsUndefined,
    decimalInput(
      z
        .number({ error: 'limit must be a number' })
        .int('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`)
        .default(defaultLimit),
    ),
  ),
});
