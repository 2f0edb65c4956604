// `keypanel keys history`: a key's activity, a page at a time or every page, as a table, JSON or CSV.
import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall, createProduct, csvRecords, json, keypanel, ownerSession, signedInHome, type Schemas } from './helpers';

let home: string;
let key: { _id: string; key: string };

beforeAll(async () => {
  home = signedInHome(await ownerSession());
  const product = await createProduct();
  const generated = await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '1', '--format', 'json'], { home });
  expect(generated.code, generated.stderr).toBe(0);
  [key] = json<Array<{ _id: string; key: string }>>(generated.stdout);
  for (const device of ['cli-history-one']) {
    const answer = await apiCall('POST', '/api/v1/licenses/activate', { body: { key: key.key, deviceFingerprint: device } });
    expect(answer.body.code).toBe('VALID');
  }
  const renewed = await keypanel(['keys', 'regenerate', key._id, '--reason', 'Shared by mistake'], { home });
  expect(renewed.code, renewed.stderr).toBe(0);
});

describe('keypanel keys history', () => {
  it('prints every page newest first, and one page with a note of the rest', async () => {
    const all = await keypanel(['keys', 'history', key._id, '--all', '--format', 'csv'], { home });
    expect(all.code, all.stderr).toBe(0);
    const rows = csvRecords(all.stdout);
    expect(all.stdout.split('\r\n')[0]).toBe('at,kind,detail');
    expect(rows.map((r) => r.kind)).toEqual(['regenerated', 'activated', 'created']);
    expect(rows[0].detail).toBe('Shared by mistake');
    expect(rows[1].detail).toBe('cli-history-one');

    const first = await keypanel(['keys', 'history', key._id, '--limit', '2', '--format', 'json'], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(json<Schemas['KeyHistoryEvent'][]>(first.stdout).map((e) => e.kind)).toEqual(['regenerated', 'activated']);
    expect(first.stderr).toContain('Page 1 of 2 (3 lines). More with --page 2, or --all.');
    const second = await keypanel(['keys', 'history', key._id, '--limit', '2', '--page', '2', '--format', 'json'], { home });
    expect(json<Schemas['KeyHistoryEvent'][]>(second.stdout).map((e) => e.kind)).toEqual(['created']);
  });

  it('refuses --page with --all, and a key that is not there', async () => {
    const both = await keypanel(['keys', 'history', key._id, '--all', '--page', '2'], { home });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--page cannot be combined with --all');
    const missing = await keypanel(['keys', 'history', '0123456789abcdef01234567'], { home });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('License key not found');
  });
});
