// Reading an import file into records, each with the line it starts on, for the CLI and the web app
// alike: CSV (a header row, then one record per row; a table of KeyPanel's CSV export reads as its
// JSON lines), a JSON array, JSON documents ({"data": [...]} as Keygen's and Lemon Squeezy's APIs
// answer, with `included`; Polar's {"items": [...]}; Gumroad's {"sales": [...]}; several pages one
// after another, or a directory of page files) or JSON lines (KeyPanel's export). A vendor's devices
// (Keygen's machines, Lemon Squeezy's instances, Polar's activations) become records of their own,
// each given its licence's key from the licences in the file. Then the records go to the server a
// chunk at a time, each chunk under the API's body limit.
import { IMPORT_ACTIONS, IMPORT_CHUNK_BYTES, IMPORT_CHUNK_ROWS, type ImportProblem, type ImportResult } from './import';
import { exportCsvRecord, exportTableOf } from './vendors/keypanel-export';
import { fieldKey, POLAR_ACTIVATION, VENDOR_FORMATS } from './vendors';

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

/** The JSON values of a text, one after another (API pages saved into one file), each with the line it starts on; null: not such a text. */
function jsonValues(text: string): { line: number; source: string }[] | null {
  const values: { line: number; source: string }[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\n') line++;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch !== '{' && ch !== '[') return null;
    const start = i;
    const startLine = line;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '\n') line++;
      else if (c === '"') {
        for (i++; i < text.length && text[i] !== '"'; i++) {
          if (text[i] === '\\') i++;
          else if (text[i] === '\n') line++;
        }
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) break;
      }
    }
    if (depth !== 0) return null;
    i++;
    values.push({ line: startLine, source: text.slice(start, i) });
  }
  return values;
}

/** The record list's key in a top-level object: JSON:API's `data`, Polar's `items`, Gumroad's `sales`. */
const LIST_KEYS = ['data', 'items', 'sales'];

/**
 * The line each element of a JSON document's record list starts on: the top-level array's, or the
 * list's of a top-level object (`data`, `items`, `sales`). (JSON.parse tells no positions, so the text is scanned.)
 */
function elementLines(text: string, listKeys: string[] = LIST_KEYS): number[] {
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
        list?.array && ((depth === 1 && listKeys === LIST_KEYS) || (depth === 2 && list.key !== null && listKeys.includes(list.key)));
      if (isRecordList(parent, stack.length)) lines.push(line);
      stack.push({ array: ch === '[', key: pendingKey });
      pendingKey = null;
    } else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',') pendingKey = null;
  }
  return lines;
}

/** The record types of devices (Keygen's machines, Lemon Squeezy's instances, Polar's activations). */
const DEVICE_TYPES = new Set(Object.values(VENDOR_FORMATS).flatMap((v) => v.deviceTypes));

const relatedId = (relationships: Record<string, unknown>, name: string): string | undefined => {
  const related = relationships[name];
  const ref = isObject(related) && isObject(related.data) ? related.data : null;
  return ref && (typeof ref.id === 'string' || typeof ref.id === 'number') ? String(ref.id) : undefined;
};

/**
 * A JSON:API resource as one flat record: its id, type and attributes, its user's email from
 * `included`, and a device's licence id (Keygen's `license` relationship, Lemon Squeezy's `license_key_id`).
 */
function flatten(resource: Record<string, unknown>, included: Map<string, Record<string, unknown>>): Record<string, unknown> {
  if (!isObject(resource.attributes)) return resource;
  const record: Record<string, unknown> = { id: resource.id, type: resource.type, ...resource.attributes };
  const relationships = isObject(resource.relationships) ? resource.relationships : {};
  for (const name of ['user', 'owner']) {
    const id = relatedId(relationships, name);
    const user = id === undefined ? undefined : (included.get(`users:${id}`) ?? included.get(`${name}s:${id}`));
    if (user && isObject(user.attributes) && typeof user.attributes.email === 'string' && record.userEmail === undefined)
      record.userEmail = user.attributes.email;
  }
  if (DEVICE_TYPES.has(String(resource.type))) {
    const licence = relatedId(relationships, 'license') ?? relatedId(relationships, 'license-key');
    const attribute = record.license_key_id;
    record.licenseId = licence ?? (typeof attribute === 'string' || typeof attribute === 'number' ? String(attribute) : undefined);
  }
  return record;
}

