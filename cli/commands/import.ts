// `keypanel import FILE|DIR --from keypanel|keygen|lemonsqueezy|gumroad|polar`: licences from another
// system (or a KeyPanel export; a directory of API pages or export tables reads as one file) sent a
// chunk of records per request. A file of several chunks is checked whole
// first (every chunk as a dry run), so a bad record anywhere refuses the file before any chunk is
// written; then the chunks go in order, with progress on stderr and a summary at the end.
//
// A big import may be cut off (the CLI killed, the server gone): its position is kept after every
// chunk in a state file in the config dir, named by the file's and the options' fingerprint, and the
// same command run again sends the rest (the server makes a chunk sent again write nothing twice).
// `--report FILE` keeps every record's outcome as CSV, resumed with the import.
import {
  mkdirSync,
  openSync,
  closeSync,
  ftruncateSync,
  rmSync,
  renameSync,
  writeFileSync,
  readFileSync,
  appendFileSync,
  existsSync,
  statSync,
} from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import {
  IMPORT_FORMATS,
  IMPORT_MAX_DAYS,
  IMPORT_LISTED,
  IMPORT_MAX_DEVICES,
  addToTally,
  chunkRecords,
  emptyImportTally,
  importFingerprint,
  inFileFor,
  readImportFiles,
  reportHeader,
  reportRows,
  sendChunks,
  sourceOf,
  startPosition,
  unknownFields,
  type ImportFormat,
  type ImportPosition,
  type ImportProblem,
  type ImportRecord,
  type ImportResult,
  type ImportTally,
} from '../../worker/modules/portability/schemas';
import { configDir, resolveConnection } from '../lib/config';
import { contextOf } from '../lib/context';
import { ApiError, CliError, UsageError } from '../lib/errors';
import { notice, printRecord, warn } from '../lib/output';
import { progressBar } from '../lib/progress';
import { askStepUp } from '../lib/prompts';
import { plainNumber } from '../lib/validate';

type ImportOptions = {
  from: ImportFormat;
  dryRun?: boolean;
  product?: string;
  days?: string;
  devices?: string;
  mail: boolean;
  keepRoles?: boolean;
  report?: string;
  restart?: boolean;
};

/** What the state file keeps: the position, and how long the report was when it was kept. */
type SavedState = { position: ImportPosition; reportBytes: number | null };

const statePath = (fingerprint: string) => path.join(configDir(), 'imports', `${fingerprint}.json`);

function readState(file: string): SavedState | null {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as SavedState;
    return state && typeof state.position?.done === 'number' ? state : null;
  } catch {
    return null;
  }
}

/** Written whole or not at all (a kill mid-write leaves the last state). */
function writeState(file: string, state: SavedState) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(state), { mode: 0o600 });
  renameSync(temp, file);
}

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

const wholeNumber = (name: string, value: string | undefined, max: number) => {
  if (value === undefined) return undefined;
  const n = plainNumber(value);
  if (n === null || n < 1 || n > max) throw new UsageError(`${name} must be a whole number from 1 to ${max} (got "${value}")`);
  return n;
};

/** Where a line is: `line N`, or in a directory `FILE line N`. */
type Where = (line: number) => string;

function printProblems(problems: ImportProblem[], total: number, where: Where) {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  for (const p of sorted.slice(0, IMPORT_LISTED)) warn(`${where(p.line)}: ${p.message}`);
  if (total > IMPORT_LISTED) warn(`... and ${total - IMPORT_LISTED} more`);
}

