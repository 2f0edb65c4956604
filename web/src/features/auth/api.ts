// Session state from the server: the signed-in user's profile, sign-in, registration, sign-out.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { useCallback } from 'react';
import type { GoogleCompletion, LoginResponse, RegisterResponse, User } from '@schemas/entities';
import { api } from '../../lib/api';
import { PROFILE_REFRESH_MS } from '../../lib/constants';
import { clearSession, setSessionToken, tokenAtom } from '../../lib/session';
import { sanitizeToken } from '../../lib/token';

export const profileKey = ['profile'] as const;

export function useProfile() {
  const token = useAtomValue(tokenAtom);
  return useQuery({
    queryKey: profileKey,
    queryFn: ({ signal }) => api.get<User>('/api/users/profile', undefined, signal),
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
      if (!answer.token) throw new SignInError('No token received from server');
      const token = sanitizeToken(answer.token);
      if (!token || !setSessionToken(token)) throw new SignInError('Failed to store valid token');
      if (answer.user) queryClient.setQueryData(profileKey, answer.user);
    },
    [queryClient],
  );
}

export const loginRequest = (body: { email: string; password: string; rememberMe: boolean }) => api.post<LoginResponse>('/api/auth/login', body);
export const registerRequest = (body: { username: string; email: string; password: string }) => api.post<RegisterResponse>('/api/auth/register', body);
/** The second step of sign-in with two-factor on (extends the spec's client; see the README). */
export const loginTwoFactorRequest = (body: { challenge: string; code?: string; recoveryToken?: string }) =>
  api.post<{ token: string; user: User }>('/api/auth/login/2fa', body);
/** Google's address for signing in; a 501 says Google is not configured on this server. */
export const googleSignInUrl = (rememberMe: boolean) => api.get<{ url: string }>('/api/auth/google/url', { rememberMe });
export const completeGoogleRequest = () => api.post<GoogleCompletion>('/api/auth/google/complete');
export const forgotPasswordRequest = (email: string) => api.post<{ success: boolean; message: string }>('/api/auth/forgot-password', { email });
export const resetPasswordRequest = (body: { token: string; password: string }) => api.post<{ success: boolean; message: string }>('/api/auth/reset-password', body);

/** Where the two-factor step of sign-in lives, and what it is handed. */
export const TWO_FACTOR_LOGIN_PATH = '/login/2fa';
export type TwoFactorLoginState = { challenge: string; from?: { pathname: string; search?: string }; rememberMe?: boolean };

export function useLogout() {
  const queryClient = useQueryClient();
  return useCallback(async () => {
    // End the session on the server, but sign out locally whatever it answers.
    await api.post('/api/auth/logout').catch(() => undefined);
    clearSession();
    queryClient.clear();
  }, [queryClient]);
}
