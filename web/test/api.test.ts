// lib/api.ts, the one API client, with the session and the D1 bookmark it carries.
import { describe, expect, it, vi } from 'vitest';
import { api, ApiError, errorMessage } from '../src/lib/api';
import { appStore, clearSession, setSessionToken, tokenAtom } from '../src/lib/session';
import { mockFetch } from './helpers';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
const BOOKMARK = '00000001-00000002-00004000-0123456789abcdef0123456789abcdef';

describe('the API client', () => {
  it('sends the session’s token, and the bookmark of the last answer with the next call', async () => {
    setSessionToken(TOKEN);
    const calls = mockFetch({
      'POST /api/keys/purchase': { status: 201, body: { success: true }, headers: { 'x-d1-bookmark': BOOKMARK } },
      'GET /api/users/my-keys': { body: { keys: [] } },
    });
    await api.post('/api/keys/purchase', { productId: 'p1', duration: 30 });
    await api.get('/api/users/my-keys', { page: 1, search: '' });
    expect(calls[0].headers.Authorization).toBe(`Bearer ${TOKEN}`);
    expect(calls[0].body).toEqual({ productId: 'p1', duration: 30 });
    expect(calls[1].headers['x-d1-bookmark']).toBe(BOOKMARK);
    expect(calls[1].url.search).toBe('?page=1');
    clearSession();
  });

  it('throws the server’s message, code and details', async () => {
    mockFetch({
      'POST /api/credits/exchange': { status: 409, body: { message: 'The rate changed', code: 'RATE_CHANGED', details: { rate: 12 } } },
    });
    const err = await api.post('/api/credits/exchange', { usdAmount: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ message: 'The rate changed', status: 409, code: 'RATE_CHANGED', details: { rate: 12 } });
    expect(errorMessage(err, 'fallback')).toBe('The rate changed');
    expect(errorMessage(new Error('boom'), 'fallback')).toBe('fallback');
  });

  it('ends the session on a 401, but not for wrong credentials at sign-in', async () => {
    vi.useFakeTimers();
    try {
      setSessionToken(TOKEN);
      mockFetch({
        'POST /api/auth/login': { status: 401, body: { message: 'Invalid credentials' } },
        'GET /api/users/profile': { status: 401, body: { message: 'Session expired' } },
      });
      await expect(api.post('/api/auth/login', { email: 'someone@example.com', password: 'wrong' })).rejects.toThrow('Invalid credentials');
      expect(appStore.get(tokenAtom)).toBe(TOKEN);
      await expect(api.get('/api/users/profile')).rejects.toThrow('Session expired');
      expect(appStore.get(tokenAtom)).toBeNull();
      expect(localStorage.getItem('token')).toBeNull();
    } finally {
      // The redirect to /login is scheduled; it is not this test's subject.
      vi.clearAllTimers();
      vi.useRealTimers();
    }
  });

  it('says the server could not be reached when fetch fails', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(api.get('/api/products')).rejects.toMatchObject({ status: 0, code: 'NETWORK' });
  });
});
