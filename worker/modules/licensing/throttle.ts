// The licensing API's limit on unknown keys per address, decided before the key is looked up: an
// address over it gets 429 whatever key it sends, so a 429 never tells whether a key exists. The
// count is read in the lookup's own round trip and written only when a key is unknown, so a valid
// key's answer still writes nothing. (The Rate Limiting binding cannot be read without counting.)
import { rawSql, sqlRows, type Database } from '../../platform/db/client';
import { rateLimited, type Rule } from '../../platform/throttle';

/** Unknown keys an address may send a minute: far above an app that mistyped its key. */
export const UNKNOWN_KEYS_PER_ADDRESS: Rule = { limit: 30, windowMs: 60 * 1000 };

export type AddressGuard = { bucket: string; windowStart: number; rule: Rule; now: number };

export function addressGuard(address: string | null, now: number, rule: Rule = UNKNOWN_KEYS_PER_ADDRESS): AddressGuard {
  return { bucket: `license-miss:${address ?? 'unknown'}`, windowStart: Math.floor(now / rule.windowMs) * rule.windowMs, rule, now };
}

/**
 * This window's unknown keys from the address, as a `misses` column of the key's own statement
 * (?-numbered from `first`): the limit is read in the lookup itself, not in a statement of its own.
 */
export const missesColumn = (first: number) =>
  `,
         coalesce((SELECT count FROM rate_limits WHERE bucket = ?${first} AND window_start = ?${first + 1}), 0) AS misses`;
export const missesParams = (g: AddressGuard) => [g.bucket, g.windowStart] as const;

/** SQL that holds while the address is under its limit (?-numbered from `first`), for a write's WHERE. */
export const underLimitSql = (first: number) =>
  `coalesce((SELECT count FROM rate_limits WHERE bucket = ?${first} AND window_start = ?${first + 1}), 0) < ?${first + 2}`;
export const underLimitParams = (g: AddressGuard) => [g.bucket, g.windowStart, g.rule.limit] as const;

/** Throws 429 when the address was over its limit before this request (`misses`, read with the key). */
export function assertUnderLimit(g: AddressGuard, misses: number) {
  if (misses >= g.rule.limit) throw rateLimited(g.rule, g.now, 'Too many unknown license keys from your network.');
}

/**
 * Counts an unknown key against the address, unless it is over its limit already: then 429, and the
 * count stays where it is. One statement, so concurrent misses never count past the limit.
 */
export async function countMiss(db: Database, g: AddressGuard) {
  const counted = await sqlRows(
    db,
    rawSql(
      `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?1, ?2, 1)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1 WHERE count < ?3
         RETURNING count`,
      g.bucket,
      g.windowStart,
      g.rule.limit,
    ),
  );
  assertUnderLimit(g, counted.length === 0 ? g.rule.limit : 0);
}
