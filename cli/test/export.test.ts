// `keypanel export`: the shop streamed to a file or stdout, one table as CSV, a customer's own data,
// and the refusals (a customer's shop export, CSV without a table) before or from the server.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall, createProduct, createUser, csvRecords, keypanel, ownerSession, signedInHome, signIn } from './helpers';

let home: string;
beforeAll(async () => {
  home = signedInHome(await ownerSession());
});

const outputFile = (name: string) => path.join(mkdtempSync(path.join(tmpdir(), 'keypanel-export-')), name);

describe('keypanel export', () => {
  it('writes every key of the shop as CSV, across the pages the server reads, and says how many', async () => {
    const product = await createProduct();
    const token = await ownerSession();
    const made: string[] = [];
    // More than one page of the server's (500 rows), in the generation's own per-request limit.
    for (let i = 0; i < 6; i++) {
      const res = await apiCall('POST', '/api/keys/generate', { token, body: { productId: product._id, quantity: 100 } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      made.push(...res.body.keys.map((k) => k.key));
    }
    const file = outputFile('keys.csv');
    const run = await keypanel(['export', '--table', 'keys', '--format', 'csv', '--output', file], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    const records = csvRecords(readFileSync(file, 'utf8'));
    const ofProduct = records.filter((r) => r.productId === product._id).map((r) => r.key);
    expect(ofProduct.sort()).toEqual(made.sort());
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(run.stderr).toContain(`Exported ${records.length} rows (${records.length} keys) to ${file}.`);
  });

  it('writes the whole shop as JSON lines to stdout, table after table, with no secret', async () => {
    const customer = await createUser('user');
    const run = await keypanel(['export'], { home });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { table: string; row: Record<string, unknown> });
    expect(lines[0]).toMatchObject({ table: 'export', row: { format: 'keypanel', version: 1 } });
    const users = lines.filter((l) => l.table === 'users').map((l) => l.row);
    expect(users.find((u) => u.id === customer.id)).toMatchObject({ email: customer.email });
    for (const user of users) expect(user).not.toHaveProperty('passwordHash');
    expect(run.stderr).toMatch(new RegExp(`Exported ${lines.length - 1} rows \\(\\d+ users, \\d+ products, \\d+ keys`));
  });

  it("gives a customer their own data, and refuses them the shop's", async () => {
    const customer = await createUser('user');
    const customerHome = signedInHome(await signIn(customer));
    const mine = await keypanel(['export', '--mine', '--table', 'account'], { home: customerHome });
    expect(mine.code, mine.stderr).toBe(0);
    const [header, account] = mine.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { table: string; row: { id: string } });
    expect(header.table).toBe('export');
    expect(account).toMatchObject({ table: 'account', row: { id: customer.id } });
    const shop = await keypanel(['export'], { home: customerHome });
    expect(shop.code).toBe(1);
    expect(shop.stdout).toBe('');
  });

  it('refuses a CSV of several tables, a range on a table without dates, and an unknown table, before calling', async () => {
    for (const args of [
      ['export', '--format', 'csv'],
      ['export', '--table', 'keys', '--from', '2026-01-01'],
      ['export', '--table', 'ledger', '--from', 'yesterday'],
      ['export', '--table', 'secrets'],
    ]) {
      const run = await keypanel(args, { home });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
    }
  });
});