type Read = { records: ImportRecord[]; problems: ImportProblem[]; licences: Map<string, string> };

/** One JSON document's records (its list's, its `included` devices'), with the keys of the licences it names by id. */
function readDocument(document: unknown, source: string, firstLine: number, read: Read) {
  const list = Array.isArray(document)
    ? document
    : isObject(document)
      ? (LIST_KEYS.map((key) => document[key]).find(Array.isArray) ?? null)
      : null;
  if (!list) {
    read.problems.push({ line: firstLine, message: 'a JSON file holds an array of records, or {"data": [...]}' });
    return;
  }
  const included = new Map<string, Record<string, unknown>>();
  if (isObject(document) && Array.isArray(document.included))
    for (const item of document.included) if (isObject(item)) included.set(`${String(item.type)}:${String(item.id)}`, item);
  // A licence's key by its id, from any licence in the file (its records or what a page includes).
  const noteLicence = (item: Record<string, unknown>) => {
    const attributes = isObject(item.attributes) ? item.attributes : item;
    if (typeof attributes.key === 'string' && (typeof item.id === 'string' || typeof item.id === 'number'))
      read.licences.set(String(item.id), attributes.key);
  };
  const lines = elementLines(source).map((line) => line + firstLine - 1);
  list.forEach((item, i) => {
    const line = lines[i] ?? firstLine;
    if (!isObject(item)) {
      read.problems.push({ line, message: 'a record must be an object' });
      return;
    }
    if (!DEVICE_TYPES.has(String(item.type))) noteLicence(item);
    const record = flatten(item, included);
    // Polar lists a key's activations in the key: each is a device record of its own.
    if (Array.isArray(record.activations) && record.activations.some((a) => isObject(a) && 'license_key_id' in a)) {
      const { activations, ...key } = record;
      read.records.push({ line, record: key });
      for (const activation of activations)
        if (isObject(activation))
          read.records.push({
            line,
            record: { ...activation, type: POLAR_ACTIVATION, licenseId: String(activation.license_key_id ?? record.id) },
          });
    } else read.records.push({ line, record });
  });
  const includedLines = elementLines(source, ['included']).map((line) => line + firstLine - 1);
  if (isObject(document) && Array.isArray(document.included))
    document.included.forEach((item, i) => {
      if (!isObject(item)) return;
      if (DEVICE_TYPES.has(String(item.type))) read.records.push({ line: includedLines[i] ?? firstLine, record: flatten(item, included) });
      else noteLicence(item);
    });
}

function readJson(text: string, read: Read): ImportFile['kind'] {
  const values = jsonValues(text) ?? [{ line: 1, source: text }];
  for (const { line, source } of values) {
    let document: unknown;
    try {
      document = JSON.parse(source);
    } catch (err) {
      read.problems.push({ line, message: `not valid JSON: ${(err as Error).message}` });
      continue;
    }
    readDocument(document, source, line, read);
  }
  return 'json';
}

/** JSON lines (KeyPanel's export: one {"table", "row"} a line). */
function readJsonLines(text: string, read: Read): ImportFile['kind'] {
  text.split('\n').forEach((raw, i) => {
    const source = raw.trim();
    if (!source) return;
    try {
      const value: unknown = JSON.parse(source);
      if (isObject(value)) read.records.push({ line: i + 1, record: value });
      else read.problems.push({ line: i + 1, message: 'a line must be a JSON object' });
    } catch {
      read.problems.push({ line: i + 1, message: 'not valid JSON' });
    }
  });
  return 'jsonl';
}

/**
 * What records refer to by id, found in the file: a device's licence key (a vendor's machine names
 * its licence by id), and in a KeyPanel export a key's buyer, a device's key and a ledger row's
 * account (the account's email, the key's value beside each id), so every record stands on its own
 * whichever chunk it travels in. Devices go after the licences (a file may list them first).
 */
