// Each format's mapping, and what a file gives that none of them reads.
import { exportLine, type ImportFormat, type Mapped } from '../import';
import { unknownNames, type VendorFormat } from './fields';
import { gumroad } from './gumroad';
import { keygen } from './keygen';
import { keypanel } from './keypanel';
import { lemonsqueezy } from './lemonsqueezy';
import { polar } from './polar';

export { fieldKey } from './fields';
export { POLAR_ACTIVATION } from './polar';

export const VENDOR_FORMATS: Record<ImportFormat, VendorFormat> = { keypanel, keygen, lemonsqueezy, gumroad, polar };

/** A record of a file in this format as KeyPanel's row, or its first problem. */
export function mapRecord(format: ImportFormat, record: Record<string, unknown>): Mapped {
  if (format === 'keypanel' && 'table' in record) return exportLine(record.table, record.row);
  return VENDOR_FORMATS[format].map(record);
}

/** What every record carries for the file reader's sake (its id and type, the references it found). */
const STRUCTURE = ['id', '_id', 'type', 'userEmail', 'licenseKey', 'licenseId', 'devicesInFile'];
/** How many unread field names a notice lists. */
const UNKNOWN_LISTED = 40;

/**
 * The fields (CSV columns) of a file's records that its format's mapping does not read, in the
 * order first met: a dry run lists them (they are not imported), and they never refuse a record.
 */
export function unknownFields(format: ImportFormat, records: Record<string, unknown>[]): string[] {
  const vendor = VENDOR_FORMATS[format];
  const found = new Set<string>();
  for (const record of records) {
    if (format === 'keypanel' && 'table' in record) continue;
    const view = vendor.view ? vendor.view(record) : record;
    for (const name of unknownNames(view, vendor.names(record), STRUCTURE)) {
      found.add(name);
      if (found.size >= UNKNOWN_LISTED) return [...found];
    }
  }
  return [...found];
}
