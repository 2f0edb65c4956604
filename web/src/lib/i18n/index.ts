export { useLanguage, useT, type MessageValues, type Translate } from './hooks';
export { I18nProvider } from './I18nProvider';
export type { Area, MessageId } from './catalogs';
export {
  DEFAULT_LANGUAGE,
  directionOf,
  initialLanguage,
  isLanguage,
  LANGUAGE_NAMES,
  LANGUAGES,
  matchLanguage,
  type Language,
} from './languages';
export { activeIntl, currentLanguage, hasMessage, loadArea, switchLanguage, translate } from './runtime';
