// Arguments are checked before any request, with the API's own zod schemas where one fits, so the
// CLI and the server give the same message. A failure is bad usage: exit 2.
import { InvalidArgumentError } from 'commander';
import type { z } from 'zod';
import { UsageError } from './errors';
import { isPlainDecimal } from '../../worker/platform/schemas/amounts';

/** Parses a value or throws a UsageError carrying the schema's first message. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw new UsageError(`${prefix}${prefix && !where ? '' : where}${issue.message}`);
}

/**
 * A whole number option (commander parser): `--quantity abc` is refused with a clear message. Read
 * by the API's rule for amounts (worker/platform/schemas/amounts.ts): plain digits only, so `0x10`,
 * `1e3`, ` 5`, `+5` and `-5` are refused rather than read as Number() would read them.
 */
export function wholeNumber(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    if (!isPlainDecimal(raw, 0)) throw new InvalidArgumentError(`${name} must be a whole number (digits only).`);
    const value = Number(raw);
    if (value < min) throw new InvalidArgumentError(`${name} must be at least ${min}.`);
    if (value > max) throw new InvalidArgumentError(`${name} must be at most ${max}.`);
    return value;
  };
}

/** A decimal amount option (dollars): digits with at most two decimals, by the same rule. */
export function decimalNumber(name: string) {
  return (raw: string): number => {
    if (!isPlainDecimal(raw, 2)) throw new InvalidArgumentError(`${name} must be a positive number like 12.50.`);
    return Number(raw);
  };
}

/** A number read from text (an argument, a file) by the same rule, with as many decimals as `decimals`; null when it is not one. */
export function plainNumber(raw: string, decimals = 0): number | null {
  return isPlainDecimal(raw, decimals) ? Number(raw) : null;
}

/** One of a fixed list. */
export function oneOf<T extends string>(name: string, values: readonly T[]) {
  return (raw: string): T => {
    if (!(values as readonly string[]).includes(raw)) throw new InvalidArgumentError(`${name} must be one of ${values.join(', ')}.`);
    return raw as T;
  };
}

export const MONGO_LIKE_ID = /^[0-9a-f]{24}$/;
