// Reading an import file into records, each with the line it starts on, for the CLI and the web app
// alike: CSV (a header row, then one record per row), a JSON array, a JSON:API document ({"data":
// [...]}, as Keygen's and Lemon Squeezy's APIs answer) or JSON lines (KeyPanel's export). Then the
// records go to the server a chunk at a time, each chunk under the API's body limit.
import { IMPORT_ACTIONS, IMPORT_CHUNK_BYTES, IMPORT_CHUNK_ROWS, type ImportProblem, type ImportResult } from './import';

export type ImportRecord = { line: number; record: Record<string, unknown> };
export type ImportFile = { kind: 'csv' | 'json' | 'jsonl'; records: ImportRecord[]; problems: ImportProblem[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** CSV as RFC 4180 writes it (quotes, doubled quotes, line breaks inside quotes, CRLF or LF). */
function readCsv(text: string): ImportFile {
  const rows: { line: number; cells: string[] }[] = [];
  const problems: ImportProblem[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let afterQuote = false;
  const endCell = () => {
    cells.push(cell);
    cell = '';
    afterQuote = false;
  };
  const endRow = () => {
    endCell();
    if (cells.length > 1 || cells[0] !== '') rows.push({ line: rowLine, cells });
    cells = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
        afterQuote = true;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
      continue;
    }
    if (ch === '"' && cell === '' && !afterQuote) quoted = true;
    else if (ch === ',') endCell();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else cell += ch;
  }
  if (quoted) problems.push({ line: rowLine, message: 'a quoted cell is never closed' });
  else if (cell !== '' || cells.length) endRow();
  const [header, ...body] = rows;
  if (!header) return { kind: 'csv', records: [], problems: [...problems, { line: 1, message: 'the file is empty' }] };
  const names = header.cells.map((name) => name.trim());
  const records: ImportRecord[] = [];
  for (const row of body) {
    if (row.cells.length !== names.length) {
      problems.push({ line: row.line, message: `${row.cells.length} cells where the header has ${names.length}` });
      continue;
    }
    records.push({ line: row.line, record: Object.fromEntries(names.map((name, i) => [name, row.cells[i]])) });
  }
  return { kind: 'csv', records, problems };
}

/**
 * The line each element of a JSON document's record list starts on: the top-level array's, or the
 * `data` array's of a top-level object. (JSON.parse tells no positions, so the text is scanned.)
 */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  const stack: { array: boolean; key: string | null }[] = [];
  let line = 1;
  let lastString = '';
  let pendingKey: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') line++;
    else if (ch === '"') {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\') j++;
        else s += text[j];
        j++;
      }
      lastString = s;
      i = j;
    } else if (ch === ':') pendingKey = lastString;
    else if (ch === '{' || ch === '[') {
      const parent = stack[stack.length - 1];
      const isRecordList = (list: { array: boolean; key: string | null } | undefined, depth: number) =>
        list?.array && (depth === 1 || (depth === 2 && list.key === 'data'));
      if (isRecordList(parent, stack.length)) lines.push(line);
      stack.push({ array: ch === '[', key: pendingKey });
      pendingKey = null;
    } else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',') pendingKey = null;
  }
  return lines;
}

/** A JSON:API resource as one flat record: its id and attributes, and its user's email from `included`. */
function flatten(resource: Record<string, unknown>, included: Map<string, Record<string, unknown>>): Record<string, unknown> {
  if (!isObject(resource.attributes)) return resource;
  const record: Record<string, unknown> = { id: resource.id, ...resource.attributes };
  const relationships = isObject(resource.relationships) ? resource.relationships : {};
  for (const name of ['user', 'owner']) {
    const related = relationships[name];
    const ref = isObject(related) && isObject(related.data) ? related.data : null;
    const user = ref ? included.get(`${String(ref.type)}:${String(ref.id)}`) : undefined;
    if (user && isObject(user.attributes) && typeof user.attributes.email === 'string' && record.userEmail === undefined)
      record.userEmail = user.attributes.email;
  }
  return record;
}

