// The session, in one place: the token (store.ts, token.ts), the current user and signing in and out
// (hooks.ts), and the profile's query key. The API client imports store.ts directly: hooks.ts uses
// the API client, and importing this index from it would make a cycle.
export { appStore, clearSession, onSessionCleared, setSessionToken, tokenAtom } from './store';
export { sanitizeToken } from './token';
export { SignInError, useCompleteSignIn, useCurrentUser, useLogout, useProfile } from './hooks';
export { sessionKeys } from './query-keys';
