// What the CLI prints. stdout carries only data (a table, CSV or JSON), so it pipes; messages and
// progress go to stderr. Rows are written as they arrive, with backpressure, so a long export never
// sits in memory. Colours only on a terminal, and never with NO_COLOR (https://no-color.org).
// Text from the server is never printed raw in a table, a CSV or a message: control and
// bidirectional characters (a colour, a hidden link, U+202E) are written as visible escapes (\x1b,
// \u202e); a CSV cell keeps its line breaks (quoted) and has its formulas neutralised. JSON stays
// exact (JSON.stringify escapes the control characters itself).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { csvCell } from '../../worker/platform/schemas/csv';
import { visibleText } from '../../worker/platform/schemas/text';
import { UsageError } from './errors';

export const FORMATS = ['table', 'csv', 'json'] as const;
export type Format = (typeof FORMATS)[number];

/** `--format` when given; else a table on a terminal and JSON in a pipe or file (it parses, and keeps nesting). */
export function resolveFormat(option: string | undefined, stdout: { isTTY?: boolean } = process.stdout, fallback?: Format): Format {
  if (option === undefined) return fallback ?? (stdout.isTTY ? 'table' : 'json');
  if (!(FORMATS as readonly string[]).includes(option))
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got "${option}")`);
  return option as Format;
}

// ---- colour ---------------------------------------------------------------------------------

const CODES = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], cyan: [36, 39] } as const;
export type Colour = keyof typeof CODES;

export function colourEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

export function paint(stream: { isTTY?: boolean }, colour: Colour | undefined, text: string): string {
  if (!colour || !colourEnabled(stream)) return text;
  const [open, close] = CODES[colour];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

// ---- messages on stderr ---------------------------------------------------------------------

let quiet = false;
export const setQuiet = (value: boolean) => (quiet = value);
export const isQuiet = () => quiet;

/** A status message for a person (stderr); `--quiet` silences it. */
export function notice(message: string) {
  if (!quiet) process.stderr.write(`${plain(message)}\n`);
}

export function success(message: string) {
  if (!quiet) process.stderr.write(`${paint(process.stderr, 'green', '✔')} ${plain(message)}\n`);
}

export function warn(message: string) {
  process.stderr.write(`${paint(process.stderr, 'yellow', 'Warning:')} ${plain(message)}\n`);
}

/** A message for a person: its line breaks kept, every other control or bidi character escaped. */
export const plain = (message: string) => visibleText(message, { lineBreaks: true });

// ---- data on stdout -------------------------------------------------------------------------

/** Writes with backpressure: a slow reader (a pipe, a disk) pauses the export instead of filling memory. */
export async function writeOut(text: string, stream: Writable = process.stdout) {
  if (!stream.write(text)) await once(stream, 'drain');
}

type Cell = string | number | boolean | null | undefined;

export type Column<T> = {
  header: string;
  value: (row: T) => Cell;
  /** Table width; longer values are cut with an ellipsis. Defaults to the header's width or 12. */
  width?: number;
  /** Table only: how the value reads for a person (dates shortened, say). */
  display?: (value: Cell, row: T) => string;
  colour?: (value: Cell, row: T) => Colour | undefined;
  align?: 'left' | 'right';
};

/**
 * RFC 4180 quoting, with spreadsheet formulas neutralised (shared with the web app's exports), and
 * every control or bidi character but a line break written as its escape, as a table writes it
 * (issue 42): a CSV on a terminal, or opened anywhere, is as safe as the table.
 */
export const csvField = (value: Cell): string => csvCell(typeof value === 'string' ? visibleText(value, { lineBreaks: true }) : value);

export const csvLine = (cells: Cell[]) => `${cells.map(csvField).join(',')}\r\n`;

/**
 * CSV text the server wrote (an export), made as safe as the CLI's own: every control or bidi
 * character but the line breaks (LF, and CR LF) written as its escape. Fed chunk by chunk; a CR at
 * a chunk's end waits for the next, which may begin with its LF. `flush()` gives what is held.
 */
export function visibleCsvStream() {
  let held = '';
  const clean = (text: string) =>
    text
      .split(/(\r\n|\n)/)
      .map((part) => (part === '\r\n' || part === '\n' ? part : visibleText(part)))
      .join('');
  return {
    write(chunk: string): string {
      const text = held + chunk;
      held = text.endsWith('\r') ? '\r' : '';
      return clean(held ? text.slice(0, -1) : text);
    },
    flush(): string {
      const rest = clean(held);
      held = '';
      return rest;
    },
  };
}

const cut = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`);
const pad = (text: string, width: number, align: 'left' | 'right' = 'left') =>
  align === 'right' ? text.padStart(width) : text.padEnd(width);

