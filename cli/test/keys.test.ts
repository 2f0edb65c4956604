// Scripted key generation and export: 250 keys in batches of the server's limit, to CSV, every row
// checked; the export as JSON, parsed; revoke and delete by the key itself.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall, createProduct, csvRecords, keypanel, ownerSession, signedInHome, json, type Schemas } from './helpers';

const KEY_HEADER = [
  'id',
  'key',
  'status',
  'keyTag',
  'product',
  'duration',
  'activations',
  'purchasedBy',
  'createdBy',
  'createdAt',
  'expiresAt',
  'revokeReason',
];

let home: string;
let product: { _id: string; keyTag: string; name: string };

beforeAll(async () => {
  home = signedInHome(await ownerSession());
  // The server's per-request limit, set through the CLI itself: 250 keys take three requests.
  const set = await keypanel(['settings', 'set', 'maxKeysPerGeneration=100', '--format', 'json'], { home });
  expect(set.code, set.stderr).toBe(0);
  expect(json<Schemas['Settings']>(set.stdout).maxKeysPerGeneration).toBe(100);
  // A comma and quotes in the name, so the CSV must quote it.
  product = await createProduct({ name: 'Suite "Pro", 2026', minDays: 7, maxDays: 90 });
});

describe('keypanel keys generate', () => {
  it('splits 250 keys into requests of 100, prints every key as CSV and reports progress on stderr', async () => {
    const result = await keypanel(
      ['keys', 'generate', '--product', product.keyTag.toLowerCase(), '--quantity', '250', '--duration', '30', '--format', 'csv'],
      { home },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Generating 250 keys for ${product.name} in 3 requests of at most 100.`);
    expect(result.stderr).toMatch(/Generating keys 250\/250 keys \(100%\)/);
    expect(result.stderr).toContain('Generated 250 license keys');
    const rows = csvRecords(result.stdout);
    expect(result.stdout.split('\r\n')[0]).toBe(KEY_HEADER.join(','));
    expect(rows).toHaveLength(250);
    expect(new Set(rows.map((r) => r.key)).size).toBe(250);
    expect(new Set(rows.map((r) => r.id)).size).toBe(250);
    for (const row of rows) {
      expect(row.key.startsWith(`${product.keyTag}-`), row.key).toBe(true);
      expect(row.id).toMatch(/^[0-9a-f]{24}$/);
      expect(row).toMatchObject({
        status: 'available',
        keyTag: product.keyTag,
        product: product.name,
        duration: '30',
        activations: '0/1',
        purchasedBy: '',
        createdBy: 'owner',
        expiresAt: '',
        revokeReason: '',
      });
      expect(Date.parse(row.createdAt)).toBeGreaterThan(Date.now() - 5 * 60_000);
    }
    // The server holds exactly these keys for the product: three batches, nothing lost or doubled.
    const listed = await apiCall('GET', `/api/admin/keys?product=${product._id}&limit=100&page=3`, { token: await ownerSession() });
    expect(listed.body.total).toBe(250);
  });

  it('refuses a product that does not exist, before generating anything', async () => {
    const result = await keypanel(['keys', 'generate', '--product', 'NOSUCHTAG', '--quantity', '5'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No product with the id or key tag "NOSUCHTAG".');
    expect(result.stdout).toBe('');
  });

  it("passes the server's refusal on: a duration outside the product's range", async () => {
    const result = await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '2', '--duration', '365'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Duration must be a whole number of days between 7 and 90 for ${product.name}`);
  });
});