/** The file, or every file of the directory (by name: a vendor's API pages, an export's CSV tables). */
async function readFiles(target: string): Promise<{ name: string; text: string }[]> {
  const cannot = (err: unknown) =>
    new UsageError(`Cannot read ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  try {
    if (!(await stat(target)).isDirectory()) return [{ name: target, text: await readFile(target, 'utf8') }];
    const entries = (await readdir(target, { withFileTypes: true })).filter((e) => e.isFile() && !e.name.startsWith('.'));
    const names = entries.map((e) => e.name).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    return Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(target, name), 'utf8') })));
  } catch (err) {
    throw cannot(err);
  }
}

export function registerImportCommand(program: Command) {
  program
    .command('import')
    .description("Import licences from a file: KeyPanel's own (key rows, or an export), Keygen's, Lemon Squeezy's, Gumroad's or Polar's")
    .argument('<file>', 'a CSV, JSON or JSON lines file, or a directory of them (API pages, export tables), read in name order')
    .addOption(new Option('--from <system>', 'whose format the file is in').choices(IMPORT_FORMATS).makeOptionMandatory())
    .option('--dry-run', 'check the file and say what would be created, matched and skipped; write nothing')
    .option('--product <keyTag>', "the product of rows that name none (Keygen's, Lemon Squeezy's, Gumroad's and Polar's never do)")
    .option('--days <n>', "a key's days when its row has no expiry (default: the product's shortest)")
    .option('--devices <n>', "a key's device limit when its row has none (default: the product's)")
    .option('--no-mail', 'do not mail the accounts the import creates how to sign in')
    .option('--report <file>', "write every record's outcome to this CSV file (line, type, subject, action, reason, devices, ...)")
    .option('--restart', 'start over instead of resuming where an earlier run of the same import stopped')
    .option(
      '--keep-roles',
      "keep the file's resellers and verified addresses: confirm with your password (KEYPANEL_PASSWORD) in a signed-in session; without it they are made unverified customers",
    )
    .addHelpText(
      'after',
      `
A file with any bad record is refused whole, each problem with its line; nothing is written.
Importing the same file again changes nothing: its keys, accounts and ledger rows are matched.
An import cut off (the CLI killed, the server gone) resumes where it stopped when the same command
runs again: its position is kept in the config dir after every part of the file.

Examples:
  $ keypanel import licenses.json --from keygen --product APP --dry-run
  $ keypanel import license-keys.csv --from lemonsqueezy --product APP
  $ keypanel import sales.csv --from gumroad --product APP --days 365 --devices 2
  $ keypanel import keygen-pages/ --from keygen --product APP     (licences and machines, page by page)
  $ keypanel import sales.csv --from gumroad --product APP         (Gumroad's dashboard sales export)
  $ keypanel import shop.jsonl --from keypanel --report shop-import.csv
`,
    )
    .action(async (file: string, options: ImportOptions, command: Command) => {
      const days = wholeNumber('--days', options.days, IMPORT_MAX_DAYS);
      const devices = wholeNumber('--devices', options.devices, IMPORT_MAX_DEVICES);
      const files = await readFiles(file);
      if (!files.length) throw new CliError(`${file} holds no files; nothing was imported.`);
      const read = readImportFiles(files);
      const where: Where =
        files.length > 1
          ? (line) => {
              const at = sourceOf(read.sources, line);
              return `${at.name} line ${at.line}`;
            }
          : (line) => `line ${line}`;
      if (read.problems.length) {
        printProblems(read.problems, read.problems.length, where);
        throw new CliError(
          `${file} cannot be read (${read.problems.length} ${read.problems.length === 1 ? 'problem' : 'problems'}); nothing was imported.`,
        );
      }
      if (!read.records.length) throw new CliError(`${file} holds no records; nothing was imported.`);
      // Fields the format does not read are not imported, and refuse nothing: say which.
      const unread = unknownFields(
        options.from,
        read.records.map((r) => r.record),
      );
      if (unread.length) notice(`Not imported (not read from ${options.from}'s records): ${unread.join(', ')}`);
      const ctx = contextOf(command);
      const api = ctx.api();
      const chunks = chunkRecords(read.records);
      // Where this import stands: the same file, options and server resume the same run.
      // A directory's files count by name and content, in the order they are read.
      const text = files.length === 1 ? files[0].text : files.map((f) => `${f.name}\u0000${f.text}`).join('\u0000');
      const fingerprint = await importFingerprint(text, {
        url: resolveConnection().url,
        from: options.from,
        product: options.product ?? null,
        days: days ?? null,
        devices: devices ?? null,
        mail: options.mail,
        keepRoles: options.keepRoles === true,
      });
      const stateFile = statePath(fingerprint);
      if (options.restart) rmSync(stateFile, { force: true });
      const saved = options.dryRun ? null : readState(stateFile);
      const resuming =
        saved !== null && saved.position.chunks === chunks.length && saved.position.done > 0 && saved.position.done < chunks.length;
      // Resellers and verified addresses need proof that it is you, asked once for every chunk.
      const proof = options.keepRoles ? await askStepUp() : {};
      const base = { format: options.from, product: options.product, days, devices, notify: options.mail, ...proof };
      const inFile = inFileFor(options.from, chunks, devices);
      const send = (rows: ImportRecord[], dryRun: boolean) =>
        api.post('/api/admin/import', { ...base, rows, dryRun, ...(dryRun ? { inFile: inFile[chunks.indexOf(rows)] } : {}) });

      // Checked whole first when it takes several requests: the server checks one chunk at a time.
      // A resumed import was checked by the run that started it.
      if (options.dryRun || (chunks.length > 1 && !resuming)) {
        const report = options.dryRun && options.report ? options.report : null;
        if (report) writeFileSync(report, reportHeader());
        const checked = await run(chunks, (rows) => send(rows, true), 'Checking', report);
        if (checked.problems.length) {
          printProblems(checked.problems, checked.problemCount, where);
          throw new CliError(
            `${checked.problemCount} ${checked.problemCount === 1 ? 'record is' : 'records are'} not valid; nothing was imported.`,
          );
        }
        if (options.dryRun) return summarize(ctx.format, checked, read.records.length, true, where, options.report);
      }

      let position = resuming ? saved.position : startPosition(fingerprint, chunks.length);
      if (options.report) {
        // A resumed report goes on from where its last kept part ended (a part sent again is written again).
        if (resuming && saved.reportBytes !== null && sizeOf(options.report) >= saved.reportBytes)
          truncate(options.report, saved.reportBytes);
        else if (!resuming || saved.reportBytes === null) writeFileSync(options.report, reportHeader());
      }
      if (resuming) notice(`Resuming an earlier run of this import: ${position.done} of ${chunks.length} parts are in; sending the rest.`);
      writeState(stateFile, { position, reportBytes: options.report ? sizeOf(options.report) : null });

      let mail: string | null = null;
      const total = read.records.length;
      const progress = progressBar('Importing', total, 'records');
      progress.advance(chunks.slice(0, position.done).reduce((n, c) => n + c.length, 0));
      try {
        position = await sendChunks(
          chunks,
          position,
          async (rows, index) => {
            try {
              return await send(rows, false);
            } catch (err) {
              const problems =
                err instanceof ApiError && err.code === 'VALIDATION_ERROR'
                  ? (err.details?.problems as ImportProblem[] | undefined)
                  : undefined;
              if (!problems) throw err;
              progress.stop();
              const count = Number(err instanceof ApiError ? (err.details?.count ?? problems.length) : problems.length);
              printProblems(problems, count, where);
              const invalid = `${count} ${count === 1 ? 'record is' : 'records are'} not valid`;
              throw new CliError(
                index === 0
                  ? `${invalid}; nothing was imported.`
                  : `${invalid} in a part of ${file}; the parts before it are in (run the same command to resume).`,
              );
            }
          },
          (next, answer) => {
            if (options.report) appendFileSync(options.report, reportRows(answer.outcomes));
            writeState(stateFile, { position: next, reportBytes: options.report ? sizeOf(options.report) : null });
            if (answer.accountsCreated) mail = answer.signInMail;
            progress.advance(answer.counts.create + answer.counts.match + answer.counts.skip);
          },
        );
        progress.done();
      } catch (err) {
        progress.stop();
        throw err;
      }
      rmSync(stateFile, { force: true });
      const tally: Run = {
        counts: position.counts,
        accounts: position.accounts,
        outcomes: position.listed,
        story: position.story,
        mail,
        problems: [],
        problemCount: 0,
      };
      return summarize(ctx.format, tally, read.records.length, false, where, options.report);
    });
}

function truncate(file: string, bytes: number) {
  const fd = openSync(file, 'r+');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

type Run = ImportTally & { story: ImportResult['story']; mail: string | null; problems: ImportProblem[]; problemCount: number };

async function run(
  chunks: ImportRecord[][],
  send: (rows: ImportRecord[]) => Promise<ImportResult>,
  label: string,
  report: string | null,
): Promise<Run> {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const progress = progressBar(label, total, 'records');
  const result: Run = {
    ...emptyImportTally(),
    story: { devices: 0, perpetual: 0, accounts: 0 },
    mail: null,
    problems: [],
    problemCount: 0,
  };
  try {
    for (const chunk of chunks) {
      try {
        const answer = await send(chunk);
        addToTally(result, answer);
        for (const k of ['devices', 'perpetual', 'accounts'] as const) result.story[k] += answer.story[k];
        if (answer.story.accounts) result.mail = answer.signInMail;
        if (report) appendFileSync(report, reportRows(answer.outcomes));
      } catch (err) {
        const problems =
          err instanceof ApiError && err.code === 'VALIDATION_ERROR' ? (err.details?.problems as ImportProblem[] | undefined) : undefined;
        if (!problems) throw err;
        result.problems.push(...problems);
        result.problemCount += Number(err instanceof ApiError ? (err.details?.count ?? problems.length) : problems.length);
      }
      progress.advance(chunk.length);
    }
    progress.done();
  } catch (err) {
    progress.stop();
    throw err;
  }
  return result;
}

async function summarize(
  format: Parameters<typeof printRecord>[0],
  result: Run,
  records: number,
  dryRun: boolean,
  where: Where,
  report?: string,
) {
  const { counts, story } = result;
  // A dry run says why for every record it would not create (or made otherwise); a run, for the skipped ones.
  for (const o of result.outcomes) if (dryRun || o.action === 'skip') notice(`${where(o.line)}: ${o.action} ${o.type}: ${o.reason}`);
  const mail =
    result.mail === 'sent'
      ? ', each mailed how to sign in'
      : result.mail === 'not-configured'
        ? ' (no mail service: tell them how to sign in)'
        : '';
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  notice(
    dryRun
      ? `Dry run of ${records} records: ${counts.create} would be created, ${counts.match} matched, ${counts.skip} skipped; ${plural(story.devices, 'device', 'devices')} would come with the keys, ${plural(story.perpetual, 'key', 'keys')} would never expire, ${plural(story.accounts, 'new account', 'new accounts')}${story.accounts ? (result.mail === 'sent' ? ' would be mailed how to sign in' : result.mail === 'not-configured' ? ' (no mail service to tell them)' : ' (not mailed)') : ''}. Nothing was written.`
      : `Imported ${records} records: ${counts.create} created, ${counts.match} matched, ${counts.skip} skipped; ${plural(story.devices, 'device', 'devices')} with the keys, ${plural(story.perpetual, 'perpetual key', 'perpetual keys')}; ${result.accounts} new ${result.accounts === 1 ? 'account' : 'accounts'}${mail}.`,
  );
  if (report) notice(`Every record's outcome is in ${report}.`);
  await printRecord(format, [
    ['dryRun', dryRun],
    ['records', records],
    ['created', counts.create],
    ['matched', counts.match],
    ['skipped', counts.skip],
    ['accountsCreated', result.accounts],
    ['devices', story.devices],
    ['perpetual', story.perpetual],
  ]);
}
