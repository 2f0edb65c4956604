// Arguments are checked before any request, with the API's own zod schemas where one fits, so the
// CLI and the server give the same message. A failure is bad usage: exit 2.
import { InvalidArgumentError } from 'commander';
import type { z } from 'zod';
import { UsageError } from './errors';

/** Parses a value or throws a UsageError carrying the schema's first message. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw new UsageError(`${prefix}${prefix && !where ? '' : where}${issue.message}`);
}

/** A whole number option (commander parser): `--quantity abc` is refused with a clear message. */
export function wholeNumber(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    if (!/^-?\d+$/.test(raw.trim())) throw new InvalidArgumentError(`${name} must be a whole number.`);
    const value = Number(raw);
    if (value < min) throw new InvalidArgumentError(`${name} must be at least ${min}.`);
    if (value > max) throw new InvalidArgumentError(`${name} must be at most ${max}.`);
    return value;
  };
}

/** A decimal amount option (dollars). */
export function decimalNumber(name: string) {
  return (raw: string): number => {
    if (!/^\d+(\.\d+)?$/.test(raw.trim())) throw new InvalidArgumentError(`${name} must be a positive number like 12.50.`);
    return Number(raw);
  };
}

/** One of a fixed list. */
export function oneOf<T extends string>(name: string, values: readonly T[]) {
  return (raw: string): T => {
    if (!(values as readonly string[]).includes(raw)) throw new InvalidArgumentError(`${name} must be one of ${values.join(', ')}.`);
    return raw as T;
  };
}

export const MONGO_LIKE_ID = /^[0-9a-f]{24}$/;
