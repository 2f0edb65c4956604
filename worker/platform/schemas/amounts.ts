// Money and counts given as text (a query string, the exchange form's amount): plain decimal digits,
// with at most the decimals the field allows. Nothing else is read as a number: JavaScript's Number()
// would take "0x10" as 16, "1e1" as 10, " 5 " as 5 and "" as 0, and `z.coerce.number()` is Number().
// Every money and count field that takes text goes through here; those in JSON bodies take JSON
// numbers only (z.number() refuses any string), as the API has always documented them.
import { z } from 'zod';

/** At most this many digits before the point: far beyond any bound here, and exact as a double. */
const MAX_WHOLE_DIGITS = 15;

const digitsPattern = (decimals: number) =>
  decimals === 0 ? `^[0-9]{1,${MAX_WHOLE_DIGITS}}$` : `^[0-9]{1,${MAX_WHOLE_DIGITS}}(\\.[0-9]{1,${decimals}})?$`;

/** Plain decimal digits, with a fractional part of any length: the field's schema judges how many decimals it takes. */
const PLAIN_DECIMAL = new RegExp(`^[0-9]{1,${MAX_WHOLE_DIGITS}}(\\.[0-9]{1,${MAX_WHOLE_DIGITS}})?$`);

/**
 * `schema` (a number schema, with its bounds, whole-number and decimal checks and messages), taking
 * text too when it is plain decimal digits. Any other text reaches `schema` as it is, which refuses
 * it with its own "must be a number" message. Typed and documented as the number it is read as.
 */
export function decimalInput<T extends z.ZodType<number>>(schema: T) {
  return z.preprocess((value: number) => (typeof value === 'string' && PLAIN_DECIMAL.test(value) ? Number(value) : value), schema);
}

/** The same test on its own, for code that reads an amount without a schema. */
export const isPlainDecimal = (text: string, decimals: number) => new RegExp(digitsPattern(decimals)).test(text);
