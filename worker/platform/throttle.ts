// Exact throttling counters in D1: one row per bucket and fixed window, counted by one atomic
// upsert, so concurrent requests each see a distinct count and no more than the limit pass.
// (KV would be cheaper but is eventually consistent; these limits guard passwords and codes.)
import { and, eq, gt, sql } from 'drizzle-orm';
import type { DB } from './db/client';
import { rateLimits, signInFailures } from './db/schema';
import { AppError } from './errors';
import { networkOf } from './network';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export type Rule = { limit: number; windowMs: number };

/** The fixed limits; `apiRateLimit` (per IP per hour) comes from the settings document. */
export const RULES = {
  /** Password failures per account and address (Keygen uses 5 a minute). */
  passwordFailures: { limit: 5, windowMs: MINUTE },
  /** Wrong two-factor codes or recovery tokens per account: a short burst, and a daily cap so a
   *  patient attacker who has the password gets a handful of guesses at a million codes. */
  secondFactorBurst: { limit: 5, windowMs: 5 * MINUTE },
  secondFactorDaily: { limit: 20, windowMs: 24 * HOUR },
  /** Reset emails per address, so nobody can flood someone's inbox (12 an hour at most). The window
   *  is short because it is shared: a stranger who spends it delays the owner's own request by
   *  at most 15 minutes, and the links the stranger had sent sit in the owner's inbox, valid. */
  resetEmails: { limit: 3, windowMs: 15 * MINUTE },
} satisfies Record<string, Rule>;

export const perIpPerHour = (apiRateLimit: number): Rule => ({ limit: apiRateLimit, windowMs: HOUR });

/**
 * Failed password checks per account across all addresses (OWASP's answer to guesses spread over
 * many addresses): `free` failures, then each failure locks the account's password checks for
 * twice as long as the last (1, 2, 4 ... minutes, at most an hour), so a botnet gets about 40
 * guesses a day at an account. A quiet day forgets the failures. Only password checks are locked:
 * Google sign-in and the reset link still work, so a stranger cannot shut the owner out.
 */
export const ACCOUNT_LOCKOUT = { free: 10, firstLockMs: MINUTE, maxLockMs: HOUR, forgetAfterMs: 24 * HOUR };

/** How long the account is locked after its `failures`-th failure in a row. */
export const lockoutMs = (failures: number) =>
  failures < ACCOUNT_LOCKOUT.free
    ? 0
    : Math.min(ACCOUNT_LOCKOUT.firstLockMs * 2 ** (failures - ACCOUNT_LOCKOUT.free), ACCOUNT_LOCKOUT.maxLockMs);

/** A counted request, so a successful attempt can be given back (see `refund`). */
export type Reservation = { bucket: string; windowStart: number; count: number; rule: Rule; now: number; account?: string };

export const windowStartOf = (rule: Rule, now: number) => Math.floor(now / rule.windowMs) * rule.windowMs;

/** The statement that counts one request; `RETURNING count` gives this request's place in the window. */
export function countStatement(db: DB, bucket: string, windowStart: number) {
  return db
    .insert(rateLimits)
    .values({ bucket, windowStart, count: 1 })
    .onConflictDoUpdate({ target: [rateLimits.bucket, rateLimits.windowStart], set: { count: sql`${rateLimits.count} + 1` } })
    .returning({ count: rateLimits.count });
}

/** Counts one request in the bucket's current window. */
export async function consume(db: DB, bucket: string, rule: Rule, now = Date.now()): Promise<Reservation> {
  const windowStart = windowStartOf(rule, now);
  const row = await countStatement(db, bucket, windowStart).get();
  return { bucket, windowStart, count: row.count, rule, now };
}

export const isOver = (r: Pick<Reservation, 'count' | 'rule'>) => r.count > r.rule.limit;

/** Whole seconds until the window ends (at least 1). */
export const retryAfterSeconds = (rule: Rule, now: number) =>
  Math.max(1, Math.ceil((windowStartOf(rule, now) + rule.windowMs - now) / 1000));

export function rateLimited(rule: Rule, now: number, message: string): AppError {
  const seconds = retryAfterSeconds(rule, now);
  return new AppError('RATE_LIMITED', `${message} Please try again in ${describeWait(seconds)}.`, {
    headers: { 'Retry-After': String(seconds) },
    details: { retryAfter: seconds },
  });
}

