// How an import finds a record's fields by the names each vendor documents, whatever the file writes:
// "License Key", "license_key" and "licenseKey" are one field (case, spaces and punctuation aside),
// so a dashboard's CSV and an API's JSON map alike. A field no name takes is not refused: it is
// listed, once per file, as not imported.
import { z } from 'zod';
import { DAY_MS } from '../../../../platform/vocabulary';
import type { KeyRow, Mapped } from '../import';

/** A field or column name as the import compares it: lower case, letters and digits only. */
export const fieldKey = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Each of a mapping's fields, with the names a vendor writes it under (its own name first). */
export type FieldNames = Record<string, readonly string[]>;

const isBlank = (v: unknown) => v === '' || v === null || v === undefined;

/**
 * The record's fields under the mapping's names: for each, the first of its names the record has a
 * value under (in the order the names are listed, then its own: Gumroad's "Fully Refunded?" wins
 * over "Refunded?", which a partial refund sets too).
 */
export function renameFields(record: Record<string, unknown>, names: FieldNames): Record<string, unknown> {
  const byKey = new Map<string, unknown>();
  for (const [name, value] of Object.entries(record)) {
    const key = fieldKey(name);
    if (!byKey.has(key) || isBlank(byKey.get(key))) byKey.set(key, value);
  }
  const fields: Record<string, unknown> = {};
  for (const [target, aliases] of Object.entries(names))
    for (const alias of [...aliases, target]) {
      const value = byKey.get(fieldKey(alias));
      if (!isBlank(value)) {
        fields[target] = value;
        break;
      }
    }
  return fields;
}

/** The record's fields that none of the mapping's names (nor `ignored`) takes. */
export function unknownNames(record: Record<string, unknown>, names: FieldNames, ignored: readonly string[] = []): string[] {
  const known = new Set([...ignored, ...Object.entries(names).flatMap(([target, aliases]) => [target, ...aliases])].map(fieldKey));
  return Object.keys(record).filter((name) => !known.has(fieldKey(name)));
}

/** A vendor's yes or no: a JSON boolean, or a CSV cell (true/false, yes/no, 1/0, in any case). */
export const yesNo = (name: string) =>
  z
    .preprocess(
      (v) => (isBlank(v) ? undefined : typeof v === 'string' ? v.trim().toLowerCase() : v),
      z
        .union([z.boolean(), z.literal(0), z.literal(1), z.enum(['true', 'false', 'yes', 'no', 'y', 'n', '1', '0'])], {
          error: `${name} must be true or false`,
        })
        .optional(),
    )
    .transform((v) => v === true || v === 1 || v === 'true' || v === 'yes' || v === 'y' || v === '1');

/** A key's days from when it was made to its expiry (whole days, rounded up), when the file tells both. */
export function daysBetween(createdAt: number | undefined, expiresAt: number | undefined, max: number): number | undefined {
  if (createdAt === undefined || expiresAt === undefined || expiresAt <= createdAt) return undefined;
  return Math.min(max, Math.max(1, Math.ceil((expiresAt - createdAt) / DAY_MS)));
}

/** How one system's records map: a licence to a key row, a device (machine, instance, activation) to a device row. */
export type VendorFormat = {
  /** The record types (the JSON:API `type`) that are devices, whose licence's key the file reader finds. */
  deviceTypes: readonly string[];
  /** The fields the mapping reads, by the names this record may give them. */
  names: (record: Record<string, unknown>) => FieldNames;
  /** The record as the mapping reads it, when it nests its fields (Gumroad's `purchase`, Polar's `customer`). */
  view?: (record: Record<string, unknown>) => Record<string, unknown>;
  map: (record: Record<string, unknown>) => Mapped;
};

/**
 * A vendor's key with no expiry never expires there: it becomes a perpetual key here, rather than
 * one whose clock starts at its first activation for its product's days. A revoked or ended one keeps its product's model.
 */
export const neverExpires = (expiry: number | undefined, ended: boolean): Pick<KeyRow, 'expiryModel'> =>
  expiry === undefined && !ended ? { expiryModel: 'perpetual' } : {};
