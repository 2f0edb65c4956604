// Issue 35, points 1 and 2, through the real CLI. Text from the server never reaches the reader's
// terminal raw: a product holding every control and bidi character of the attacker's report
// (served by a stand-in in front of the real server, since the API now refuses such names) is
// printed with visible escapes in tables and messages, and exactly in JSON. And a CSV export read by
// a spreadsheet that splits on `;` (or tabs) finds no cell it would run as a formula.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, baseURL, createProduct, keypanel, ownerSession, signedInHome, type Schemas } from './helpers';

/** Every character the report used: ESC (colours), OSC 8 (a hidden link) with BEL, NUL, CR, DEL, a C1 CSI, U+202E and its kin. */
const HOSTILE_NAME =
  '\u001b[41mRED\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 bell\u0007 nul\u0000 cr\r del\u007f c1\u009b31m rlo\u202Efdp.exe lri\u2066x\u2069 ls\u2028';
const HOSTILE_FEATURE = 'tab\there\nnew line \u202E';
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

let standIn: Server;
let standInURL: string;
let product: Schemas['Product'];

beforeAll(async () => {
  product = await createProduct();
  // Passes everything to the real server, but serves the product list with the hostile text in it.
  standIn = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const upstream = await fetch(new URL(req.url ?? '/', baseURL()), {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      let text = await upstream.text();
      if (req.method === 'GET' && req.url?.startsWith('/api/products') && upstream.ok) {
        const list = JSON.parse(text) as Schemas['Product'][];
        text = JSON.stringify(
          list.map((p) =>
            p._id === product._id ? { ...p, name: HOSTILE_NAME, description: HOSTILE_NAME, features: [HOSTILE_FEATURE] } : p,
          ),
        );
      }
      if (req.url === '/api/users/profile') {
        text = JSON.stringify({ message: `Nope ${HOSTILE_NAME}`, code: 'FORBIDDEN' });
        res.writeHead(403, { 'content-type': 'application/json' });
        return res.end(text);
      }
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    })();
  });
  standIn.listen(0, '127.0.0.1');
  await once(standIn, 'listening');
  standInURL = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
});

afterAll(() => standIn?.close());

const throughStandIn = async (args: string[]) =>
  keypanel(args, { env: { KEYPANEL_URL: standInURL, KEYPANEL_TOKEN: await ownerSession() } });

describe('text from the server on the reader’s terminal', () => {
  it('products list as a table holds no control or bidi character raw, only escapes', async () => {
    const result = await throughStandIn(['products', 'list', '--format', 'table']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(RAW);
    expect(result.stderr).not.toMatch(RAW);
    const line = result.stdout.split('\n').find((l) => l.includes(product.keyTag));
    expect(line).toBeDefined();
    // The name column is cut to its width; what shows of it is escaped.
    expect(line).toContain('\\x1b[41mRED');
  });

  it('a table of one record, and the messages on stderr, escape them too', async () => {
    const update = await throughStandIn(['products', 'update', product.keyTag, '--per-day', '2', '--format', 'table']);
    // The update is refused by the real server (the hostile name is sent back): its message is shown safely.
    expect(update.stdout).not.toMatch(RAW);
    expect(update.stderr).not.toMatch(RAW);
    expect(update.code).toBe(2);
    expect(update.stderr).toContain('\\x1b');
  });

  it("products list as CSV escapes them as the table does, keeping only its rows' line breaks (issue 42)", async () => {
    const result = await throughStandIn(['products', 'list', '--format', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.replace(/\r\n/g, '\n')).not.toMatch(RAW);
    expect(result.stdout).toContain('\\x1b[41mRED');
    expect(result.stdout).toContain('\\u202efdp.exe');
  });

  it('the JSON output stays exact', async () => {
    const result = await throughStandIn(['products', 'list', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const list = JSON.parse(result.stdout) as Schemas['Product'][];
    const mine = list.find((p) => p._id === product._id)!;
    expect(mine.name).toBe(HOSTILE_NAME);
    expect(mine.features).toEqual([HOSTILE_FEATURE]);
    // JSON.stringify writes the C0 controls as \u escapes, so none of those reach the terminal either.
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('an error message from the server is escaped', async () => {
    const result = await keypanel(['whoami'], { env: { KEYPANEL_URL: standInURL, KEYPANEL_TOKEN: await ownerSession() } });
    expect(result.stdout).not.toMatch(RAW);
    expect(result.stderr).not.toMatch(RAW);
  });
});

/** Cells as a spreadsheet reads them with `separator`: a quote opens a quoted cell only at a cell's start. */
function spreadsheetCells(text: string, separator: string): string[] {
  const cells: string[] = [];
  let i = 0;
  while (i <= text.length) {
    let cell = '';
    if (text[i] === '"') {
      i++;
      for (; i < text.length; i++) {
        if (text[i] === '"' && text[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (text[i] === '"') break;
        else cell += text[i];
      }
      i++;
      // Anything after the closing quote, up to the separator, is kept as it is.
      while (i < text.length && text[i] !== separator && text[i] !== '\r' && text[i] !== '\n') cell += text[i++];
    } else {
      while (i < text.length && text[i] !== separator && text[i] !== '\r' && text[i] !== '\n') cell += text[i++];
    }
    cells.push(cell);
    if (text[i] === '\r' && text[i + 1] === '\n') i++;
    i++;
  }
  return cells;
}

describe('CSV read with another separator', () => {
  // Tabs and line breaks are refused in product names now; the CSV unit tests cover them (output.test.ts).
  const NAMES = ["Widget;=cmd|' /C calc'!A0", 'Semi;-2+3;@SUM(1)', '=HYPERLINK("x");+1', 'Quote "a";=1'];

  it('keys export: no cell starts a formula when the file is split on ; or tabs', async () => {
    const token = await ownerSession();
    const home = signedInHome(token);
    for (const name of NAMES) {
      const p = await createProduct({ name });
      const generated = await apiCall('POST', '/api/keys/generate', { token, body: { productId: p._id, quantity: 2 } });
      expect(generated.status).toBe(201);
      const result = await keypanel(['keys', 'export', '--product', p._id, '--format', 'csv'], { home });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(p.keyTag);
      for (const separator of [';', '\t', ',']) {
        const cells = spreadsheetCells(result.stdout, separator);
        expect(
          cells.filter((c) => /^[=+\-@]/.test(c)),
          `${JSON.stringify(name)} split on ${JSON.stringify(separator)}`,
        ).toEqual([]);
      }
    }
  });
});
