// The Hono app: security headers for every response, the JSON API under /api, the SPA for the rest.
import { Hono } from 'hono';
import { contextStorage } from 'hono/context-storage';
import type { AppEnv } from './platform/context';
import { BOOKMARK_HEADER, parseBookmark, type RequestD1 } from './platform/db/session';
import { errorResponse } from './platform/errors';
import { API_DOCS_PATH, securityHeaders } from './platform/security-headers';
import { bodyLimit } from './platform/body-limit';
import { LICENSES_PATH, signLicensingAnswers } from './modules/licensing/signature';
import { adminRoutes } from './modules/keys/routes/admin';
import { adminAnalyticsRoutes } from './modules/reporting/routes';
import { adminKeysRoutes } from './modules/keys/routes/admin-keys';
import { adminPaymentsRoutes } from './modules/billing/routes/admin-payments';
import { adminUsersRoutes } from './modules/accounts/routes/admin-users';
import { authRoutes } from './modules/accounts/routes/auth';
import { authGoogleRoutes } from './modules/accounts/routes/auth-google';
import { creditsRoutes } from './modules/billing/routes/credits';
import { docsRoutes } from './modules/meta/docs';
import { healthRoutes } from './modules/meta/health';
import { keysRoutes } from './modules/keys/routes/keys';
import { licensesRoutes } from './modules/licensing/routes';
import { openapiRoutes } from './modules/meta/openapi';
import { paymentsRoutes } from './modules/billing/routes/payments';
import { paymentsStripeRoutes } from './modules/billing/routes/payments-stripe';
import { productsRoutes } from './modules/catalog/routes';
import { settingsRoutes } from './modules/settings/routes';
import { usersRoutes } from './modules/accounts/routes/users';
import { webhooksRoutes } from './modules/webhooks/routes';

export const MAX_BODY_BYTES = 64 * 1024;

export const app = new Hono<AppEnv>();

app.use('*', securityHeaders);

// Before the body limit, so its 413 is signed too.
app.use(`${LICENSES_PATH}/*`, signLicensingAnswers);

app.use(
  '/api/*',
  // Lets a committed batch's webhook events reach the queue after the response (dispatchCommitted).
  contextStorage(),
  // First, so that every answer (a 413 from the body limit too) carries the bookmark.
  async (c, next) => {
    c.header('Cache-Control', 'no-store');
    const bookmark = parseBookmark(c.req.header(BOOKMARK_HEADER));
    // The operation's own middleware opens its D1 session from its declaration (middleware/operation.ts).
    c.set('bookmark', bookmark);
    await next();
    // The newest point this request saw (or, when it asked D1 nothing, the caller's own), errors too.
    const latest = (c.var.d1 as RequestD1 | undefined)?.getBookmark() ?? bookmark;
    // Set on the answer itself: c.header() on a finished answer copies it into a new Response first.
    if (latest) c.res.headers.set(BOOKMARK_HEADER, latest);
  },
  bodyLimit(MAX_BODY_BYTES),
);

// One line per mount, each served by routes/<the path after /api, dashed>.ts.
export const routes = app
  .route('/api/health', healthRoutes)
  .route('/api/openapi.json', openapiRoutes(app))
  .route('/api/auth', authRoutes)
  .route('/api/auth/google', authGoogleRoutes)
  .route('/api/users', usersRoutes)
  .route('/api/settings', settingsRoutes)
  .route('/api/products', productsRoutes)
  .route('/api/keys', keysRoutes)
  .route('/api/credits', creditsRoutes)
  // The webhook first: it has no session, and answers before the payments routes' sign-in check.
  .route('/api/payments/stripe', paymentsStripeRoutes)
  .route('/api/payments', paymentsRoutes)
  .route('/api/admin/users', adminUsersRoutes)
  .route('/api/admin/keys', adminKeysRoutes)
  .route('/api/admin/analytics', adminAnalyticsRoutes)
  .route('/api/admin/payments', adminPaymentsRoutes)
  .route('/api/admin', adminRoutes)
  .route(LICENSES_PATH, licensesRoutes)
  .route('/api/webhooks', webhooksRoutes)
  .route(API_DOCS_PATH, docsRoutes);

app.all('/api/*', (c) => c.json({ message: `No API route for ${c.req.method} ${c.req.path}`, code: 'NOT_FOUND' }, 404));

// Everything else is the single-page app; the assets binding falls back to index.html.
app.all('*', async (c) => {
  const asset = await c.env.ASSETS.fetch(c.req.raw);
  // A copy, because the assets binding answers with immutable headers.
  return new Response(asset.body, asset);
});

app.onError(errorResponse);