/** `end` completes the output (an empty list still gets its header); `abort`, after an error, closes only what was started. */
export type RowWriter<T> = { write(row: T): Promise<void>; end(): Promise<number>; abort(): Promise<void> };

/**
 * Streams rows in the chosen format. The table has fixed column widths so it can print each row
 * as it comes; JSON is one array, written element by element; `json` picks what each element is.
 * `details` gives a table row lines of its own under it (a row's parts: a delivery's attempts).
 */
export function rowWriter<T>(
  format: Format,
  columns: Column<T>[],
  options: { json?: (row: T) => unknown; stream?: Writable; details?: (row: T) => string[] } = {},
): RowWriter<T> {
  const stream = options.stream ?? process.stdout;
  const tty = stream as unknown as { isTTY?: boolean };
  let count = 0;
  const widths = columns.map((c) => c.width ?? Math.max(c.header.length, 12));

  async function start() {
    if (format === 'csv') await writeOut(csvLine(columns.map((c) => c.header)), stream);
    if (format === 'json') await writeOut('[', stream);
    if (format === 'table') {
      const header = columns.map((c, i) => pad(cut(c.header, widths[i]), widths[i], c.align)).join('  ');
      await writeOut(`${paint(tty, 'bold', header.trimEnd())}\n`, stream);
    }
  }

  return {
    async write(row) {
      if (count === 0) await start();
      count++;
      if (format === 'csv') return writeOut(csvLine(columns.map((c) => c.value(row))), stream);
      if (format === 'json')
        return writeOut(`${count > 1 ? ',' : ''}\n  ${JSON.stringify(options.json ? options.json(row) : row)}`, stream);
      const cells = columns.map((c, i) => {
        const value = c.value(row);
        const text = pad(
          cut(visibleText(c.display ? c.display(value, row) : value === null || value === undefined ? '—' : String(value)), widths[i]),
          widths[i],
          c.align,
        );
        return paint(tty, c.colour?.(value, row), text);
      });
      const details = options.details?.(row).map((line) => `${visibleText(line).trimEnd()}\n`) ?? [];
      return writeOut(`${cells.join('  ').trimEnd()}\n${details.join('')}`, stream);
    },
    async end() {
      if (count === 0) await start();
      if (format === 'json') await writeOut(count === 0 ? ']\n' : '\n]\n', stream);
      return count;
    },
    async abort() {
      // The rows already written stay usable: a JSON array is closed, so it still parses.
      if (count > 0 && format === 'json') await writeOut('\n]\n', stream);
    },
  };
}

/** One object: `field  value` lines in a table, a two-line CSV, or the JSON itself. */
export async function printRecord(format: Format, fields: Array<[string, Cell]>, json: unknown = Object.fromEntries(fields)) {
  if (format === 'json') return writeOut(`${JSON.stringify(json, null, 2)}\n`);
  if (format === 'csv') return writeOut(csvLine(fields.map(([name]) => name)) + csvLine(fields.map(([, value]) => value)));
  const width = Math.max(...fields.map(([name]) => name.length));
  const lines = fields.map(
    ([name, value]) =>
      `${paint(process.stdout, 'bold', name.padEnd(width))}  ${value === null || value === undefined ? '—' : visibleText(String(value))}`,
  );
  return writeOut(`${lines.join('\n')}\n`);
}

/** `2026-05-01T10:20:30.000Z` as `2026-05-01 10:20` (UTC) for a table. */
export const shortDate = (value: Cell) =>
  typeof value === 'string' && value.length >= 16
    ? `${value.slice(0, 10)} ${value.slice(11, 16)}`
    : value === null || value === undefined
      ? '—'
      : String(value);
