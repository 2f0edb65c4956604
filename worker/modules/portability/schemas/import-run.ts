// Running an import from a client, the CLI and the web app alike (issue 45): what a dry run of each
// chunk is told of the chunks before it, the position a resumed import starts from, and the report a
// seller keeps (every record's outcome as CSV). The server makes a chunk sent again write nothing
// twice (every row goes in by its natural key), so a client that lost its place at worst sends again
// the one chunk whose answer it did not keep.
import { csvRow } from '../../../platform/schemas/csv';
import { IMPORT_ACTIONS, type ImportFormat, type ImportOutcome, type ImportRequest, type ImportResult } from './import';
import { mapRecord } from './vendors';
import { earlierInFile, type ImportRecord } from './import-file';

export type InFile = NonNullable<ImportRequest['inFile']>;

/**
 * For each chunk's dry run: what earlier chunks make that it refers to (earlierInFile), the device
 * slots of earlier chunks' keys its devices go on, and what earlier chunks' ledger rows moved for
 * the accounts its ledger rows name. A real run needs none of it: the earlier chunks are written.
 * `devices` is the request's device limit for keys whose rows give none.
 */
export function inFileFor(format: ImportFormat, chunks: ImportRecord[][], devices?: number): InFile[] {
  const names = earlierInFile(chunks);
  const slots = new Map<string, { max: number | null; taken: number; fingerprints: Set<string> }>();
  const balances = new Map<string, { credits: number; cents: number }>();
  // The accounts earlier chunks make: a user row's, or a key's customer's (in any format).
  const accounts = new Set<string>();
  return chunks.map((chunk, i) => {
    const rows = chunk.flatMap(({ record }) => {
      const mapped = mapRecord(format, record);
      return mapped.ok ? [mapped.row] : [];
    });
    const keys = new Set<string>();
    const emails = new Set<string>();
    const known = new Set(names[i].emails);
    for (const row of rows) {
      const email = row.type === 'key' || row.type === 'user' || row.type === 'ledger' ? row.email : null;
      if (email && accounts.has(email)) known.add(email);
      if (row.type === 'device' && row.key && slots.has(row.key)) keys.add(row.key);
      if (row.type === 'ledger' && row.email && balances.has(row.email)) emails.add(row.email);
    }
    const told: InFile = {
      ...names[i],
      emails: [...known],
      slots: [...keys].map((key) => ({ key, max: slots.get(key)!.max, taken: slots.get(key)!.taken })),
      balances: [...emails].map((email) => ({ email, ...balances.get(email)! })),
    };
    for (const row of rows) {
      if ((row.type === 'key' && !row.skip) || row.type === 'user') if (row.email) accounts.add(row.email);
      if (row.type === 'key' && !row.skip && !slots.has(row.key))
        slots.set(row.key, {
          max: row.devices ?? devices ?? null,
          taken: row.fingerprints.length,
          fingerprints: new Set(row.fingerprints),
        });
      if (row.type === 'device' && row.key) {
        const s = slots.get(row.key);
        if (s && !s.fingerprints.has(row.fingerprint)) {
          s.fingerprints.add(row.fingerprint);
          s.taken++;
        }
      }
      if (row.type === 'ledger' && row.email) {
        const b = balances.get(row.email) ?? { credits: 0, cents: 0 };
        balances.set(row.email, { credits: b.credits + row.creditsDelta, cents: b.cents + row.usdCentsDelta });
      }
    }
    return told;
  });
}

/** A file's fingerprint (SHA-256, hex) with the options it is imported with: where a resumed import picks up. */
export async function importFingerprint(text: string, options: Record<string, unknown>): Promise<string> {
  const data = new TextEncoder().encode(`${JSON.stringify(options)}\n${text}`);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Where an import stands, as a client keeps it between runs (the CLI in a file, the web app in
 * localStorage): which file with which options, how many chunks are in, and what they added up to.
 */
export type ImportPosition = {
  fingerprint: string;
  chunks: number;
  /** The chunks done, in order: the next one to send is this one. */
  done: number;
  counts: ImportResult['counts'];
  story: ImportResult['story'];
  accounts: number;
  /** The first problems or notable outcomes, for the summary (the report has every one). */
  listed: ImportOutcome[];
};

export const startPosition = (fingerprint: string, chunks: number): ImportPosition => ({
  fingerprint,
  chunks,
  done: 0,
  counts: { create: 0, match: 0, skip: 0 },
  story: { devices: 0, perpetual: 0, accounts: 0 },
  accounts: 0,
  listed: [],
});

/** How many outcomes a position keeps for the summary. */
export const POSITION_LISTED = 20;

/** An outcome worth a line of the summary: anything but a record made as asked. */
export const isNotable = (o: ImportOutcome) => o.action !== 'create' || o.reason !== '';

/** The position after one more chunk's answer. */
export function advancePosition(position: ImportPosition, answer: ImportResult): ImportPosition {
  const counts = { ...position.counts };
  for (const action of IMPORT_ACTIONS) counts[action] += answer.counts[action];
  const story = {
    devices: position.story.devices + answer.story.devices,
    perpetual: position.story.perpetual + answer.story.perpetual,
    accounts: position.story.accounts + answer.story.accounts,
  };
  const listed = [...position.listed, ...answer.outcomes.filter(isNotable)].slice(0, POSITION_LISTED);
  return { ...position, done: position.done + 1, counts, story, accounts: position.accounts + answer.accountsCreated, listed };
}

/** The report's columns: every record's outcome, with what came with it. */
export const REPORT_COLUMNS = ['line', 'type', 'subject', 'action', 'reason', 'devices', 'onKey', 'perpetual', 'newAccount'] as const;

export const reportHeader = () => csvRow([...REPORT_COLUMNS]);

/** One chunk's outcomes as rows of the report (CSV, RFC 4180, formulas neutralised). */
export const reportRows = (outcomes: ImportOutcome[]) =>
  outcomes
    .map((o) =>
      csvRow([o.line, o.type, o.subject ?? '', o.action, o.reason, o.devices ?? '', o.onKey ?? '', o.perpetual ?? '', o.newAccount ?? '']),
    )
    .join('');

/**
 * Sends the chunks from the position on, one at a time, in order: each answer moves the position,
 * and `kept` keeps it (and the chunk's report rows) before the next chunk goes. A failure leaves the
 * position at the last chunk kept: the same call with it later sends the rest (the chunk that failed
 * first, which the server makes idempotent).
 */
export async function sendChunks(
  chunks: ImportRecord[][],
  from: ImportPosition,
  send: (rows: ImportRecord[], index: number) => Promise<ImportResult>,
  kept: (position: ImportPosition, answer: ImportResult) => void | Promise<void>,
): Promise<ImportPosition> {
  let position = from;
  for (let i = from.done; i < chunks.length; i++) {
    const answer = await send(chunks[i], i);
    position = advancePosition(position, answer);
    await kept(position, answer);
  }
  return position;
}