function readJson(text: string): ImportFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    return { kind: 'json', records: [], problems: [{ line: 1, message: `not valid JSON: ${(err as Error).message}` }] };
  }
  const list = Array.isArray(document) ? document : isObject(document) && Array.isArray(document.data) ? document.data : null;
  if (!list)
    return { kind: 'json', records: [], problems: [{ line: 1, message: 'a JSON file holds an array of records, or {"data": [...]}' }] };
  const included = new Map<string, Record<string, unknown>>();
  if (isObject(document) && Array.isArray(document.included))
    for (const item of document.included) if (isObject(item)) included.set(`${String(item.type)}:${String(item.id)}`, item);
  const lines = elementLines(text);
  const records: ImportRecord[] = [];
  const problems: ImportProblem[] = [];
  list.forEach((item, i) => {
    const line = lines[i] ?? i + 1;
    if (isObject(item)) records.push({ line, record: flatten(item, included) });
    else problems.push({ line, message: 'a record must be an object' });
  });
  return { kind: 'json', records, problems };
}

/**
 * JSON lines. A KeyPanel export names its rows' references by id (a key's buyer, a device's key, a
 * ledger row's account); the reader adds each one's natural key beside it (the account's email, the
 * key's value), so every line stands on its own whichever chunk it travels in.
 */
function readJsonLines(text: string): ImportFile {
  const records: ImportRecord[] = [];
  const problems: ImportProblem[] = [];
  text.split('\n').forEach((raw, i) => {
    const source = raw.trim();
    if (!source) return;
    try {
      const value: unknown = JSON.parse(source);
      if (isObject(value)) records.push({ line: i + 1, record: value });
      else problems.push({ line: i + 1, message: 'a line must be a JSON object' });
    } catch {
      problems.push({ line: i + 1, message: 'not valid JSON' });
    }
  });
  const emails = new Map<string, string>();
  const keys = new Map<string, string>();
  for (const { record } of records) {
    const row = isObject(record.row) ? record.row : null;
    if (!row) continue;
    if (record.table === 'users' && typeof row.id === 'string' && typeof row.email === 'string') emails.set(row.id, row.email);
    if (record.table === 'keys' && typeof row.id === 'string' && typeof row.key === 'string') keys.set(row.id, row.key);
  }
  const emailOf = (id: unknown) => (typeof id === 'string' ? emails.get(id) : undefined);
  for (const { record } of records) {
    const row = isObject(record.row) ? record.row : null;
    if (!row) continue;
    if (record.table === 'keys') {
      row.purchasedByEmail ??= emailOf(row.purchasedBy);
      row.createdByEmail ??= emailOf(row.createdBy);
      row.paidByEmail ??= emailOf(row.paidBy);
    } else if (record.table === 'devices') {
      row.key ??= typeof row.keyId === 'string' ? keys.get(row.keyId) : undefined;
    } else if (record.table === 'ledger') {
      row.email ??= emailOf(row.userId);
      row.actorEmail ??= emailOf(row.actorId);
    }
  }
  return { kind: 'jsonl', records, problems };
}

