// A fresh query client per test (with the app's jotai store, as main.tsx provides it), and a fetch
// that answers from a table of routes.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Provider as JotaiProvider } from 'jotai';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { I18nProvider } from '../src/lib/i18n';
import { appStore } from '../src/lib/session';

export function newQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
}

export function wrapperFor(queryClient: QueryClient) {
  return ({ children }: { children: ReactNode }) => (
    <JotaiProvider store={appStore}>
      <QueryClientProvider client={queryClient}>
        <I18nProvider>{children}</I18nProvider>
      </QueryClientProvider>
    </JotaiProvider>
  );
}

type Answer = { status?: number; body?: unknown; headers?: Record<string, string> };
export type Call = { method: string; url: URL; headers: Record<string, string>; body: unknown };

/** Stubs fetch: `routes['GET /api/x']` answers a call; anything else is a 404. Returns the calls made. */
export function mockFetch(routes: Record<string, Answer | ((call: Call) => Answer)>) {
  const calls: Call[] = [];
  const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const call: Call = {
      method: init?.method ?? 'GET',
      url,
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const route = routes[`${call.method} ${url.pathname}`];
    const answer =
      typeof route === 'function' ? route(call) : (route ?? { status: 404, body: { message: 'Not found', code: 'NOT_FOUND' } });
    const response = new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status ?? 200,
      headers: { 'Content-Type': 'application/json', ...answer.headers },
    });
    return Promise.resolve(response);
  });
  vi.stubGlobal('fetch', fetchMock);
  return calls;
}
