// docs/architecture.md draws the house: every module the Worker has is in its table, with what it
// owns, and the table names no module that is gone. A module is a folder with its routes or its
// public surface.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '../..');
const modules = readdirSync(path.join(ROOT, 'worker/modules'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
/** The first column of the modules table (the one headed `| module`): `| \`licensing\` | ... |`. */
const table = doc.slice(doc.indexOf('| module')).split('\n\n')[0];
const documented = [...table.matchAll(/^\| `([a-z-]+)` +\|/gm)].map((m) => m[1]).sort();

describe('docs/architecture.md', () => {
  it('lists exactly the modules the Worker has', () => {
    expect(modules.length).toBeGreaterThan(5);
    expect(documented).toEqual(modules);
  });

  it('says where the changes a newcomer asks about first go', () => {
    const rowOf = (module: string) => table.split('\n').find((line) => line.startsWith(`| \`${module}\``)) ?? '';
    expect(rowOf('licensing')).toContain('device activation');
    expect(rowOf('resellers')).toContain('reseller pricing');
    expect(rowOf('billing')).toContain('the Stripe webhook');
  });

  it('finds every module mounted or offering something', () => {
    for (const module of modules) {
      const dir = path.join(ROOT, 'worker/modules', module);
      expect(existsSync(path.join(dir, 'routes.ts')) || existsSync(path.join(dir, 'index.ts')), module).toBe(true);
    }
  });
});
