// The hooks screens use: `useT` (a message by id) and `useLanguage` (the language in force, and the
// picker's choice, kept on the account when signed in and on this browser always).
import { useQueryClient } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { useCallback } from 'react';
import { useIntl } from 'react-intl';
import { api } from '../api';
import { sessionKeys } from '../session/query-keys';
import { appStore, tokenAtom } from '../session/store';
import type { MessageId } from './catalogs';
import type { Language } from './languages';
import { i18nAtom, switchLanguage } from './runtime';

export type MessageValues = Record<string, string | number | Date | null | undefined>;
export type Translate = (id: MessageId, values?: MessageValues) => string;

/** `t(id, values)`: a message of the language in force, its ICU arguments filled. */
export function useT(): Translate {
  const intl = useIntl();
  return useCallback((id, values) => intl.formatMessage({ id }, values as Record<string, string | number | Date>), [intl]);
}

export function useLanguage(): { language: Language; choose: (language: Language) => Promise<void> } {
  const { language } = useAtomValue(i18nAtom);
  const queryClient = useQueryClient();
  const choose = useCallback(
    async (next: Language) => {
      await switchLanguage(next, { remember: true });
      if (!appStore.get(tokenAtom)) return;
      const user = await api.patch('/api/users/profile', { language: next });
      queryClient.setQueryData(sessionKeys.profile, user);
    },
    [queryClient],
  );
  return { language, choose };
}
