// One CSV cell, as every export writes it (the CLI's and the web app's): RFC 4180 quoting, and
// spreadsheet formulas neutralised (OWASP "CSV injection"). A spreadsheet runs a cell that starts
// with = + - @ (or a tab or carriage return before one) as a formula, so a product name or a
// username like `=HYPERLINK(...)` could act when the owner opens the file; such a cell gets a
// leading ' and is shown as text. Numbers pass as they are: they carry no formula, and -5 stays -5.
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A record ended by CRLF, as RFC 4180 has it. */
export const csvRow = (cells: CsvValue[]) => `${cells.map(csvCell).join(',')}\r\n`;
