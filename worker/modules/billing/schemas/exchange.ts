// USD to credits: amounts in whole cents, credits rounded down, all in
// integer arithmetic so that the browser's preview and the server's figure can never disagree.
import { z } from 'zod';
import { isPlainDecimal } from '../../../platform/schemas/amounts';
import { userSchema } from '../../accounts/schemas/answers';

export const INVALID_AMOUNT_MESSAGE = 'Please enter a valid USD amount';
export const INSUFFICIENT_USD_MESSAGE = 'Insufficient USD balance';
/** A million dollars in one exchange is far beyond any real top-up, and keeps cents x rate exact. */
export const MAX_EXCHANGE_CENTS = 100_000_000;

/**
 * Whole cents from a dollar amount with at most two decimals (a number, or the text of a form
 * field); null for anything else. `0.1 + 0.2` style float noise is tolerated, a third decimal is not.
 */
export function toCents(value: unknown): number | null {
  // Text must be plain decimal digits with at most two decimals: not "0x10", "1e1", " 5" or "-1".
  if (typeof value === 'string' && !isPlainDecimal(value, 2)) return null;
  const amount = typeof value === 'string' ? Number(value) : value;
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return null;
  const cents = Math.round(amount * 100);
  if (Math.abs(amount * 100 - cents) > 1e-6) return null;
  return cents;
}

/** Credits for an amount: floor(cents x rate / 100), exact for every amount this server accepts. */
export function creditsForCents(cents: number, rate: number): number {
  const scaled = cents * rate;
  return (scaled - (scaled % 100)) / 100;
}

export const exchangeSchema = z.object({
  usdAmount: z.unknown().transform((v, ctx) => {
    const cents = toCents(v);
    if (cents === null || cents < 1) {
      ctx.addIssue({ code: 'custom', message: INVALID_AMOUNT_MESSAGE });
      return z.NEVER;
    }
    if (cents > MAX_EXCHANGE_CENTS) {
      ctx.addIssue({ code: 'custom', message: `At most $${(MAX_EXCHANGE_CENTS / 100).toLocaleString('en-US')} can be exchanged at once` });
      return z.NEVER;
    }
    return cents;
  }),
  /** What the customer's screen promised; the server never credits more than its own figure. */
  creditsToAdd: z.number({ error: 'creditsToAdd must be a number' }).min(0, 'creditsToAdd cannot be negative').optional(),
});

export type ExchangeInput = { usdAmount: number | string; creditsToAdd?: number };

export const exchangeRateResponseSchema = z.object({ rate: z.number() }).meta({ id: 'ExchangeRateResponse' });

export type ExchangeRateResponse = z.infer<typeof exchangeRateResponseSchema>;

export const exchangeResponseSchema = z
  .object({ user: userSchema, balances: z.object({ usd: z.number(), credits: z.number() }) })
  .meta({ id: 'ExchangeResponse' });

export type ExchangeResponse = z.infer<typeof exchangeResponseSchema>;