/** Counts the request and throws 429 when the bucket is over its limit. */
export async function enforce(db: DB, bucket: string, rule: Rule, message: string, now = Date.now()): Promise<Reservation> {
  const reservation = await consume(db, bucket, rule, now);
  if (isOver(reservation)) throw rateLimited(rule, now, message);
  return reservation;
}

/** Gives a counted attempt back (a correct password or code is not a failure). */
export async function refund(db: DB, r: Reservation) {
  const window = db
    .update(rateLimits)
    .set({ count: sql`${rateLimits.count} - 1` })
    .where(and(eq(rateLimits.bucket, r.bucket), eq(rateLimits.windowStart, r.windowStart), gt(rateLimits.count, 0)));
  if (r.account === undefined) {
    await window;
    return;
  }
  // The account's own reservation too; a lock its failures earned before this attempt stays.
  const { failures, lockedUntil } = signInFailures;
  await db.batch([
    window,
    db
      .update(signInFailures)
      .set({
        failures: sql`${failures} - 1`,
        lockedUntil: sql`CASE WHEN ${failures} - 1 >= ${ACCOUNT_LOCKOUT.free} THEN ${lockedUntil} ELSE 0 END`,
      })
      .where(and(eq(signInFailures.account, r.account), gt(failures, 0))),
  ]);
}

export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.ceil(minutes / 60);
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

const PASSWORD_REFUSED = 'Too many failed attempts.';

/**
 * Counts a password check before it runs, for this account from this address (an IPv6 /64) and for
 * the account across all addresses, so concurrent guesses cannot slip under either limit; `refund`
 * it when the password is right. A refusal comes before the password is looked at, so it reads
 * the same whether or not the password was right.
 */
export async function passwordAttempt(db: DB, account: string, ip: string | null, now = Date.now()): Promise<Reservation> {
  const key = account.toLowerCase();
  const reservation = await enforce(db, `password:${key}:${networkOf(ip)}`, RULES.passwordFailures, PASSWORD_REFUSED, now);
  await reserveAccountFailure(db, key, now);
  return { ...reservation, account: key };
}

/**
 * One atomic upsert counts the failure and sets the lock it earns, and does nothing while the account
 * is locked; D1 runs statements one at a time, so of many concurrent guesses exactly the free ones
 * (or the one after a lock ends) get through.
 */
async function reserveAccountFailure(db: DB, account: string, now: number) {
  const { failures, lockedUntil, lastFailureAt } = signInFailures;
  const { free, firstLockMs, maxLockMs, forgetAfterMs } = ACCOUNT_LOCKOUT;
  const next = sql`(CASE WHEN ${lastFailureAt} <= ${now - forgetAfterMs} THEN 1 ELSE ${failures} + 1 END)`;
  // lockoutMs in SQL: the shift is capped so it cannot overflow before min() applies the cap.
  const lock = sql`CASE WHEN ${next} >= ${free} THEN ${now} + min(${firstLockMs} << min(${next} - ${free}, 20), ${maxLockMs}) ELSE 0 END`;
  const counted = await db
    .insert(signInFailures)
    .values({ account, failures: 1, lockedUntil: lockoutMs(1) ? now + lockoutMs(1) : 0, lastFailureAt: now })
    .onConflictDoUpdate({
      target: signInFailures.account,
      set: { failures: next, lockedUntil: lock, lastFailureAt: now },
      setWhere: sql`${lockedUntil} <= ${now}`,
    })
    .returning({ failures })
    .get();
  if (counted) return;
  const row = await db.select({ lockedUntil }).from(signInFailures).where(eq(signInFailures.account, account)).get();
  const seconds = Math.max(1, Math.ceil(((row?.lockedUntil ?? now) - now) / 1000));
  throw new AppError('RATE_LIMITED', `${PASSWORD_REFUSED} Please try again in ${describeWait(seconds)}.`, {
    headers: { 'Retry-After': String(seconds) },
    details: { retryAfter: seconds },
  });
}

/** Counts a two-factor code or recovery token check for this account (both windows). */
export async function secondFactorAttempt(db: DB, userId: string, now = Date.now()): Promise<Reservation[]> {
  const message = 'Too many incorrect codes.';
  const [burst, daily] = await Promise.all([
    consume(db, `2fa:${userId}`, RULES.secondFactorBurst, now),
    consume(db, `2fa-day:${userId}`, RULES.secondFactorDaily, now),
  ]);
  if (isOver(daily)) throw rateLimited(daily.rule, now, message);
  if (isOver(burst)) throw rateLimited(burst.rule, now, message);
  return [burst, daily];
}
