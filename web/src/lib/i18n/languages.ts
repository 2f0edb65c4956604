// The languages the web app speaks (vocabulary's LANGUAGES), how each is named in itself, which way
// it is written, and which one a browser's preferences pick.
import { LANGUAGES, type Language } from '../../../../worker/platform/vocabulary';

export { LANGUAGES, type Language };
export const DEFAULT_LANGUAGE: Language = 'en';

/** Each language's name as its readers write it: the picker shows these, untranslated. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  'zh-CN': '简体中文',
  ar: 'العربية',
};

const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ar']);
export const directionOf = (language: Language): 'rtl' | 'ltr' => (RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr');

export const isLanguage = (value: unknown): value is Language =>
  typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);

/**
 * The first of the browser's preferred languages the app speaks: an exact tag first ('pt-BR'), then
 * the same language in another region ('pt-PT' reads pt-BR, 'zh-TW' reads zh-CN, 'es-MX' reads es).
 */
export function matchLanguage(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const exact = LANGUAGES.find((l) => l.toLowerCase() === tag.toLowerCase());
    if (exact) return exact;
    const base = tag.split('-')[0].toLowerCase();
    const sameBase = LANGUAGES.find((l) => l.split('-')[0].toLowerCase() === base);
    if (sameBase) return sameBase;
  }
  return DEFAULT_LANGUAGE;
}

const STORAGE_KEY = 'language';

/** The language chosen on this browser (the picker's last choice), if any. */
export function storedLanguage(): Language | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isLanguage(value) ? value : null;
  } catch {
    return null;
  }
}

export function storeLanguage(language: Language) {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Private mode without storage: the choice lasts for this page only.
  }
}

/** Before sign-in: this browser's last choice, else its preferred languages. */
export const initialLanguage = (): Language => storedLanguage() ?? matchLanguage(navigator.languages ?? [navigator.language]);
