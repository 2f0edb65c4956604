// What can be exported (issue 34): the whole shop for the owner, a customer's own data, and the
// audit log and the ledger on their own for a date range. Shared with the CLI.
import { z } from 'zod';
import { emptyAsUndefined } from '../../../platform/schemas/paging';

/** The shop's tables, in the order a whole export writes them (an import reads them in this order). */
export const SHOP_TABLES = ['users', 'products', 'keys', 'devices', 'ledger', 'payments', 'audit'] as const;
export type ShopTable = (typeof SHOP_TABLES)[number];

/** A customer's own data, in the order their download writes it. */
export const MY_DATA_TABLES = ['account', 'keys', 'devices', 'payments', 'security'] as const;
export type MyDataTable = (typeof MY_DATA_TABLES)[number];

/** The tables an export may cut to a date range (by when each row was written). */
export const RANGED_TABLES = ['ledger', 'audit'] as const satisfies readonly ShopTable[];

export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The first line of a JSON lines export: what follows, and when it was taken. */
export const EXPORT_HEADER_TABLE = 'export';
export const EXPORT_VERSION = 1;

const dateParam = (name: string) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine(
        (text) => /^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text)),
        `${name} must be a date (YYYY-MM-DD or ISO 8601)`,
      )
      .transform((text) => new Date(text))
      .optional(),
  );

const formatParam = z.preprocess(emptyAsUndefined, z.enum(EXPORT_FORMATS, { error: 'format must be jsonl or csv' }).default('jsonl'));

/** A CSV file holds one table, so a CSV export names it. */
const csvNamesTable = (query: { format: ExportFormat; table?: string }) => query.format !== 'csv' || query.table !== undefined;
const CSV_TABLE_MESSAGE = 'A CSV export holds one table: name it with table';

export const shopExportQuery = z
  .object({
    format: formatParam,
    table: z.preprocess(emptyAsUndefined, z.enum(SHOP_TABLES, { error: `table must be one of ${SHOP_TABLES.join(', ')}` }).optional()),
    /** From this instant (inclusive); ledger and audit only. */
    from: dateParam('from'),
    /** Before this instant (exclusive); ledger and audit only. */
    to: dateParam('to'),
  })
  .refine(csvNamesTable, { message: CSV_TABLE_MESSAGE, path: ['table'] })
  .refine((q) => (!q.from && !q.to) || (RANGED_TABLES as readonly string[]).includes(q.table ?? ''), {
    message: `from and to cut only the ${RANGED_TABLES.join(' or the ')} export: name it with table`,
    path: ['from'],
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, { message: 'from must be before to', path: ['to'] });
export type ShopExportQuery = z.infer<typeof shopExportQuery>;

export const myDataQuery = z
  .object({
    format: formatParam,
    table: z.preprocess(
      emptyAsUndefined,
      z.enum(MY_DATA_TABLES, { error: `table must be one of ${MY_DATA_TABLES.join(', ')}` }).optional(),
    ),
  })
  .refine(csvNamesTable, { message: CSV_TABLE_MESSAGE, path: ['table'] });
export type MyDataQuery = z.infer<typeof myDataQuery>;

/** The media type of each format. */
export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = { jsonl: 'application/x-ndjson', csv: 'text/csv' };
