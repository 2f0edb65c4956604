// The message catalogs (web/src/lib/i18n/messages) against the code: every message the code names
// is in every language's catalog, no catalog has a message the code never names, each translation
// parses as ICU and takes the same arguments as the English, and a message is in the area of the
// screens that name it (the sign-in page never waits for the signed-in screens' catalogs).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../worker/platform/vocabulary';
import { ROOT } from '../local';

const SRC = path.join(ROOT, 'web', 'src');
const MESSAGES = path.join(SRC, 'lib', 'i18n', 'messages');

/** The catalogs' areas (lib/i18n/catalogs.ts): `core` is messages/<language>.json, the rest messages/<area>/<language>.json. */
const AREAS = ['core', 'account', 'admin'] as const;
type Area = (typeof AREAS)[number];
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
const areaCatalog = (area: Area, language: string) =>
  read(area === 'core' ? path.join(MESSAGES, `${language}.json`) : path.join(MESSAGES, area, `${language}.json`));
const catalog = (language: string) => Object.assign({}, ...AREAS.map((area) => areaCatalog(area, language))) as Record<string, string>;
const english = catalog('en');
const areaOf = new Map(AREAS.flatMap((area) => Object.keys(areaCatalog(area, 'en')).map((id) => [id, area] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return full === MESSAGES ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}
const files = sourceFiles(SRC).map((file) => ({ file: path.relative(SRC, file), text: readFileSync(file, 'utf8') }));
const code = files.map(({ text }) => text);

/**
 * The areas a file's messages may come from: the Admin Panel's screens load `admin` as well; the
 * screens and pieces that show before sign-in (or on any page) have only `core`.
 */
function areasFor(file: string): Area[] {
  if (file.startsWith('features/admin/')) return ['core', 'account', 'admin'];
  const beforeSignIn = [
    'features/auth/',
    'features/site-status/',
    'components/ui/',
    'lib/',
    'app/ErrorPage',
    'app/router',
    'app/guard',
    'main.tsx',
  ];
  return beforeSignIn.some((prefix) => file.startsWith(prefix)) ? ['core'] : ['core', 'account'];
}

/** Every quoted string in the code that looks like a message id ('myKeys.title'). */
const literals = new Set(code.flatMap((text) => [...text.matchAll(/['"`]([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_]+)+)['"`]/g)].map((m) => m[1])));

/** The ids the code names in a call: t('…'), translate('…'), <FormattedMessage id="…">, { id: '…' }. */
const named = new Set(
  code.flatMap((text) =>
    [...text.matchAll(/\b(?:t|translate)\(\s*['"`]([^'"`$]+)['"`]|\bid[=:]\s*\{?\s*['"]([a-z][A-Za-z0-9]*\.[^'"]+)['"]/g)].map(
      (m) => m[1] ?? m[2],
    ),
  ),
);

/**
 * Families of ids the code builds from a value, and the values: the API's error codes
 * (`error.<CODE>`, lib/api.ts's errorMessage) as worker/platform/errors.ts lists them.
 */
const errorsSource = readFileSync(path.join(ROOT, 'worker', 'platform', 'errors.ts'), 'utf8');
const ERROR_CODES = [
  ...errorsSource.slice(errorsSource.indexOf('codeToStatus'), errorsSource.indexOf('} as const')).matchAll(/^\s+([A-Z_]+): \d{3},/gm),
].map((m) => m[1]);
const BUILT: Record<string, string[]> = { 'error.': ERROR_CODES };
const isBuilt = (id: string) =>
  Object.entries(BUILT).some(([prefix, values]) => id.startsWith(prefix) && values.includes(id.slice(prefix.length)));

/** The arguments a message takes, with their kind ({count, plural}: count/plural). */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time)
      into.add(`${el.value}/${el.type}`);
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      into.add(`${el.value}/${el.type}`);
      for (const option of Object.values(el.options)) argumentsOf(option.value, into);
    }
    if (el.type === TYPE.tag) {
      into.add(`<${el.value}>`);
      argumentsOf(el.children, into);
    }
  }
  return into;
}

describe('message catalogs', () => {
  it('the API has error codes to translate (the test reads them)', () => {
    expect(ERROR_CODES).toContain('VALIDATION_ERROR');
    expect(ERROR_CODES.length).toBeGreaterThan(20);
  });

  it('every message the code names is in the English catalog', () => {
    expect([...named].filter((id) => !(id in english)).sort()).toEqual([]);
  });

  it('no message is in two areas', () => {
    const seen = AREAS.flatMap((area) => Object.keys(areaCatalog(area, 'en')));
    expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual([]);
  });

  it("every message a file names is in an area loaded with the file's screen", () => {
    const misplaced = files.flatMap(({ file, text }) =>
      [...text.matchAll(/['"`]([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_]+)+)['"`]/g)]
        .map((m) => m[1])
        .filter((id) => areaOf.has(id) && !areasFor(file).includes(areaOf.get(id)!))
        .map((id) => `${file}: ${id} (${areaOf.get(id)})`),
    );
    expect(misplaced).toEqual([]);
  });

  it('every message of the English catalog is used by the code', () => {
    expect(Object.keys(english).filter((id) => !literals.has(id) && !isBuilt(id))).toEqual([]);
  });

  it('every error code of the API has its message', () => {
    expect(ERROR_CODES.filter((c) => !(`error.${c}` in english))).toEqual([]);
  });

  const others = LANGUAGES.filter((l) => l !== 'en').flatMap((language) => AREAS.map((area) => [language, area] as const));
  it.each(others)('%s has exactly the English messages of area %s, each with the same arguments', (language, area) => {
    const own = areaCatalog(area, language);
    const englishArea = areaCatalog(area, 'en');
    expect(
      Object.keys(englishArea).filter((id) => !(id in own)),
      'missing',
    ).toEqual([]);
    expect(
      Object.keys(own).filter((id) => !(id in englishArea)),
      'not in English',
    ).toEqual([]);
    for (const [id, text] of Object.entries(own)) {
      expect(text.trim(), `${language} ${id} is empty`).not.toBe('');
      const expected = [...argumentsOf(parse(english[id]))].sort();
      expect([...argumentsOf(parse(text))].sort(), `${language} ${id}`).toEqual(expected);
    }
  });

  it('every English message parses as ICU', () => {
    for (const [id, text] of Object.entries(english)) expect(() => parse(text), id).not.toThrow();
  });
});
