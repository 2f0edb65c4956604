/// <reference types="vite/client" />
// One data-access style: domain functions write statements with drizzle's query builder, or, where it
// cannot say them, as raw SQL run by the one helper in worker/platform/db (rawSql with runBatch, sqlRows
// or sqlFirst). A D1 statement prepared by hand in a module is a second way, and fails here.
import { describe, expect, it } from 'vitest';

const domainSources = import.meta.glob<string>(['../modules/**/*.ts', '!../modules/**/test/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

/** The lines of a source that prepare a D1 statement themselves (`d1.prepare(`, `.prepare(` on its own line). */
const preparing = (source: string) =>
  source
    .split('\n')
    .map((line, i) => ({ line: line.trim(), at: i + 1 }))
    .filter(({ line }) => /\.prepare\s*\(/.test(line) && !line.startsWith('//') && !line.startsWith('*'));

describe('worker/modules', () => {
  it("reads every module's files", () => {
    expect(Object.keys(domainSources).length).toBeGreaterThan(60);
    expect(Object.keys(domainSources)).toContain('../modules/licensing/licensing.ts');
    expect(Object.keys(domainSources).some((file) => file.includes('/test/'))).toBe(false);
  });

  it('prepares no D1 statement by hand: raw SQL goes through worker/platform/db (rawSql, runBatch, sqlRows, sqlFirst)', () => {
    const found = Object.entries(domainSources).flatMap(([file, source]) =>
      preparing(source).map(({ line, at }) => `${file.replace('../', 'worker/')}:${at}: ${line}`),
    );
    expect(found).toEqual([]);
  });

  it('catches a statement prepared by hand, however it is laid out', () => {
    expect(preparing("const row = await d1.prepare('SELECT 1').first();")).toHaveLength(1);
    expect(preparing('  await db.$client\n    .prepare(`SELECT 1`)\n    .all();')).toHaveLength(1);
    expect(preparing("// d1.prepare('SELECT 1') in a comment\nconst s = rawSql('SELECT 1');")).toEqual([]);
  });
});
