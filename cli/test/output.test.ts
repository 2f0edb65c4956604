// The output rules on their own: RFC 4180 quoting, JSON that parses, the default format, colours.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colourEnabled, csvField, resolveFormat, rowWriter, type Column } from '../lib/output';
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
    ['cr\rhere', '"cr\rhere"'],
    ['', ''],
    // Spreadsheet formulas are neutralised with a leading quote; numbers are left as they are.
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ['+1+2', "'+1+2"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', '"\'\t\'=1"'],
    ['\r=1', '"\'\r\'=1"'],
    ['a=b', 'a=b'],
    // The other separators are quoted, and a formula after one (where a reader splitting on it starts a cell) neutralised.
    ['a;b', '"a;b"'],
    ['a\tb', '"a\tb"'],
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
