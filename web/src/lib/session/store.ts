// The session's client state: the token (mirrored from localStorage) in one jotai store, which the
// API client reads outside React. Free of the API client, so the client can import it.
import { atom, createStore } from 'jotai';
import { readStoredToken, removeStoredToken, storeToken } from './token';

export const appStore = createStore();
export const tokenAtom = atom<string | null>(readStoredToken());

export function setSessionToken(token: string): boolean {
  if (!storeToken(token)) return false;
  appStore.set(tokenAtom, token);
  return true;
}

const clearListeners = new Set<() => void>();
/** Lets the app drop cached server state when the session ends. */
export function onSessionCleared(listener: () => void) {
  clearListeners.add(listener);
  return () => clearListeners.delete(listener);
}

export function clearSession() {
  removeStoredToken();
  appStore.set(tokenAtom, null);
  clearListeners.forEach((l) => l());
}
