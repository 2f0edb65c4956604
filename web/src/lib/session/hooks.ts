// The session in React: the signed-in user's profile, storing a sign-in's token, signing out.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { useCallback } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { api } from '../api';
import { PROFILE_REFRESH_MS } from '../constants';
import { sessionKeys } from './query-keys';
import { clearSession, setSessionToken, tokenAtom } from './store';
import { sanitizeToken } from './token';
import { translate } from '../i18n/runtime';

type User = Schemas['User'];

export function useProfile() {
  const token = useAtomValue(tokenAtom);
  return useQuery({
    queryKey: sessionKeys.profile,
    queryFn: ({ signal }) => api.get('/api/users/profile', undefined, signal),
    enabled: token !== null,
    refetchInterval: PROFILE_REFRESH_MS,
    refetchOnWindowFocus: true,
    retry: false,
    staleTime: 10_000,
  });
}

/** The signed-in user, or null. Only for screens behind the guard, where it is loaded. */
export function useCurrentUser(): User | null {
  const token = useAtomValue(tokenAtom);
  const { data } = useProfile();
  return token ? (data ?? null) : null;
}

export class SignInError extends Error {}

/** Stores the token from a sign-in answer and seeds the profile, or throws what went wrong. */
export function useCompleteSignIn() {
  const queryClient = useQueryClient();
  return useCallback(
    (answer: { token?: unknown; user?: User }) => {
      if (!answer.token) throw new SignInError(translate('auth.noToken'));
      const token = sanitizeToken(answer.token);
      if (!token || !setSessionToken(token)) throw new SignInError(translate('auth.tokenNotStored'));
      if (answer.user) queryClient.setQueryData(sessionKeys.profile, answer.user);
    },
    [queryClient],
  );
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useCallback(async () => {
    // End the session on the server, but sign out locally whatever it answers.
    await api.post('/api/auth/logout').catch(() => undefined);
    clearSession();
    queryClient.clear();
  }, [queryClient]);
}
