// The licensing API's limit on unknown keys per address, decided before the key is looked up: an
// address over it gets 429 whatever key it sends, so a 429 never tells whether a key exists. The
// count is read in the lookup's own round trip and written only when a key is unknown, so a valid
// key's answer still writes nothing. (The Rate Limiting binding cannot be read without counting.)
import { rawSql, runBatch, sqlRows, type Database } from '../../platform/db/client';
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

/** This window's unknown keys from the address, as `misses`: a statement of its own, for a batch that reads no key first. */
export const missesStatement = (g: AddressGuard) =>
  rawSql('SELECT coalesce((SELECT count FROM rate_limits WHERE bucket = ?1 AND window_start = ?2), 0) AS misses', g.bucket, g.windowStart);

/** SQL that holds while the address is under its limit (?-numbered from `first`), for a write's WHERE. */
export const underLimitSql = (first: number) =>
  `coalesce((SELECT count FROM rate_limits WHERE bucket = ?${first} AND window_start = ?${first + 1}), 0) < ?${first + 2}`;
export const underLimitParams = (g: AddressGuard) => [g.bucket, g.windowStart, g.rule.limit] as const;

/** Throws 429 when `missesStatement`'s rows say the address was over its limit before this request. */
export const assertRowsUnderLimit = (g: AddressGuard, rows: unknown) =>
  assertUnderLimit(g, (rows as Array<{ misses: number }>)[0]?.misses ?? 0);

/** Throws 429 when the address was over its limit before this request (`misses`, read with the key). */
export function assertUnderLimit(g: AddressGuard, misses: number) {
  if (misses >= g.rule.limit) throw rateLimited(g.rule, g.now, 'Too many unknown license keys from your network.');
}

/** SQL that holds when parameter `?n` is a key value a regeneration replaced. */
const retiredSql = (n: number) => `EXISTS (SELECT 1 FROM retired_keys WHERE key = ?${n})`;

/**
 * An unknown key: a value a regeneration replaced answers KEY_REGENERATED and counts nothing; any
 * other counts against the address, unless the address is over its limit already (then 429, and
 * the count stays where it is). One round trip: the address's count and the key's retirement read
 * beside one conditional upsert, so concurrent misses never count past the limit.
 */
export async function countMiss(db: Database, g: AddressGuard, key: string): Promise<'retired' | 'counted'> {
  const [seen, counted] = await runBatch(db, [
    rawSql(
      `SELECT ${retiredSql(3)} AS retired,
              coalesce((SELECT count FROM rate_limits WHERE bucket = ?1 AND window_start = ?2), 0) AS misses`,
      g.bucket,
      g.windowStart,
      key,
    ),
    rawSql(
      `INSERT INTO rate_limits (bucket, window_start, count)
         SELECT ?1, ?2, 1 WHERE NOT ${retiredSql(4)}
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1 WHERE count < ?3
         RETURNING count`,
      g.bucket,
      g.windowStart,
      g.rule.limit,
      key,
    ),
  ]);
  const before = (seen as Array<{ retired: number; misses: number }>)[0];
  assertUnderLimit(g, before.misses);
  if (before.retired === 1) return 'retired';
  assertUnderLimit(g, (counted as unknown[]).length === 0 ? g.rule.limit : 0);
  return 'counted';
}

/** Whether `key` is a value a regeneration replaced (a call with no address limit). */
export async function isRetiredKey(db: Database, key: string): Promise<boolean> {
  const [row] = await sqlRows<{ retired: number }>(db, rawSql(`SELECT ${retiredSql(1)} AS retired`, key));
  return row?.retired === 1;
}
