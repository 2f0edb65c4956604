// The output rules on their own: RFC 4180 quoting, JSON that parses, the default format, colours.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colourEnabled, csvField, resolveFormat, rowWriter, visibleCsvStream, type Column } from '../lib/output';
import { parseCsv } from './helpers';

async function written(format: 'csv' | 'json' | 'table', rows: Array<{ a: string | null; n: number }>) {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d) => (text += d));
  const columns: Column<{ a: string | null; n: number }>[] = [
    { header: 'a', value: (r) => r.a, width: 6 },
    { header: 'n', value: (r) => r.n, width: 3, align: 'right' },
  ];
  const out = rowWriter(format, columns, { stream });
  for (const row of rows) await out.write(row);
  await out.end();
  return text;
}

describe('CSV', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    // A control character but a line break is written as its escape, as a table writes it (issue 42).
    ['cr\rhere', 'cr\\x0dhere'],
    ['', ''],
    // Spreadsheet formulas are neutralised with a leading quote; numbers are left as they are.
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ['+1+2', "'+1+2"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', '\\x09=1'],
    ['\r=1', '\\x0d=1'],
    ['a=b', 'a=b'],
    // The other separators are quoted, and a formula after one (where a reader splitting on it starts a cell) neutralised.
    ['a;b', '"a;b"'],
    ['a\tb', 'a\\x09b'],
    ['\u001b[41mRED\u001b[0m', '\\x1b[41mRED\\x1b[0m'],
    ['report\u202Efdp.exe', 'report\\u202efdp.exe'],
    ['bell\u0007 nul\u0000 del\u007f c1\u009b', 'bell\\x07 nul\\x00 del\\x7f c1\\x9b'],
    ['=cmd\u001b', "'=cmd\\x1b"],
    ["Widget;=cmd|' /C calc'!A0", "\"Widget;'=cmd|' /C calc'!A0\""],
    ['x;+1;-2;@3', "\"x;'+1;'-2;'@3\""],
    ['two\n=lines', '"two\n\'=lines"'],
    [-5, '-5'],
  ])('%j is written as %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('has a header row, CRLF line ends, and reads back exactly', async () => {
    const rows = [
      { a: 'x, "y"\nz', n: 1 },
      { a: null, n: 2 },
    ];
    const text = await written('csv', rows);
    expect(text.startsWith('a,n\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([
      ['a', 'n'],
      ['x, "y"\nz', '1'],
      ['', '2'],
    ]);
    expect(await written('csv', [])).toBe('a,n\r\n');
  });
});

describe('JSON', () => {
  it('is one array, even when empty', async () => {
    expect(
      JSON.parse(
        await written('json', [
          { a: 'q"', n: 1 },
          { a: null, n: 2 },
        ]),
      ),
    ).toEqual([
      { a: 'q"', n: 1 },
      { a: null, n: 2 },
    ]);
    expect(JSON.parse(await written('json', []))).toEqual([]);
  });
});

describe('table', () => {
  it('pads columns and cuts long values', async () => {
    expect(
      await written('table', [
        { a: 'abcdefghij', n: 7 },
        { a: null, n: 42 },
      ]),
    ).toBe('a         n\nabcde…    7\n—        42\n');
  });
});

describe('defaults', () => {
  it('prints a table to a terminal and JSON to a pipe, unless told', () => {
    expect(resolveFormat(undefined, { isTTY: true })).toBe('table');
    expect(resolveFormat(undefined, { isTTY: false })).toBe('json');
    expect(resolveFormat(undefined, { isTTY: false }, 'csv')).toBe('csv');
    expect(resolveFormat('csv', { isTTY: true })).toBe('csv');
    expect(() => resolveFormat('xml', {})).toThrow('--format must be one of table, csv, json (got "xml")');
  });

  it('colours only a terminal, and never with NO_COLOR', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    // no-color.org: an empty NO_COLOR does not count.
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
  });
});

describe("the server's CSV, as the CLI prints it (an export)", () => {
  it('escapes every control and bidi character but its line breaks, across chunk boundaries', () => {
    const server = 'name,note\r\n"a\r\nb",\u001b[41mRED\r\nrlo\u202e,bell\u0007\r\n';
    const whole = visibleCsvStream();
    const expected = 'name,note\r\n"a\r\nb",\\x1b[41mRED\r\nrlo\\u202e,bell\\x07\r\n';
    expect(whole.write(server) + whole.flush()).toBe(expected);
    // The same text cut at every place, a CR LF split between two chunks among them.
    for (let cut = 0; cut <= server.length; cut++) {
      const stream = visibleCsvStream();
      expect(stream.write(server.slice(0, cut)) + stream.write(server.slice(cut)) + stream.flush(), `cut at ${cut}`).toBe(expected);
    }
    const lone = visibleCsvStream();
    expect(lone.write('over\r') + lone.write('write') + lone.flush()).toBe('over\\x0dwrite');
  });
});
