// The message catalogs, one per language and area. The core area (the shell, the sign-in screens, the
// notices, the API's error messages) is what every page needs; English's core is bundled with the
// app, and is the fallback for a message a catalog lacks. Every other catalog is a chunk of its own,
// loaded when its language is chosen and its area opened (`account`: the signed-in screens and the
// pieces they share, loaded with the signed-in layout; `admin`: the Admin Panel, loaded with it), so
// neither the sign-in page nor the English bundle grows by the others.
import type { Language } from './languages';
import en from './messages/en.json';

/** The areas loaded on demand; `core` is always there. */
export const AREAS = ['account', 'admin'] as const;
export type Area = (typeof AREAS)[number];

type CoreMessages = typeof en;
type AccountMessages = typeof import('./messages/account/en.json');
type AdminMessages = typeof import('./messages/admin/en.json');
export type Messages = CoreMessages & AccountMessages & AdminMessages;
export type MessageId = Extract<keyof Messages, string>;
export const englishMessages: CoreMessages = en;

type Catalog = Record<string, string>;
const chunks = import.meta.glob<Catalog>(['./messages/*.json', './messages/*/*.json', '!./messages/en.json'], { import: 'default' });
const pathOf = (area: 'core' | Area, language: Language) =>
  area === 'core' ? `./messages/${language}.json` : `./messages/${area}/${language}.json`;

const parts = new Map<string, Promise<Catalog>>([[pathOf('core', 'en'), Promise.resolve(en)]]);
function part(area: 'core' | Area, language: Language): Promise<Catalog> {
  const path = pathOf(area, language);
  let loading = parts.get(path);
  if (!loading) {
    loading = chunks[path]();
    // A failed load (a dropped connection) is tried again next time rather than remembered.
    loading.catch(() => parts.delete(path));
    parts.set(path, loading);
  }
  return loading;
}

/** A language's messages for the core and the given areas, each over English's, so a message a catalog lacks still reads. */
export async function loadMessages(language: Language, areas: Iterable<Area> = []): Promise<Catalog> {
  const wanted: ('core' | Area)[] = ['core', ...areas];
  const layers = await Promise.all(
    wanted.flatMap((area) => (language === 'en' ? [part(area, 'en')] : [part(area, 'en'), part(area, language)])),
  );
  return Object.assign({}, ...layers) as Catalog;
}
