// Every route of the app. Screens behind sign-in load on demand, so the sign-in page stays small.
import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate, Outlet, type RouteObject } from 'react-router-dom';
import type { Schemas } from '../../../worker/platform/api-client';
import { PageSpinner } from '../components/ui/spinner';
import { LoginPage } from '../features/auth/LoginPage';
import { loadArea } from '../lib/i18n';
import { ErrorPage, NotFoundPage } from './ErrorPage';
import { RequireAuth } from './guard';

type Role = Schemas['Role'];

// The signed-in shell (sidebar, header, notices) is not part of the sign-in page's bundle either, nor
// are the signed-in screens' messages: the shell waits for them (lib/i18n's areas).
const Layout = lazy(async () => {
  const [{ Layout }] = await Promise.all([import('./Layout'), loadArea('account')]);
  return { default: Layout };
});

export const ADMIN_ROLES: Role[] = ['reseller', 'owner'];
export const OWNER_ONLY: Role[] = ['owner'];

/** A group of routes that only the given roles may open; others go to /dashboard. */
const restricted = (roles: Role[], children: RouteObject[]): RouteObject => ({
  element: (
    <RequireAuth roles={roles}>
      <Outlet />
    </RequireAuth>
  ),
  children,
});

export function createRouter() {
  return createBrowserRouter([
    { path: '/login', element: <LoginPage />, errorElement: <ErrorPage />, hydrateFallbackElement: <PageSpinner /> },
    // On demand: registration's checks bring zod, which the sign-in page does without.
    {
      path: '/register',
      lazy: async () => ({ Component: (await import('../features/auth/RegisterPage')).RegisterPage }),
      errorElement: <ErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
    },
    {
      path: '/verify-email',
      lazy: async () => ({ Component: (await import('../features/auth/VerifyEmailPage')).VerifyEmailPage }),
      errorElement: <ErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
    },
    {
      path: '/forgot-password',
      lazy: async () => ({ Component: (await import('../features/auth/ForgotPasswordPage')).ForgotPasswordPage }),
      errorElement: <ErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
    },
    {
      path: '/reset-password',
      lazy: async () => ({ Component: (await import('../features/auth/ResetPasswordPage')).ResetPasswordPage }),
      errorElement: <ErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
    },
    {
      path: '/unsubscribe',
      lazy: async () => ({ Component: (await import('../features/auth/UnsubscribePage')).UnsubscribePage }),
      errorElement: <ErrorPage />,
    },
    {
      path: '/login/2fa',
      lazy: async () => ({ Component: (await import('../features/auth/TwoFactorLoginPage')).TwoFactorLoginPage }),
      errorElement: <ErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
    },
    {
      path: '/login/google',
      lazy: async () => ({ Component: (await import('../features/auth/GoogleReturnPage')).GoogleReturnPage }),
      errorElement: <ErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
    },
    {
      path: '/',
      element: (
        <RequireAuth>
          <Suspense fallback={<PageSpinner />}>
            <Layout />
          </Suspense>
        </RequireAuth>
      ),
      errorElement: <ErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
      children: [
        { index: true, element: <Navigate to="/dashboard" replace /> },
        {
          path: 'dashboard',
          lazy: async () => ({ Component: (await import('../features/dashboard/DashboardPage')).DashboardPage }),
        },
        { path: 'products', lazy: async () => ({ Component: (await import('../features/products/ProductsPage')).ProductsPage }) },
        { path: 'my-keys', lazy: async () => ({ Component: (await import('../features/my-keys/MyKeysPage')).MyKeysPage }) },
        { path: 'purchase', lazy: async () => ({ Component: (await import('../features/purchase/PurchasePage')).PurchasePage }) },
        { path: 'exchange', lazy: async () => ({ Component: (await import('../features/exchange/ExchangePage')).ExchangePage }) },
        { path: 'add-balance', lazy: async () => ({ Component: (await import('../features/payments/AddBalancePage')).AddBalancePage }) },
        { path: 'settings/security', lazy: async () => ({ Component: (await import('../features/security/SecurityPage')).SecurityPage }) },
        restricted(ADMIN_ROLES, [
          {
            path: 'admin',
            lazy: async () => {
              const [{ AdminPage }] = await Promise.all([import('../features/admin/AdminPage'), loadArea('admin')]);
              return { Component: AdminPage };
            },
          },
        ]),
        restricted(OWNER_ONLY, [
          { path: 'manage-products', element: <Navigate to="/admin?tab=products" replace /> },
          { path: 'user-management', element: <Navigate to="/admin?tab=users" replace /> },
          {
            path: 'system-analytics',
            lazy: async () => ({ Component: (await import('../features/analytics/AnalyticsPage')).AnalyticsPage }),
          },
        ]),
        // Any other address: a not-found page in the app's own layout, not the error screen.
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ]);
}
