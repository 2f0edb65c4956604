// lib/session: the token in storage and in the store, the profile query, sign-in and sign-out.
import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  appStore,
  clearSession,
  onSessionCleared,
  sanitizeToken,
  sessionKeys,
  setSessionToken,
  SignInError,
  tokenAtom,
  useCompleteSignIn,
  useCurrentUser,
  useLogout,
} from '../src/lib/session';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';
import { type User } from '../../worker/modules/accounts/schemas/answers';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
const user = { _id: 'u1', username: 'ada', email: 'ada@example.com', role: 'user', credits: 250, balance: 12.5 } as User;

describe('sanitizeToken', () => {
  it('accepts a JWT, strips "Bearer " and spaces, and finds one inside noise', () => {
    expect(sanitizeToken(TOKEN)).toBe(TOKEN);
    expect(sanitizeToken(`  Bearer ${TOKEN} `)).toBe(TOKEN);
    expect(sanitizeToken(`"${TOKEN}"`)).toBe(TOKEN);
  });

  it('refuses what holds no token', () => {
    expect(sanitizeToken('not a token')).toBeNull();
    expect(sanitizeToken(undefined)).toBeNull();
    expect(sanitizeToken(42)).toBeNull();
  });
});

describe('the session store', () => {
  it('keeps the token in localStorage and the store, and clearing it tells the listeners', () => {
    const cleared = vi.fn();
    const stop = onSessionCleared(cleared);
    expect(setSessionToken(TOKEN)).toBe(true);
    expect(localStorage.getItem('token')).toBe(TOKEN);
    expect(appStore.get(tokenAtom)).toBe(TOKEN);
    clearSession();
    expect(localStorage.getItem('token')).toBeNull();
    expect(appStore.get(tokenAtom)).toBeNull();
    expect(cleared).toHaveBeenCalledTimes(1);
    stop();
    clearSession();
    expect(cleared).toHaveBeenCalledTimes(1);
  });

  it('reports failure when storage refuses the token, and keeps the store signed out', () => {
    clearSession();
    const refuse = vi.spyOn(localStorage, 'setItem').mockImplementation(() => {
      throw new Error('quota');
    });
    try {
      expect(setSessionToken(TOKEN)).toBe(false);
      expect(appStore.get(tokenAtom)).toBeNull();
    } finally {
      refuse.mockRestore();
    }
  });
});

describe('useCurrentUser', () => {
  it('is null without a token and asks for nothing', () => {
    clearSession();
    const calls = mockFetch({});
    const { result } = renderHook(() => useCurrentUser(), { wrapper: wrapperFor(newQueryClient()) });
    expect(result.current).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('loads the profile with the bearer token once signed in', async () => {
    setSessionToken(TOKEN);
    const calls = mockFetch({ 'GET /api/users/profile': { body: user } });
    const { result } = renderHook(() => useCurrentUser(), { wrapper: wrapperFor(newQueryClient()) });
    await waitFor(() => expect(result.current).toEqual(user));
    expect(calls[0].headers.Authorization).toBe(`Bearer ${TOKEN}`);
    clearSession();
  });
});

describe('useCompleteSignIn', () => {
  it('stores a sign-in answer’s token and seeds the profile without a call', () => {
    clearSession();
    const queryClient = newQueryClient();
    const { result } = renderHook(() => useCompleteSignIn(), { wrapper: wrapperFor(queryClient) });
    result.current({ token: `Bearer ${TOKEN}`, user });
    expect(appStore.get(tokenAtom)).toBe(TOKEN);
    expect(queryClient.getQueryData(sessionKeys.profile)).toEqual(user);
    clearSession();
  });

  it('throws a SignInError for an answer without a usable token, and stays signed out', () => {
    clearSession();
    const { result } = renderHook(() => useCompleteSignIn(), { wrapper: wrapperFor(newQueryClient()) });
    expect(() => result.current({ user })).toThrow(new SignInError('No token received from server'));
    expect(() => result.current({ token: 'garbage', user })).toThrow(new SignInError('Failed to store valid token'));
    expect(appStore.get(tokenAtom)).toBeNull();
  });
});

describe('useLogout', () => {
  it('ends the session on the server, then forgets the token and every cached answer', async () => {
    setSessionToken(TOKEN);
    const calls = mockFetch({ 'POST /api/auth/logout': { body: { success: true } } });
    const queryClient = newQueryClient();
    queryClient.setQueryData(sessionKeys.profile, user);
    const { result } = renderHook(() => useLogout(), { wrapper: wrapperFor(queryClient) });
    await result.current();
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /api/auth/logout']);
    expect(calls[0].headers.Authorization).toBe(`Bearer ${TOKEN}`);
    expect(appStore.get(tokenAtom)).toBeNull();
    expect(localStorage.getItem('token')).toBeNull();
    expect(queryClient.getQueryData(sessionKeys.profile)).toBeUndefined();
  });

  it('signs out locally even when the server cannot be reached', async () => {
    setSessionToken(TOKEN);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('offline'))),
    );
    const { result } = renderHook(() => useLogout(), { wrapper: wrapperFor(newQueryClient()) });
    await result.current();
    expect(appStore.get(tokenAtom)).toBeNull();
  });
});
