// The message catalogs. English is bundled with the app (the fallback for a message a catalog lacks);
// every other language is its own chunk, loaded when it is chosen, so the English bundle does not grow
// by the others.
import type { Language } from './languages';
import en from './messages/en.json';

export type Messages = typeof en;
export type MessageId = keyof Messages;
export const englishMessages: Messages = en;

const loaders: Record<Exclude<Language, 'en'>, () => Promise<{ default: Partial<Messages> }>> = {
  es: () => import('./messages/es.json'),
  'pt-BR': () => import('./messages/pt-BR.json'),
  'zh-CN': () => import('./messages/zh-CN.json'),
  ar: () => import('./messages/ar.json'),
};

const loaded = new Map<Language, Record<string, string>>([['en', en]]);

/** A language's catalog over English's, so a message it lacks still reads (in English). */
export async function loadMessages(language: Language): Promise<Record<string, string>> {
  const cached = loaded.get(language);
  if (cached) return cached;
  const own = (await loaders[language as Exclude<Language, 'en'>]()).default;
  const merged = { ...en, ...own };
  loaded.set(language, merged);
  return merged;
}

/** Already loaded: the first render can use it without waiting. */
export const loadedMessages = (language: Language) => loaded.get(language);
