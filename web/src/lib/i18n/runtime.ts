// The language in force, outside React too: the formatting helpers (lib/format.ts) and the API
// client's error messages read it. `switchLanguage` loads a catalog, then makes it the one in force;
// the provider (I18nProvider.tsx) re-renders the app in it.
import { createIntl, createIntlCache, type IntlShape } from 'react-intl';
import { atom } from 'jotai';
import { appStore } from '../session/store';
import { englishMessages, loadMessages, type MessageId } from './catalogs';
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
/** Loads the language's catalog and puts it in force (a later call wins over one still loading). */
export async function switchLanguage(language: Language, options: { remember?: boolean } = {}) {
  latest = language;
  if (options.remember) storeLanguage(language);
  const messages = await loadMessages(language);
  if (latest !== language) return;
  if (appStore.get(i18nAtom).language !== language) appStore.set(i18nAtom, { language, intl: intlFor(language, messages) });
  applyToDocument(language);
}

/** A message of the language in force, for code outside React. */
export const translate = (id: MessageId, values?: Record<string, string | number>) => activeIntl().formatMessage({ id }, values);

/** Whether the catalogs have this id (the API's error codes are looked up this way). */
export const hasMessage = (id: string): id is MessageId => id in englishMessages;
