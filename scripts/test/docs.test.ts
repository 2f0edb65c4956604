// The repository's prose holds together: every relative link in README.md and docs/ leads to a file
// (and heading) that exists, and nothing cites documents that are not in the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATE_CACHES } from '../../worker/platform/isolate-cache';
import { ROOT } from '../local';

const MARKDOWN = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown outside fenced code blocks. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

describe('links in README.md and docs/', () => {
  for (const file of MARKDOWN) {
    it(`every relative link in ${file} resolves`, () => {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      const broken: string[] = [];
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
        const [linked, anchor] = target.split('#');
        const resolved = linked ? path.join(path.dirname(path.join(ROOT, file)), linked) : path.join(ROOT, file);
        if (!existsSync(resolved)) broken.push(`${target}: no such file`);
        else if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${target}: no such heading`);
      }
      expect(broken).toEqual([]);
    });
  }
});

// Built from parts so that this file does not cite them itself.
const OUTSIDE_DOCS = new RegExp(`\\b${'SP'}EC\\b|${'ARCHI'}TECTURE\\.md|${'STY'}LE\\.md`);
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', '.wrangler', 'profiles', 'screenshots']);
const TEXT_FILE = /\.(ts|tsx|js|mjs|cjs|json|md|toml|sql|css|html|yml|yaml|sh)$|^\.[\w.-]+$|^run$/;

function* textFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* textFiles(path.join(dir, entry.name));
    } else if (TEXT_FILE.test(entry.name) && entry.name !== 'package-lock.json') {
      yield path.join(dir, entry.name);
    }
  }
}

it('cites no document outside the repository: a comment points into docs/ or a module, or says the rule', () => {
  const citations: string[] = [];
  for (const file of textFiles(ROOT)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (OUTSIDE_DOCS.test(line)) citations.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(citations).toEqual([]);
});

it('docs/architecture.md lists every per-isolate cache of the registry', () => {
  const text = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  expect(Object.keys(ISOLATE_CACHES).filter((name) => !text.includes(`| \`${name}\``))).toEqual([]);
});
