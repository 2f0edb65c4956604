// `keypanel import` with the files people have (issue 45): `keypanel keys export`'s CSV imported
// back with no error, and a directory of Keygen's API pages (licences, then machines) imported as one
// file, its unread fields listed, each problem and outcome named by its file and line, the customer's
// machine then validating with no new activation.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall, createProduct, json, keypanel, ownerSession, signedInHome } from './helpers';

let home: string;
beforeAll(async () => {
  home = signedInHome(await ownerSession());
});

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'keypanel-import-formats-'));

describe('keypanel import, the files people have', () => {
  it("imports `keypanel keys export`'s own CSV back with no error: every key matched", async () => {
    const product = await createProduct();
    const token = await ownerSession();
    const made = await apiCall('POST', '/api/keys/generate', { token, body: { productId: product._id, quantity: 3 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const [first, second] = made.body.keys;
    expect(
      (await apiCall('POST', '/api/v1/licenses/activate', { body: { key: first.key, deviceFingerprint: 'cli-export-device' } })).status,
    ).toBe(200);
    expect((await apiCall('PUT', `/api/keys/${second._id}/revoke`, { token, body: { reason: 'refunded' } })).status).toBe(200);

    const csv = path.join(tempDir(), 'keys.csv');
    const exported = await keypanel(['keys', 'export', '--product', product.keyTag, '--output', csv], { home });
    expect(exported.code, exported.stderr).toBe(0);

    const dry = await keypanel(['import', csv, '--from', 'keypanel', '--dry-run', '--format', 'json'], { home });
    expect(dry.code, dry.stderr).toBe(0);
    expect(json(dry.stdout)).toMatchObject({ records: 3, created: 0, matched: 3, skipped: 0 });
    const run = await keypanel(['import', csv, '--from', 'keypanel', '--format', 'json'], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(json(run.stdout)).toMatchObject({ records: 3, created: 0, matched: 3, skipped: 0 });
    // The columns it does not import are said, not refused.
    expect(run.stderr).toContain("Not imported (not read from keypanel's records): purchasedBy, createdBy, createdAt, revokeReason");
  });

  it("imports a directory of Keygen's pages: licences and their machines, by file and line", async () => {
    const product = await createProduct();
    const dir = tempDir();
    cpSync(path.join(import.meta.dirname, '../../worker/modules/portability/test/fixtures/keygen-pages'), dir, { recursive: true });

    const dry = await keypanel(
      ['import', dir, '--from', 'keygen', '--product', product.keyTag, '--dry-run', '--no-mail', '--format', 'json'],
      { home },
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(json(dry.stdout)).toMatchObject({ records: 10, created: 8, matched: 0, skipped: 2 });
    expect(dry.stderr).toMatch(/Not imported \(not read from keygen's records\): .*scheme/);
    expect(dry.stderr).toContain(
      'machines-1.json line 42: skip other: a Keygen machine whose identifier is not 8 to 256 printable characters',
    );

    const run = await keypanel(['import', dir, '--from', 'keygen', '--product', product.keyTag, '--no-mail', '--format', 'json'], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(json(run.stdout)).toMatchObject({ records: 10, created: 8, skipped: 2 });
    const answer = await apiCall('POST', '/api/v1/licenses/validate', {
      body: { key: 'STUDIO-8C1A-44F0-9D2B-0001', deviceFingerprint: 'C0FFEE00-1234-5678-9ABC-yara-macbook' },
    });
    expect(answer.body).toMatchObject({ valid: true, code: 'VALID' });
  });
});
