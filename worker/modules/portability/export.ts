// Exports (issue 34): tables written as JSON lines or CSV, streamed. Each table is read a page at a
// time by keyset (its id, or its time and id where a date range cuts it), so no table is ever held
// whole in memory; the stream asks D1 for the next page only when the reader wants more.
import { and, asc, eq, getTableColumns, gt, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { DB } from '../../platform/db/client';
import { activations, auditLog, ledger, licenseKeys, payments, products, securityLog, users } from '../../platform/db/schema';
import { csvRow, type CsvValue } from '../../platform/schemas/csv';
import { AppError } from '../../platform/errors';
import {
  EXPORT_HEADER_TABLE,
  EXPORT_VERSION,
  MY_DATA_TABLES,
  SHOP_TABLES,
  type ExportFormat,
  type MyDataQuery,
  type MyDataTable,
  type ShopExportQuery,
  type ShopTable,
} from './schemas';

/** Rows per D1 query: small enough to stay well inside a Worker's memory, large enough to be few. */
export const EXPORT_PAGE_ROWS = 500;

type Row = Record<string, unknown>;
type Cursor = { id: string; at: Date | null };

/** One table of an export: what it reads, in which order, and which rows. */
type Section = {
  name: string;
  table: SQLiteTable;
  columns: Record<string, SQLiteColumn>;
  id: SQLiteColumn;
  /** Set: rows in (time, id) order, so a date range reads only its own part of the time index. */
  time?: SQLiteColumn;
  where?: SQL;
};

/** A user's columns without their secrets: no password hash, two-factor secrets, Google link or credential epoch. */
function userColumns() {
  const {
    passwordHash: _passwordHash,
    twoFactorSecret: _twoFactorSecret,
    twoFactorPendingSecret: _twoFactorPendingSecret,
    twoFactorLastStep: _twoFactorLastStep,
    googleId: _googleId,
    credentialEpoch: _credentialEpoch,
    ...safe
  } = getTableColumns(users);
  return safe;
}

function range(time: SQLiteColumn, from: Date | undefined, to: Date | undefined): SQL | undefined {
  return and(from ? gte(time, from) : undefined, to ? lt(time, to) : undefined);
}

function shopSection(name: ShopTable, query: ShopExportQuery): Section {
  switch (name) {
    case 'users':
      return { name, table: users, columns: userColumns(), id: users.id };
    case 'products':
      return { name, table: products, columns: getTableColumns(products), id: products.id };
    case 'keys':
      return { name, table: licenseKeys, columns: getTableColumns(licenseKeys), id: licenseKeys.id };
    case 'devices':
      return { name, table: activations, columns: getTableColumns(activations), id: activations.id };
    case 'payments':
      return { name, table: payments, columns: getTableColumns(payments), id: payments.id };
    case 'ledger':
      return {
        name,
        table: ledger,
        columns: getTableColumns(ledger),
        id: ledger.id,
        time: ledger.createdAt,
        where: range(ledger.createdAt, query.from, query.to),
      };
    case 'audit':
      return {
        name,
        table: auditLog,
        columns: getTableColumns(auditLog),
        id: auditLog.id,
        time: auditLog.createdAt,
        where: range(auditLog.createdAt, query.from, query.to),
      };
  }
}

function myDataSection(name: MyDataTable, userId: string): Section {
  switch (name) {
    case 'account':
      return { name, table: users, columns: userColumns(), id: users.id, where: eq(users.id, userId) };
    case 'keys':
      return {
        name,
        table: licenseKeys,
        columns: getTableColumns(licenseKeys),
        id: licenseKeys.id,
        where: eq(licenseKeys.purchasedBy, userId),
      };
    case 'devices':
      return {
        name,
        table: activations,
        columns: getTableColumns(activations),
        id: activations.id,
        where: inArray(activations.keyId, sql`(SELECT ${licenseKeys.id} FROM ${licenseKeys} WHERE ${licenseKeys.purchasedBy} = ${userId})`),
      };
    case 'payments':
      return { name, table: payments, columns: getTableColumns(payments), id: payments.id, where: eq(payments.userId, userId) };
    case 'security':
      return { name, table: securityLog, columns: getTableColumns(securityLog), id: securityLog.id, where: eq(securityLog.userId, userId) };
  }
}

/** The page after `after` (the first page without it). */
async function readPage(db: DB, section: Section, after: Cursor | null): Promise<Row[]> {
  const { time, id } = section;
  let keyset: SQL | undefined;
  if (after) keyset = time && after.at ? or(gt(time, after.at), and(eq(time, after.at), gt(id, after.id))) : gt(id, after.id);
  return db
    .select(section.columns)
    .from(section.table)
    .where(and(section.where, keyset))
    .orderBy(...(time ? [asc(time), asc(id)] : [asc(id)]))
    .limit(EXPORT_PAGE_ROWS);
}

function cursorOf(section: Section, row: Row): Cursor {
  const key = (column: SQLiteColumn) => Object.entries(section.columns).find(([, c]) => c === column)![0];
  return { id: row[key(section.id)] as string, at: section.time ? (row[key(section.time)] as Date) : null };
}

/** A cell as CSV writes it: a time in ISO 8601, a list or object as its JSON. */
function csvValue(value: unknown): CsvValue {
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value as CsvValue;
}

/** A JSON line: `{"table": "keys", "row": {...}}` (times in ISO 8601, as JSON writes a Date). */
const jsonLine = (table: string, row: Row) => `${JSON.stringify({ table, row })}\n`;

/**
 * The stream of an export. The first page of the first table is read before it returns, so a
 * failure to read is the request's error rather than a cut-off file; every further page is read
 * when the reader asks for more.
 */
async function exportStream(db: DB, sections: Section[], format: ExportFormat, exportedAt: Date): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let index = 0;
  let after: Cursor | null = null;
  let page: Row[] | null = sections.length ? await readPage(db, sections[0], null) : [];
  let preamble =
    format === 'jsonl'
      ? jsonLine(EXPORT_HEADER_TABLE, { format: 'keypanel', version: EXPORT_VERSION, exportedAt, tables: sections.map((s) => s.name) })
      : csvRow(Object.keys(sections[0].columns));

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let text = preamble;
        preamble = '';
        // Pages until some text is ready (a table may be empty) or every table is done.
        while (index < sections.length) {
          const section = sections[index];
          page ??= await readPage(db, section, after);
          const rows = page;
          page = null;
          for (const row of rows) text += format === 'jsonl' ? jsonLine(section.name, row) : csvRow(Object.values(row).map(csvValue));
          if (rows.length === EXPORT_PAGE_ROWS) {
            after = cursorOf(section, rows[rows.length - 1]);
          } else {
            index++;
            after = null;
          }
          if (text) break;
        }
        if (text) controller.enqueue(encoder.encode(text));
        if (index >= sections.length) controller.close();
      },
      // No page read ahead of the reader: the next is read when the last is taken.
    },
    { highWaterMark: 0 },
  );
}

