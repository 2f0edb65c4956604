// `keypanel import`: a file of 2,000 keys (the 100,000-key import in CI size) through the real CLI in
// several requests, with progress and a summary; a dry run that writes nothing; a repeat that matches
// everything; a malformed file refused whole, by line, before any chunk is written.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall, createProduct, json, keypanel, ownerSession, signedInHome, unique } from './helpers';

let home: string;
beforeAll(async () => {
  home = signedInHome(await ownerSession());
});

const file = (name: string, text: string) => {
  const target = path.join(mkdtempSync(path.join(tmpdir(), 'keypanel-import-')), name);
  writeFileSync(target, text);
  return target;
};

/** Keys made of the product, as its counter says (every key's insert counts on it). */
async function generated(productId: string) {
  const res = await apiCall('GET', '/api/products', { token: await ownerSession() });
  return res.body.find((p) => p._id === productId)?.stats.totalGenerated;
}

describe('keypanel import', () => {
  it('imports 2,000 keys in chunks with progress and a summary; a dry run writes nothing; a repeat matches them all', async () => {
    const product = await createProduct();
    const tag = product.keyTag;
    const customers = Array.from({ length: 50 }, () => `${unique('imp')}@cli.test`);
    const rows = Array.from(
      { length: 2000 },
      (_, i) => `${tag}-${String(i).padStart(6, '0')}-IMPORTED,${customers[i % 50]},2031-01-01T00:00:00Z`,
    );
    const csv = file('keys.csv', ['key,email,expiresAt', ...rows].join('\n'));

    const dry = await keypanel(['import', csv, '--from', 'keypanel', '--product', tag, '--dry-run', '--format', 'json'], { home });
    expect(dry.code, dry.stderr).toBe(0);
    expect(json(dry.stdout)).toEqual({ dryRun: true, records: 2000, created: 2000, matched: 0, skipped: 0, accountsCreated: 0 });
    expect(dry.stderr).toContain('Dry run of 2000 records: 2000 would be created, 0 matched, 0 skipped. Nothing was written.');
    expect(await generated(product._id)).toBe(0);

    const run = await keypanel(['import', csv, '--from', 'keypanel', '--product', tag, '--format', 'json'], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(json(run.stdout)).toEqual({ dryRun: false, records: 2000, created: 2000, matched: 0, skipped: 0, accountsCreated: 50 });
    // Progress lines on stderr (not a terminal: plain lines), then the summary.
    expect(run.stderr).toMatch(/Checking.* 2000\/2000 records \(100%\)/);
    expect(run.stderr).toMatch(/Importing.* 2000\/2000 records \(100%\)/);
    expect(run.stderr).toContain('Imported 2000 records: 2000 created, 0 matched, 0 skipped; 50 new accounts, each mailed how to sign in.');
    expect(await generated(product._id)).toBe(2000);

    const again = await keypanel(['import', csv, '--from', 'keypanel', '--product', tag, '--format', 'json'], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again.stdout)).toEqual({ dryRun: false, records: 2000, created: 0, matched: 2000, skipped: 0, accountsCreated: 0 });
    expect(await generated(product._id)).toBe(2000);
  });

  it('refuses a malformed file whole, by line, even when its bad record is in a later chunk', async () => {
    const product = await createProduct();
    const tag = product.keyTag;
    const rows = Array.from({ length: 900 }, (_, i) => `${tag}-${String(i).padStart(6, '0')}-MALFORMED,`);
    rows[850] = `${tag}-BAD,not-an-email`;
    const csv = file('bad.csv', ['key,email', ...rows].join('\n'));
    const run = await keypanel(['import', csv, '--from', 'keypanel', '--product', tag], { home });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('line 852: email: Please enter a valid email address');
    expect(run.stderr).toContain('1 record is not valid; nothing was imported.');
    expect(await generated(product._id)).toBe(0);

    const broken = file('broken.csv', 'key,email\n"A-1,x\n');
    const unread = await keypanel(['import', broken, '--from', 'keypanel', '--product', tag], { home });
    expect(unread.code).toBe(1);
    expect(unread.stderr).toContain('line 2: a quoted cell is never closed');

    const usage = await keypanel(['import', csv, '--from', 'shopify'], { home });
    expect(usage.code).toBe(2);
  });
});
