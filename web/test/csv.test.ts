import { describe, expect, it } from 'vitest';
import { keysCsv } from '../src/features/admin/generation/csv';
import { type LicenseKey } from '../../worker/modules/keys/schemas/answers';

const key = (over: Partial<LicenseKey> & { productName?: string } = {}) =>
  ({
    key: 'OFF-AAAAA-BBBBB-CCCCC-DDDDD',
    product: { name: over.productName ?? 'Office', keyTag: 'OFF' },
    duration: 30,
    maxActivations: 3,
    status: 'available',
    createdAt: '2026-01-02T03:04:05.000Z',
    ...over,
  }) as unknown as LicenseKey;

describe('keysCsv', () => {
  it('writes a header and one CRLF-terminated row per key, in column order', () => {
    expect(keysCsv([key(), key({ key: 'OFF-2', duration: 7, maxActivations: 1, status: 'used' })])).toBe(
      'key,product,keyTag,durationDays,maxActivations,status,createdAt\r\n' +
        'OFF-AAAAA-BBBBB-CCCCC-DDDDD,Office,OFF,30,3,available,2026-01-02T03:04:05.000Z\r\n' +
        'OFF-2,Office,OFF,7,1,used,2026-01-02T03:04:05.000Z\r\n',
    );
  });

  it('quotes cells holding a comma, a quote or a line break, doubling the quotes (RFC 4180)', () => {
    const [, row] = keysCsv([key({ productName: 'Office, "Pro"\nEdition' })]).split('\r\n');
    expect(row).toBe('OFF-AAAAA-BBBBB-CCCCC-DDDDD,"Office, ""Pro""\nEdition",OFF,30,3,available,2026-01-02T03:04:05.000Z');
  });

  it('quotes a cell holding ; or a tab, and neutralises a formula after one (a spreadsheet may split on them)', () => {
    const [, row] = keysCsv([key({ productName: "Widget;=cmd|' /C calc'!A0" })]).split('\r\n');
    expect(row).toBe("OFF-AAAAA-BBBBB-CCCCC-DDDDD,\"Widget;'=cmd|' /C calc'!A0\",OFF,30,3,available,2026-01-02T03:04:05.000Z");
    expect(row.split(';').filter((cell) => /^[=+\-@]/.test(cell))).toEqual([]);
  });

  it('is only the header for no keys', () => {
    expect(keysCsv([])).toBe('key,product,keyTag,durationDays,maxActivations,status,createdAt\r\n');
  });
});
