// `keypanel import`: a file of 2,000 keys (the 100,000-key import in CI size) through the real CLI in
// several requests, with progress and a summary; a dry run that writes nothing; a repeat that matches
// everything; a malformed file refused whole, by line, before any chunk is written; and an import
// killed mid-way, run again: it resumes, and every key and device is there once.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiCall, baseURL, createProduct, csvRecords, json, keypanel, ownerSession, signedInHome, unique } from './helpers';

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
  return (await stats(productId))?.totalGenerated;
}
/** The product's counters: keys made and devices activated (every insert counts on them). */
async function stats(productId: string) {
  const res = await apiCall('GET', '/api/products', { token: await ownerSession() });
  return res.body.find((p) => p._id === productId)?.stats;
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
    expect(json(dry.stdout)).toEqual({
      dryRun: true,
      records: 2000,
      created: 2000,
      matched: 0,
      skipped: 0,
      accountsCreated: 0,
      devices: 0,
      perpetual: 0,
    });
    expect(dry.stderr).toContain(
      'Dry run of 2000 records: 2000 would be created, 0 matched, 0 skipped; 0 devices would come with the keys, 0 keys would never expire, 50 new accounts would be mailed how to sign in. Nothing was written.',
    );
    expect(await generated(product._id)).toBe(0);

    const run = await keypanel(['import', csv, '--from', 'keypanel', '--product', tag, '--format', 'json'], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(json(run.stdout)).toEqual({
      dryRun: false,
      records: 2000,
      created: 2000,
      matched: 0,
      skipped: 0,
      accountsCreated: 50,
      devices: 0,
      perpetual: 0,
    });
    // Progress lines on stderr (not a terminal: plain lines), then the summary.
    expect(run.stderr).toMatch(/Checking.* 2000\/2000 records \(100%\)/);
    expect(run.stderr).toMatch(/Importing.* 2000\/2000 records \(100%\)/);
    expect(run.stderr).toContain(
      'Imported 2000 records: 2000 created, 0 matched, 0 skipped; 0 devices with the keys, 0 perpetual keys; 50 new accounts, each mailed how to sign in.',
    );
    expect(await generated(product._id)).toBe(2000);

    const again = await keypanel(['import', csv, '--from', 'keypanel', '--product', tag, '--format', 'json'], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again.stdout)).toMatchObject({ dryRun: false, records: 2000, created: 0, matched: 2000, skipped: 0, accountsCreated: 0 });
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

describe('an import cut off', () => {
  it('killed mid-way, the same command resumes it: every key and device once, none missing, and the report has every line once', async () => {
    const product = await createProduct();
    const tag = product.keyTag;
    const total = 6000;
    const rows = Array.from(
      { length: total },
      (_, i) => `${tag}-${String(i).padStart(6, '0')}-RESUMED,2031-01-01T00:00:00Z,machine-${String(i).padStart(6, '0')}-of-the-customer`,
    );
    const csv = file('big.csv', ['key,expiresAt,devices', ...rows].join('\n'));
    const report = path.join(path.dirname(csv), 'report.csv');
    const args = ['import', csv, '--from', 'keypanel', '--product', tag, '--report', report, '--format', 'json'];

    // The first run, killed once some parts of the file are in and before all are.
    const child = spawn(process.execPath, [inject('cliPath'), ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, KEYPANEL_URL: baseURL() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Killed once the CLI has kept its position after a part of the file (its state file says so).
    const imports = path.join(home, 'keypanel', 'imports');
    const kept = () => {
      if (!existsSync(imports)) return 0;
      return Math.max(
        0,
        ...readdirSync(imports)
          .filter((f) => f.endsWith('.json'))
          .map((f) => {
            try {
              return (JSON.parse(readFileSync(path.join(imports, f), 'utf8')) as { position: { done: number } }).position.done;
            } catch {
              return 0;
            }
          }),
      );
    };
    for (let i = 0; i < 6000 && kept() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGKILL');
    await exited;
    const cut = (await generated(product._id)) ?? 0;
    expect(cut, stderr).toBeGreaterThan(0);
    expect(cut, 'the first run was to be cut off before the end').toBeLessThan(total);
    const states = readdirSync(imports).filter((f) => f.endsWith('.json'));
    expect(states.length).toBeGreaterThan(0);

    // The same command again: it resumes, and finishes.
    const resumed = await keypanel(args, { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/Resuming an earlier run of this import: \d+ of \d+ parts are in; sending the rest\./);
    const summary = json<{ records: number; created: number; matched: number; skipped: number; devices: number }>(resumed.stdout);
    expect(summary.records).toBe(total);
    expect(summary.created + summary.matched).toBe(total);
    expect(summary.skipped).toBe(0);
    // Every key once and every machine once: the product's counters count each insert.
    expect(await stats(product._id)).toMatchObject({ totalGenerated: total, totalActivations: total });
    // The report: every line of the file once, each with its key.
    const lines = csvRecords(readFileSync(report, 'utf8'));
    expect(lines).toHaveLength(total);
    expect(new Set(lines.map((l) => l.line)).size).toBe(total);
    expect(lines.every((l) => l.type === 'key' && l.subject.endsWith('-RESUMED'))).toBe(true);
    // Done: the state is gone, and a new run starts over (and matches everything).
    expect(readdirSync(imports).filter((f) => f.endsWith('.json'))).toHaveLength(states.length - 1);
    const again = await keypanel(args, { home });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again.stdout)).toMatchObject({ created: 0, matched: total });
    expect(existsSync(report)).toBe(true);
  }, 180_000);
});
