// The language in force, outside React too: the formatting helpers (lib/format.ts) and the API
// client's error messages read it. `switchLanguage` loads a language's catalogs, then makes them the
// ones in force; `loadArea` adds an area's messages (a screen's route waits for it); the provider
// (I18nProvider.tsx) re-renders the app in them.
import { createIntl, createIntlCache, type IntlShape } from 'react-intl';
import { atom } from 'jotai';
import { appStore } from '../session/store';
import { englishMessages, loadMessages, type Area, type MessageId } from './catalogs';
import { DEFAULT_LANGUAGE, directionOf, storeLanguage, type Language } from './languages';

declare global {
  // Message ids are English's keys: an id the English catalog lacks does not compile.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace FormatjsIntl {
    interface Message {
      ids: MessageId;
    }
  }
}

const cache = createIntlCache();

function intlFor(language: Language, messages: Record<string, string>): IntlShape {
  return createIntl({ locale: language, defaultLocale: DEFAULT_LANGUAGE, messages }, cache);
}

export type I18nState = { language: Language; intl: IntlShape };
export const i18nAtom = atom<I18nState>({ language: DEFAULT_LANGUAGE, intl: intlFor(DEFAULT_LANGUAGE, englishMessages) });

/** The language in force now. */
export const currentLanguage = () => appStore.get(i18nAtom).language;
/** The formatters and messages of the language in force, for code outside React. */
export const activeIntl = () => appStore.get(i18nAtom).intl;

/** The page's `lang` and `dir`, so screen readers, fonts and the layout follow the language. */
function applyToDocument(language: Language) {
  document.documentElement.lang = language;
  document.documentElement.dir = directionOf(language);
}

let latest: Language = DEFAULT_LANGUAGE;
/** The areas opened so far: a change of language loads them in the new one too. */
const opened = new Set<Area>();
/** The language and areas whose messages are in force. */
let inForce = `${DEFAULT_LANGUAGE}:`;

/** Loads the language's catalogs and puts them in force (a later call wins over one still loading). */
export function switchLanguage(language: Language, options: { remember?: boolean } = {}): Promise<void> {
  latest = language;
  if (options.remember) storeLanguage(language);
  // One load at a time, each with the areas opened by then, so an earlier one never undoes a later one.
  const next = queue.then(() => putInForce(language));
  queue = next.catch(() => undefined);
  return next;
}
let queue: Promise<void> = Promise.resolve();

async function putInForce(language: Language) {
  if (latest !== language) return;
  const areas = [...opened];
  const messages = await loadMessages(language, areas);
  const loaded = `${language}:${areas.join(',')}`;
  if (loaded !== inForce) {
    inForce = loaded;
    appStore.set(i18nAtom, { language, intl: intlFor(language, messages) });
  }
  applyToDocument(language);
}

/** Adds an area's messages in the language in force; a route's loader awaits it before its screen renders. */
export async function loadArea(area: Area): Promise<void> {
  if (opened.has(area) && inForce.split(':')[1].split(',').includes(area)) return;
  opened.add(area);
  try {
    await switchLanguage(latest);
  } catch (error) {
    opened.delete(area);
    throw error;
  }
}

/** A message of the language in force, for code outside React. */
export const translate = (id: MessageId, values?: Record<string, string | number>) => activeIntl().formatMessage({ id }, values);

/** Whether the catalogs have this id (the API's error codes are looked up this way). */
export const hasMessage = (id: string): id is MessageId => id in activeIntl().messages;
