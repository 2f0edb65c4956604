// `keypanel export`: the whole shop (owner) or your own data (--mine), streamed from the server to a
// file or stdout as it comes, with a count of rows per table at the end.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { Option, type Command } from 'commander';
import { MY_DATA_TABLES, SHOP_TABLES, RANGED_TABLES } from '../../worker/modules/portability/schemas';
import { contextOf } from '../lib/context';
import { CliError, UsageError } from '../lib/errors';
import { notice, visibleCsvStream } from '../lib/output';
import { progressBar } from '../lib/progress';

type ExportOptions = { table?: string; from?: string; to?: string; mine?: boolean; output?: string };

const DATE = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

export function registerExportCommand(program: Command) {
  program
    .command('export')
    .description('Export the whole shop (owner) or your own data (--mine): JSON lines, or one table as CSV')
    .addOption(new Option('--table <table>', `one table only (shop: ${SHOP_TABLES.join(', ')}; --mine: ${MY_DATA_TABLES.join(', ')})`))
    .option('--from <date>', `from this date (inclusive; ${RANGED_TABLES.join(' and ')} only)`)
    .option('--to <date>', `before this date (exclusive; ${RANGED_TABLES.join(' and ')} only)`)
    .option('--mine', 'your own data: account, keys, devices, payments, security log')
    .option('--output <file>', 'write to this file instead of stdout')
    .addHelpText(
      'after',
      `
JSON lines unless --format csv (CSV holds one table: name it with --table).

Examples:
  $ keypanel export --output shop.jsonl
  $ keypanel export --table keys --format csv --output keys.csv
  $ keypanel export --table ledger --from 2026-01-01 --to 2026-02-01 --output january-ledger.jsonl
  $ keypanel export --mine --output my-data.jsonl
`,
    )
    .action(async (options: ExportOptions, command: Command) => {
      const globals = command.optsWithGlobals<{ format?: string }>();
      const format = globals.format === 'csv' ? 'csv' : 'jsonl';
      if (globals.format === 'table')
        throw new UsageError('--format table does not apply: an export is JSON lines, or CSV with --format csv');
      const tables: readonly string[] = options.mine ? MY_DATA_TABLES : SHOP_TABLES;
      if (options.table && !tables.includes(options.table))
        throw new UsageError(`--table must be one of ${tables.join(', ')} (got "${options.table}")`);
      if (format === 'csv' && !options.table) throw new UsageError('A CSV export holds one table: name it with --table');
      for (const [name, value] of [
        ['--from', options.from],
        ['--to', options.to],
      ] as const) {
        if (value === undefined) continue;
        if (options.mine) throw new UsageError(`${name} cuts the shop's ledger or audit log, not --mine`);
        if (!DATE.test(value) || Number.isNaN(Date.parse(value))) throw new UsageError(`${name} must be a date (YYYY-MM-DD or ISO 8601)`);
        if (!(RANGED_TABLES as readonly string[]).includes(options.table ?? ''))
          throw new UsageError(`${name} cuts only --table ${RANGED_TABLES.join(' or --table ')}`);
      }
      const ctx = contextOf(command);
      const api = ctx.api();
      const answer = options.mine
        ? await api.download('/api/users/my-data', { format, table: options.table as never })
        : await api.download('/api/admin/export', { format, table: options.table as never, from: options.from, to: options.to });
      if (!answer.body) throw new CliError('The server sent an empty export.');

      const out = options.output ? await openOutput(options.output) : process.stdout;
      const counts = new Map<string, number>();
      const progress = progressBar('Exporting', null, 'rows');
      const count = (table: string, n: number) => {
        counts.set(table, (counts.get(table) ?? 0) + n);
        progress.advance(n);
      };
      // JSON lines: each line names its table. CSV: a line break outside quotes ends a record (a cell may hold one).
      let pending = '';
      let inQuotes = false;
      let csvRecords = 0;
      const countText = (text: string) => {
        if (format === 'csv') {
          let ended = 0;
          for (const ch of text) {
            if (ch === '"') inQuotes = !inQuotes;
            else if (ch === '\n' && !inQuotes) ended++;
          }
          // The first record is the header row.
          const rows = Math.max(0, csvRecords + ended - 1) - Math.max(0, csvRecords - 1);
          csvRecords += ended;
          if (rows) count(options.table!, rows);
          return;
        }
        const lines = (pending + text).split('\n');
        pending = lines.pop()!;
        for (const line of lines) {
          const table = /^\{"table":"([a-z]+)"/.exec(line)?.[1];
          if (table && table !== 'export') count(table, 1);
        }
      };
      const decoder = new TextDecoder();
      // A CSV is written as safe as the CLI's own (control and bidi characters escaped, lib/output.ts);
      // JSON lines stay exact (JSON escapes the control characters itself).
      const visible = format === 'csv' ? visibleCsvStream() : null;
      const put = async (text: string, raw?: Uint8Array) => {
        const bytes = visible ? Buffer.from(visible.write(text)) : raw;
        if (bytes?.length && !out.write(bytes)) await once(out, 'drain');
      };
      try {
        for await (const chunk of answer.body as AsyncIterable<Uint8Array>) {
          const text = decoder.decode(chunk, { stream: true });
          await put(text, chunk);
          countText(text);
        }
        const rest = decoder.decode();
        await put(rest);
        if (visible) {
          const held = visible.flush();
          if (held && !out.write(held)) await once(out, 'drain');
        }
        countText(rest);
        progress.done();
      } catch (err) {
        progress.stop();
        throw new CliError(`The export stopped before its end: ${(err as Error).message}. The file is incomplete; run it again.`);
      } finally {
        if (out !== process.stdout) {
          out.end();
          await once(out, 'close');
        }
      }
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const parts = [...counts].map(([table, n]) => `${n} ${table}`);
      notice(`Exported ${total} rows${parts.length ? ` (${parts.join(', ')})` : ''}${options.output ? ` to ${options.output}` : ''}.`);
    });
}

async function openOutput(file: string): Promise<Writable> {
  const stream = createWriteStream(file, { flags: 'w' });
  try {
    await once(stream, 'open');
  } catch (err) {
    throw new UsageError(`Cannot write --output ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return stream;
}
