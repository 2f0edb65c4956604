// The sign-in calls: password, two-factor, Google, registration, password reset. What a successful
// sign-in leaves behind (the token, the profile) is the session's (lib/session).
import type { GoogleCompletion, LoginResponse, RegisterResponse, User } from '@schemas/entities';
import { api } from '../../lib/api';

export const loginRequest = (body: { email: string; password: string; rememberMe: boolean }) =>
  api.post<LoginResponse>('/api/auth/login', body);
export const registerRequest = (body: { username: string; email: string; password: string }) =>
  api.post<RegisterResponse>('/api/auth/register', body);
/** The second step of sign-in with two-factor on (extends the original client; docs/api.md). */
export const loginTwoFactorRequest = (body: { challenge: string; code?: string; recoveryToken?: string }) =>
  api.post<{ token: string; user: User }>('/api/auth/login/2fa', body);
/** Google's address for signing in; a 501 says Google is not configured on this server. */
export const googleSignInUrl = (rememberMe: boolean) => api.get<{ url: string }>('/api/auth/google/url', { rememberMe });
export const completeGoogleRequest = () => api.post<GoogleCompletion>('/api/auth/google/complete');
export const forgotPasswordRequest = (email: string) =>
  api.post<{ success: boolean; message: string }>('/api/auth/forgot-password', { email });
export const resetPasswordRequest = (body: { token: string; password: string }) =>
  api.post<{ success: boolean; message: string }>('/api/auth/reset-password', body);

/** Where the two-factor step of sign-in lives, and what it is handed. */
export const TWO_FACTOR_LOGIN_PATH = '/login/2fa';
export type TwoFactorLoginState = { challenge: string; from?: { pathname: string; search?: string }; rememberMe?: boolean };
