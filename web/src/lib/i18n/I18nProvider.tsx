// Puts the language in force around the app. The tree is keyed by the language, so a change of
// language renders every screen again, the formatting helpers' text included.
import { useAtomValue } from 'jotai';
import type { ReactNode } from 'react';
import { RawIntlProvider } from 'react-intl';
import { i18nAtom } from './runtime';

export function I18nProvider({ children }: { children: ReactNode }) {
  const { language, intl } = useAtomValue(i18nAtom);
  return (
    <RawIntlProvider key={language} value={intl}>
      {children}
    </RawIntlProvider>
  );
}