/** The whole shop (or one of its tables), for the owner. */
export function exportShop(db: DB, query: ShopExportQuery, now = new Date()) {
  const names = query.table ? [query.table] : [...SHOP_TABLES];
  return exportStream(
    db,
    names.map((name) => shopSection(name, query)),
    query.format,
    now,
  );
}

export const SECURITY_LOG_NEEDS_SESSION =
  'API tokens cannot read the security log, here or through its own page. Sign in to KeyPanel to download it.';

/**
 * A customer's own data (or one part of it): their account, keys, devices, payments and security log.
 * The security log is a session's to read, as on its own page (GET /api/users/security-log takes no
 * API token): an API token asking for it is refused, and a token's whole export leaves it out (the
 * export's first line lists the tables it holds).
 */
export function exportMyData(db: DB, caller: { id: string; via: 'session' | 'apiToken' }, query: MyDataQuery, now = new Date()) {
  const token = caller.via !== 'session';
  if (token && query.table === 'security') throw new AppError('FORBIDDEN', SECURITY_LOG_NEEDS_SESSION);
  const names = query.table ? [query.table] : MY_DATA_TABLES.filter((name) => !(token && name === 'security'));
  return exportStream(
    db,
    names.map((name) => myDataSection(name, caller.id)),
    query.format,
    now,
  );
}
