// Issue 42, 4e: every number the CLI reads, from its arguments or from a file, is read by the API's
// rule for amounts (worker/platform/schemas/amounts.ts): plain digits, so `0x10`, `1e3`, padded text
// and signs are refused, never read as Number() would read them (16, 1000, 5).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { decimalNumber, plainNumber, wholeNumber } from '../lib/validate';
import { createProduct, keypanel, ownerSession, signedInHome, unique } from './helpers';

const NOT_PLAIN = ['0x10', '1e3', '1E3', ' 5', '5 ', '+5', '-5', '', '0b11', '0o7', 'Infinity', 'NaN', '1_000', '5.', '.5'];

let home: string;
beforeAll(async () => {
  home = signedInHome(await ownerSession());
});

describe('the rule itself', () => {
  it.each(NOT_PLAIN)('%j is no whole number, and no amount', (raw) => {
    expect(() => wholeNumber('--n', 0)(raw)).toThrow(InvalidArgumentError);
    expect(() => decimalNumber('--usd')(raw)).toThrow(InvalidArgumentError);
    expect(plainNumber(raw)).toBeNull();
    expect(plainNumber(raw, 15)).toBeNull();
  });

  it('reads plain digits, and amounts with at most two decimals', () => {
    expect(wholeNumber('--n', 0)('16')).toBe(16);
    expect(wholeNumber('--n', 0)('0010')).toBe(10);
    expect(decimalNumber('--usd')('12.50')).toBe(12.5);
    expect(() => decimalNumber('--usd')('12.505')).toThrow(InvalidArgumentError);
    expect(plainNumber('2.25', 2)).toBe(2.25);
  });
});

describe('through the CLI', () => {
  it.each([
    [['keys', 'generate', '--product', 'X', '--quantity', '0x10'], '--quantity must be a whole number'],
    [['keys', 'generate', '--product', 'X', '--quantity', '1e1'], '--quantity must be a whole number'],
    [['products', 'list', '--format', 'json'], null],
  ])('%j', async (args, message) => {
    const result = await keypanel(args, { home });
    if (message === null) expect(result.code, result.stderr).toBe(0);
    else {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });

  it('settings set refuses 0x10, 1e1 and padded numbers, and changes nothing', async () => {
    for (const value of ['0x10', '1e1', ' 3', '3 ', '+3']) {
      const result = await keypanel(['settings', 'set', `sessionIdleDays=${value}`], { home });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('sessionIdleDays must be a number');
    }
    const amounts = await keypanel(['settings', 'set', 'payments.quickTopUpAmounts=5,0x10'], { home });
    expect(amounts.code).toBe(2);
    expect(amounts.stderr).toContain('must be amounts separated by commas');
  });

  it('import refuses --days 1e3 and a file whose number is 0x10, 1e1 or padded', async () => {
    const product = await createProduct();
    const dir = mkdtempSync(path.join(tmpdir(), 'keypanel-numbers-'));
    const ok = path.join(dir, 'ok.json');
    writeFileSync(ok, JSON.stringify([{ key: `${product.keyTag}-${unique('n').toUpperCase()}`, email: `${unique('n')}@cli.test` }]));
    const flag = await keypanel(['import', ok, '--from', 'keygen', '--product', product.keyTag, '--days', '1e3', '--dry-run'], { home });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--days must be a whole number from 1 to');

    for (const days of ['0x10', '1e1', ' 30']) {
      const csv = path.join(dir, `keys-${days.trim()}.csv`);
      writeFileSync(csv, `key,email,days\n${product.keyTag}-${unique('n').toUpperCase()},${unique('n')}@cli.test,${days}\n`);
      const result = await keypanel(['import', csv, '--from', 'keypanel', '--product', product.keyTag, '--dry-run'], { home });
      expect(result.code, result.stderr).not.toBe(0);
      expect(result.stderr).toContain('line 2: days must be a whole number');
    }
  });
});
