// Exact throttling counters in D1: one row per bucket and fixed window, counted by one atomic
// upsert, so concurrent requests each see a distinct count and no more than the limit pass.
// (KV would be cheaper but is eventually consistent; these limits guard passwords and codes.)
import { and, eq, gt, sql } from 'drizzle-orm';
import type { DB } from '../db/client';
import { rateLimits } from '../db/schema';
import { AppError } from '../lib/errors';

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
  /** Reset emails per address, so nobody can flood someone's inbox. */
  resetEmails: { limit: 3, windowMs: HOUR },
} satisfies Record<string, Rule>;

export const perIpPerHour = (apiRateLimit: number): Rule => ({ limit: apiRateLimit, windowMs: HOUR });

/** A counted request, so a successful attempt can be given back (see `refund`). */
export type Reservation = { bucket: string; windowStart: number; count: number; rule: Rule; now: number };

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
  return { bucket, windowStart, count: row!.count, rule, now };
}

export const isOver = (r: Pick<Reservation, 'count' | 'rule'>) => r.count > r.rule.limit;

/** Whole seconds until the window ends (at least 1). */
export const retryAfterSeconds = (rule: Rule, now: number) => Math.max(1, Math.ceil((windowStartOf(rule, now) + rule.windowMs - now) / 1000));

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
  await db
    .update(rateLimits)
    .set({ count: sql`${rateLimits.count} - 1` })
    .where(and(eq(rateLimits.bucket, r.bucket), eq(rateLimits.windowStart, r.windowStart), gt(rateLimits.count, 0)));
}

export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.ceil(minutes / 60);
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

/**
 * Counts a password check for this account from this address before it runs, so concurrent
 * guesses cannot all slip under the limit; `refund` it when the password is right.
 */
export function passwordAttempt(db: DB, account: string, ip: string | null, now = Date.now()) {
  return enforce(db, `password:${account.toLowerCase()}:${ip ?? 'unknown'}`, RULES.passwordFailures, 'Too many failed attempts.', now);
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
