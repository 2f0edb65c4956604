// The sign-in calls: password, two-factor, Google, registration, password reset. What a successful
// sign-in leaves behind (the token, the profile) is the session's (lib/session).
import { api, apiRequest } from '../../lib/api';

export const loginRequest = (body: { email: string; password: string; rememberMe: boolean }) => api.post('/api/auth/login', body);
export const registerRequest = (body: { username: string; email: string; password: string; ref?: string }) =>
  api.post('/api/auth/register', body);
/** The second step of sign-in with two-factor on (extends the original client; docs/api.md). */
export const loginTwoFactorRequest = (body: { challenge: string; code?: string; recoveryToken?: string }) =>
  api.post('/api/auth/login/2fa', body);
/** Google's address for signing in; a 404 NOT_CONFIGURED says Google is not set up on this server. */
export const googleSignInUrl = (rememberMe: boolean) => api.get('/api/auth/google/url', { rememberMe: rememberMe ? 'true' : 'false' });
export const completeGoogleRequest = () => api.post('/api/auth/google/complete');
export const forgotPasswordRequest = (email: string) => api.post('/api/auth/forgot-password', { email });
export const resetPasswordRequest = (body: { token: string; password: string }) => api.post('/api/auth/reset-password', body);
export const verifyEmailRequest = (token: string) => api.post('/api/auth/verify-email', { token });
/** The one-click unsubscribe, with the link's own query (its signed token names the account and the kind). */
export const unsubscribeRequest = (query: URLSearchParams) =>
  apiRequest('POST', '/api/mail/unsubscribe', {
    query: { u: query.get('u') ?? '', k: (query.get('k') ?? '') as 'receipt', t: query.get('t') ?? '' },
  });

/** Where the two-factor step of sign-in lives, and what it is handed. */
export const TWO_FACTOR_LOGIN_PATH = '/login/2fa';
export type TwoFactorLoginState = { challenge: string; from?: { pathname: string; search?: string }; rememberMe?: boolean };
