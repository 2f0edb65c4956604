import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Provider as JotaiProvider } from 'jotai';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { createRouter } from './app/router';
import { Toaster } from './components/ui/toast';
import { ApiError } from './lib/api';
import { I18nProvider, initialLanguage, switchLanguage } from './lib/i18n';
import { appStore, onSessionCleared } from './lib/session';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused call is not retried; a network blip is, once.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 1,
      refetchOnWindowFocus: true,
    },
  },
});
onSessionCleared(() => queryClient.clear());

const router = createRouter();

// The first screen is drawn in its language: this browser's choice, else its preferred languages (a
// signed-in account's own choice follows when the profile arrives: app/Layout.tsx).
void switchLanguage(initialLanguage()).finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <JotaiProvider store={appStore}>
        <QueryClientProvider client={queryClient}>
          <I18nProvider>
            <RouterProvider router={router} />
            <Toaster />
          </I18nProvider>
        </QueryClientProvider>
      </JotaiProvider>
    </StrictMode>,
  ),
);