function resolve(records: ImportRecord[], licences: Map<string, string>): ImportRecord[] {
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
    if (DEVICE_TYPES.has(String(record.type)) && record.licenseKey === undefined && typeof record.licenseId === 'string')
      record.licenseKey = licences.get(record.licenseId);
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
  // A licence with devices in the file is in use: it says how many (its mapping makes it `used`).
  const devicesOf = new Map<string, number>();
  for (const { record } of records)
    if (DEVICE_TYPES.has(String(record.type)) && typeof record.licenseKey === 'string') {
      const key = record.licenseKey.trim().toUpperCase();
      devicesOf.set(key, (devicesOf.get(key) ?? 0) + 1);
    }
  if (devicesOf.size)
    for (const { record } of records)
      if (!DEVICE_TYPES.has(String(record.type)) && typeof record.key === 'string' && devicesOf.has(record.key.trim().toUpperCase()))
        record.devicesInFile = devicesOf.get(record.key.trim().toUpperCase());
  const isDevice = ({ record }: ImportRecord) => DEVICE_TYPES.has(String(record.type)) || record.table === 'devices';
  return [...records.filter((r) => !isDevice(r)), ...records.filter(isDevice)];
}

function readOne(text: string, read: Read): ImportFile['kind'] {
  const body = text.replace(/^\uFEFF/, '');
  const start = body.trimStart()[0];
  if (start === '[') return readJson(body, read);
  if (start === '{') {
    // One object per line, none of them a page of records: JSON lines. Otherwise JSON documents.
    const lines = body.split('\n').filter((l) => l.trim());
    const pages = lines.some((l) => /^\s*\{\s*$/.test(l)) || /"(data|items|sales)"\s*:\s*\[/.test(lines[0]);
    return pages ? readJson(body, read) : readJsonLines(body, read);
  }
  const csv = readCsv(body);
  // A table of KeyPanel's CSV export reads as the lines of its JSON lines export.
  const table = csv.records.length ? exportTableOf(Object.keys(csv.records[0].record)) : null;
  read.records.push(...(table ? csv.records.map(({ line, record }) => ({ line, record: exportCsvRecord(table, record) })) : csv.records));
  read.problems.push(...csv.problems);
  return 'csv';
}

/** Where a file of a directory starts among the lines the records are numbered by. */
export type ImportSource = { name: string; firstLine: number };

/**
 * Several files read as one (a directory of API pages, or of an export's CSV tables): their records
 * numbered on, file after file, so each line names one place (`sourceOf` tells which file and line).
 */
export function readImportFiles(files: { name: string; text: string }[]): ImportFile & { sources: ImportSource[] } {
  const all: Read = { records: [], problems: [], licences: new Map() };
  const sources: ImportSource[] = [];
  let kind: ImportFile['kind'] = 'csv';
  let offset = 0;
  files.forEach(({ name, text }, i) => {
    const read: Read = { records: [], problems: [], licences: all.licences };
    const fileKind = readOne(text, read);
    if (i === 0) kind = fileKind;
    sources.push({ name, firstLine: offset + 1 });
    all.records.push(...read.records.map((r) => ({ ...r, line: r.line + offset })));
    all.problems.push(...read.problems.map((p) => ({ ...p, line: p.line + offset })));
    offset += text.split('\n').length;
  });
  if (files.length && !all.records.length && !all.problems.length) all.problems.push({ line: 1, message: 'the file is empty' });
  return { kind, records: resolve(all.records, all.licences), problems: all.problems, sources };
}

/** Which file of a directory, and which line of it, a line of readImportFiles' numbering is. */
export function sourceOf(sources: ImportSource[], line: number): { name: string; line: number } {
  const source = [...sources].reverse().find((s) => s.firstLine <= line) ?? { name: '', firstLine: 1 };
  return { name: source.name, line: line - source.firstLine + 1 };
}

/** The file's records and the problems found reading it (a file with problems is not imported). */
export function readImportFile(text: string): ImportFile {
  const { kind, records, problems } = readImportFiles([{ name: '', text }]);
  return { kind, records, problems };
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
  if (!row) {
    // A vendor's licence makes its key; its device needs it.
    const upper = (v: unknown) => str(typeof v === 'string' ? v.trim() : v).map((k) => k.toUpperCase());
    if (DEVICE_TYPES.has(String(record.type))) out.needs.keys.push(...upper(record.licenseKey));
    else {
      const field = Object.keys(record).find((name) => ['key', 'licensekey'].includes(fieldKey(name)));
      if (field) out.makes.keys.push(...upper(record[field]));
    }
    return out;
  }
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