/** The file's records and the problems found reading it (a file with problems is not imported). */
export function readImportFile(text: string): ImportFile {
  const body = text.replace(/^\uFEFF/, '');
  const start = body.trimStart()[0];
  if (start === '[') return readJson(body);
  if (start === '{') {
    const firstLine = body.trimStart().split('\n', 1)[0];
    // One object per line: JSON lines. Otherwise one document (pretty-printed, or a single line).
    let oneLine = false;
    try {
      JSON.parse(firstLine);
      oneLine = body.trim().includes('\n') || !/"data"\s*:\s*\[/.test(firstLine);
    } catch {
      oneLine = false;
    }
    return oneLine ? readJsonLines(body) : readJson(body);
  }
  return readCsv(body);
}

/** The records in chunks for one request each: at most IMPORT_CHUNK_ROWS, and under IMPORT_CHUNK_BYTES of JSON. */
export function chunkRecords(records: ImportRecord[], maxBytes = IMPORT_CHUNK_BYTES): ImportRecord[][] {
  const chunks: ImportRecord[][] = [];
  let chunk: ImportRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = new TextEncoder().encode(JSON.stringify(record)).length + 1;
    if (chunk.length && (chunk.length >= IMPORT_CHUNK_ROWS || bytes + size > maxBytes)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(record);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

type Names = { products: string[]; keys: string[]; emails: string[] };
const str = (v: unknown) => (typeof v === 'string' && v ? [v] : []);

/** What a line of a KeyPanel export makes, and what it refers to, by natural key. */
function namesOf(record: Record<string, unknown>): { makes: Names; needs: Names } {
  const none = (): Names => ({ products: [], keys: [], emails: [] });
  const out = { makes: none(), needs: none() };
  const row = isObject(record.row) ? record.row : null;
  if (!row) return out;
  const lower = (v: unknown) => str(v).map((e) => e.toLowerCase());
  switch (record.table) {
    case 'users':
      out.makes.emails.push(...lower(row.email));
      break;
    case 'products':
      out.makes.products.push(...str(row.keyTag).map((t) => t.toUpperCase()));
      break;
    case 'keys':
      out.makes.keys.push(...str(row.key));
      out.makes.emails.push(...lower(row.purchasedByEmail));
      out.needs.products.push(...str(row.productKeyTag).map((t) => t.toUpperCase()));
      break;
    case 'devices':
      out.needs.keys.push(...str(row.key));
      break;
    case 'ledger':
      out.needs.emails.push(...lower(row.email));
      break;
  }
  return out;
}

/**
 * For a dry run of a file in chunks: for each chunk, what earlier chunks make that it refers to (the
 * request's `inFile`), so a later chunk's plan counts a device whose key an earlier chunk brings as
 * created, not skipped. Only a KeyPanel export refers across rows.
 */
export function earlierInFile(chunks: ImportRecord[][]): Names[] {
  const made = { products: new Set<string>(), keys: new Set<string>(), emails: new Set<string>() };
  return chunks.map((chunk) => {
    const found = { products: new Set<string>(), keys: new Set<string>(), emails: new Set<string>() };
    const names = chunk.map(({ record }) => namesOf(record));
    for (const { needs } of names)
      for (const kind of ['products', 'keys', 'emails'] as const)
        for (const name of needs[kind]) if (made[kind].has(name)) found[kind].add(name);
    for (const { makes } of names)
      for (const kind of ['products', 'keys', 'emails'] as const) for (const name of makes[kind]) made[kind].add(name);
    return { products: [...found.products], keys: [...found.keys], emails: [...found.emails] };
  });
}

/** How many of a whole import's outcomes, or of its problems, a client lists. */
export const IMPORT_LISTED = 20;

/** What a client adds up from the answers to an import's chunks. */
export type ImportTally = { counts: ImportResult['counts']; accounts: number; outcomes: ImportResult['outcomes'] };

export const emptyImportTally = (): ImportTally => ({ counts: { create: 0, match: 0, skip: 0 }, accounts: 0, outcomes: [] });

/** Adds one chunk's answer: its counts and new accounts, and its outcomes while fewer than IMPORT_LISTED are kept. */
export function addToTally(tally: ImportTally, answer: Pick<ImportResult, 'counts' | 'accountsCreated' | 'outcomes'>): void {
  for (const action of IMPORT_ACTIONS) tally.counts[action] += answer.counts[action];
  tally.accounts += answer.accountsCreated;
  // Every record has its outcome; the ones listed are those not made as asked.
  const notable = answer.outcomes.filter((o) => o.action !== 'create' || o.reason !== '');
  tally.outcomes.push(...notable.slice(0, Math.max(0, IMPORT_LISTED - tally.outcomes.length)));
}