describe('keypanel keys export and list', () => {
  it('exports every page as JSON that parses', async () => {
    const result = await keypanel(['keys', 'export', '--product', product._id, '--format', 'json'], { home });
    expect(result.code, result.stderr).toBe(0);
    const keys = JSON.parse(result.stdout) as Array<{ _id: string; key: string; status: string; product: { keyTag: string } }>;
    expect(keys).toHaveLength(250);
    expect(new Set(keys.map((k) => k._id)).size).toBe(250);
    expect(keys.every((k) => k.product.keyTag === product.keyTag && k.status === 'available')).toBe(true);
    expect(result.stderr).toMatch(/Fetching keys 250\/250 keys \(100%\)/);
  });

  it('exports CSV by default, to a file with --output', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'keypanel-export-')), 'keys.csv');
    const result = await keypanel(['keys', 'export', '--product', product.keyTag, '--output', file], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`Wrote 250 keys to ${file}.`);
    const rows = csvRecords(readFileSync(file, 'utf8'));
    expect(rows).toHaveLength(250);
    // The product name has a comma and quotes: quoted and read back exactly.
    expect(rows[0].product).toBe('Suite "Pro", 2026');
  });

  it('filters by status and search, and prints JSON when stdout is not a terminal', async () => {
    const all = JSON.parse((await keypanel(['keys', 'list', '--product', product.keyTag], { home })).stdout) as Array<{ key: string }>;
    const wanted = all[17].key;
    const result = await keypanel(['keys', 'list', '--search', wanted.slice(0, -1), '--status', 'available'], { home });
    expect(result.code, result.stderr).toBe(0);
    const found = JSON.parse(result.stdout) as Array<{ key: string }>;
    expect(found.map((k) => k.key)).toContain(wanted);
    expect(found.every((k) => k.key.startsWith(wanted.slice(0, -1)))).toBe(true);
    const none = await keypanel(['keys', 'list', '--product', product.keyTag, '--status', 'revoked', '--format', 'csv'], { home });
    expect(none.stdout).toBe(`${KEY_HEADER.join(',')}\r\n`);
  });

  it('prints a table with --format table, without colours when stdout is not a terminal', async () => {
    const result = await keypanel(['keys', 'list', '--product', product.keyTag, '--format', 'table'], { home });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(251);
    expect(lines[0]).toMatch(/^id\s+key\s+status\s+keyTag/);
    expect(result.stdout).not.toContain('\u001b[');
  });
});

describe('keypanel keys revoke and delete', () => {
  it('revokes a key named by the key itself, and deletes keys by key and by id', async () => {
    const generated = await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '3', '--format', 'json'], { home });
    const [a, b, c] = JSON.parse(generated.stdout) as Array<{ _id: string; key: string }>;

    const revoked = await keypanel(['keys', 'revoke', a.key.toLowerCase(), '--reason', 'Refunded, "by request"', '--format', 'json'], {
      home,
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual([
      expect.objectContaining({ _id: a._id, status: 'revoked', revokeReason: 'Refunded, "by request"' }),
    ]);
    const again = await keypanel(['keys', 'revoke', a._id, '--reason', 'twice'], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('This license key is already revoked');

    const deleted = await keypanel(['keys', 'delete', b.key, c._id, '--reason', 'Test keys', '--format', 'csv'], { home });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(csvRecords(deleted.stdout)).toEqual([
      { id: b._id, deleted: 'true' },
      { id: c._id, deleted: 'true' },
    ]);
    const gone = await keypanel(['keys', 'revoke', b.key, '--reason', 'x'], { home });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`No license key "${b.key}" among the keys you manage.`);
    expect((await apiCall('GET', `/api/admin/keys?search=${c.key}`, { token: await ownerSession() })).body.total).toBe(0);
  });

  it('needs a reason', async () => {
    const result = await keypanel(['keys', 'revoke', 'ABC-DEF', '--reason', '   '], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Please provide a reason for revoking this key');
  });
});

describe('keypanel keys regenerate', () => {
  it('replaces a key by a new value of the same product, and the old value answers KEY_REGENERATED', async () => {
    const generated = await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '1', '--format', 'json'], { home });
    const [old] = JSON.parse(generated.stdout) as Array<{ _id: string; key: string }>;
    const result = await keypanel(['keys', 'regenerate', old.key, '--reason', 'Posted on a forum', '--free-devices', '--format', 'json'], {
      home,
    });
    expect(result.code, result.stderr).toBe(0);
    const [renewed] = JSON.parse(result.stdout) as Array<{ _id: string; key: string }>;
    expect(renewed._id).toBe(old._id);
    expect(renewed.key).not.toBe(old.key);
    expect(renewed.key.startsWith(`${product.keyTag}-`)).toBe(true);
    expect(result.stderr).toContain(`Replaced ${old.key} by ${renewed.key}, with no devices.`);
    const answer = await apiCall('POST', '/api/v1/licenses/validate', {
      body: { key: old.key, deviceFingerprint: 'cli-regenerated-device' },
    });
    expect(answer.body.code).toBe('KEY_REGENERATED');
  });

  it('needs a reason before any request', async () => {
    const result = await keypanel(['keys', 'regenerate', 'ABC-DEF', '--reason', ' '], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Please say why the key is being replaced');
  });
});
