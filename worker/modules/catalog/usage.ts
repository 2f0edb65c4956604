// A product's entitlements and metered usage: what a key of it may do, and how many uses it has left.
// A key's uses are stored as of the start of its refill period; a refill that fell due since is
// applied when the key is next read or debited, in JavaScript (usageNow) and in SQL (usageSql) by the
// same rule, so no job has to run on time and a debit computes it inside its own conditional statement.
import { DAY_MS } from '../../platform/vocabulary';
import { isoTextSql } from '../../platform/db/client';

/** What usageNow reads: the product's rules and the key's stored state. */
export type UsageFields = {
  usageAllowance: number | null;
  usageRefillAmount: number | null;
  usageRefillDays: number | null;
  usageRemaining: number | null;
  usagePeriodStart: number | null;
};

/** A metered key's uses now. */
export type Usage = {
  allowance: number;
  remaining: number;
  refillAmount: number | null;
  refillDays: number | null;
  /** When the next refill falls due (null: no refill, or the key has not used any yet). */
  nextRefillAt: number | null;
  /** The refill period the uses are counted in, as the next debit stores it. */
  periodStart: number;
};

/**
 * The key's uses at `now`, or null when its product is not metered. Every `refillDays` from the
 * key's first debit (or top-up) its uses are raised to `refillAmount`, never lowered: uses the owner
 * added stay. Periods that passed unseen refill once, as one would have.
 */
export function usageNow(f: UsageFields, now: number): Usage | null {
  if (f.usageAllowance === null) return null;
  const stored = f.usageRemaining ?? f.usageAllowance;
  const period = f.usageRefillAmount !== null && f.usageRefillDays !== null ? f.usageRefillDays * DAY_MS : null;
  if (period === null || f.usagePeriodStart === null) {
    const periodStart = f.usagePeriodStart ?? now;
    return {
      allowance: f.usageAllowance,
      remaining: stored,
      refillAmount: f.usageRefillAmount,
      refillDays: f.usageRefillDays,
      nextRefillAt: period === null || f.usagePeriodStart === null ? null : periodStart + period,
      periodStart,
    };
  }
  const due = now >= f.usagePeriodStart + period;
  const periodStart = due ? f.usagePeriodStart + Math.floor((now - f.usagePeriodStart) / period) * period : f.usagePeriodStart;
  return {
    allowance: f.usageAllowance,
    remaining: due ? Math.max(stored, f.usageRefillAmount!) : stored,
    refillAmount: f.usageRefillAmount,
    refillDays: f.usageRefillDays,
    nextRefillAt: periodStart + period,
    periodStart,
  };
}

/**
 * usageNow's remaining and periodStart in SQL, for key alias `k` and product alias `p` at `at` (an SQL
 * expression): NULL when the product is not metered.
 */
export function usageSql(k: string, p: string, at: string) {
  const period = `(${p}.usage_refill_days * ${DAY_MS})`;
  const stored = `coalesce(${k}.usage_remaining, ${p}.usage_allowance)`;
  const due = `(${p}.usage_refill_amount IS NOT NULL AND ${k}.usage_period_start IS NOT NULL AND ${at} >= ${k}.usage_period_start + ${period})`;
  return {
    remaining: `(CASE WHEN ${p}.usage_allowance IS NULL THEN NULL WHEN ${due} THEN max(${stored}, ${p}.usage_refill_amount) ELSE ${stored} END)`,
    periodStart: `(CASE WHEN ${due} THEN ${k}.usage_period_start + CAST((${at} - ${k}.usage_period_start) / ${period} AS INTEGER) * ${period} ELSE coalesce(${k}.usage_period_start, ${at}) END)`,
  };
}

/** A metered key's uses as the API says them (its refill period's start is the server's own). */
export function usageJson(usage: Usage | null) {
  if (!usage) return null;
  const { allowance, remaining, refillAmount, refillDays, nextRefillAt } = usage;
  return {
    allowance,
    remaining,
    refillAmount,
    refillDays,
    nextRefillAt: nextRefillAt === null ? null : new Date(nextRefillAt).toISOString(),
  };
}

/**
 * usageJson in SQL for key alias `k` and product alias `p` at `at`: a JSON object, or NULL when the
 * product is not metered.
 */
export function usageJsonSql(k: string, p: string, at: string) {
  const use = usageSql(k, p, at);
  const next = `CASE WHEN ${p}.usage_refill_days IS NULL OR ${k}.usage_period_start IS NULL THEN NULL ELSE ${isoTextSql(`(${use.periodStart} + ${p}.usage_refill_days * ${DAY_MS})`)} END`;
  return `CASE WHEN ${p}.usage_allowance IS NULL THEN NULL ELSE json_object('allowance', ${p}.usage_allowance, 'remaining', ${use.remaining}, 'refillAmount', ${p}.usage_refill_amount, 'refillDays', ${p}.usage_refill_days, 'nextRefillAt', ${next}) END`;
}

/** A key's entitlements: its product's and those granted to it, once each, in order. */
export const keyEntitlements = (product: readonly string[], granted: readonly string[]) => [...new Set([...product, ...granted])].sort();

/** keyEntitlements in SQL, as a JSON array text, from two JSON array texts. */
export const entitlementsSql = (product: string, granted: string) =>
  `(SELECT json_group_array(value) FROM (SELECT DISTINCT e.value FROM json_each(coalesce(${product}, '[]')) e UNION SELECT g.value FROM json_each(coalesce(${granted}, '[]')) g ORDER BY 1))`;
