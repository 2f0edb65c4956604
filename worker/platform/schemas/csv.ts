// One CSV cell, as every export writes it (the CLI's and the web app's): RFC 4180 quoting, and
// spreadsheet formulas neutralised (OWASP "CSV injection"). A spreadsheet runs a cell that starts
// with = + - @ (or a tab or carriage return before one) as a formula, so a product name or a
// username like `=HYPERLINK(...)` could act when the owner opens the file; such a cell gets a
// leading ' and is shown as text. Numbers pass as they are: they carry no formula, and -5 stays -5.
//
// The file is written with commas, but a spreadsheet may split it on `;` (the list separator of
// many locales) or on tabs, honouring a quote only at the start of what it takes for a cell. So a
// cell holding `;`, a tab, a quote or a line break is quoted, and a formula start right after one
// of those (where such a reader begins a new cell or row) gets a ' too: `Widget;=cmd` is written
// `"Widget;'=cmd"`, which no reader runs.
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
/** A formula start where a reader splitting on another separator, or on line breaks, would begin a cell. */
const FORMULA_AFTER_SEPARATOR = /([;\t\r\n])(?=[=+\-@\t\r])/g;
const NEEDS_QUOTES = /[",;\t\r\n]/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string') {
    text = text.replace(FORMULA_AFTER_SEPARATOR, "$1'");
    if (FORMULA_START.test(text)) text = `'${text}`;
  }
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A record ended by CRLF, as RFC 4180 has it. */
export const csvRow = (cells: CsvValue[]) => `${cells.map(csvCell).join(',')}\r\n`;
