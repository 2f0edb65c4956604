// The Hono app: security headers for every response, the JSON API under /api, the SPA for the rest.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { contextStorage } from 'hono/context-storage';
import type { AppEnv } from './context';
import { requestDb } from './db/client';
import { BOOKMARK_HEADER, openRequestD1, parseBookmark } from './db/session';
import { AppError, errorResponse } from './lib/errors';
import { API_DOCS_PATH, securityHeaders } from './lib/security-headers';
import { maintenanceMode } from './middleware/maintenance';
import { adminKeysRoutes } from './routes/admin-keys';
import { adminPaymentsRoutes } from './routes/admin-payments';
import { adminPurchaseRoutes } from './routes/admin-purchase';
import { adminStatsRoutes } from './routes/admin-stats';
import { adminUsersRoutes } from './routes/admin-users';
import { analyticsRoutes } from './routes/analytics';
import { apiTokensRoutes } from './routes/api-tokens';
import { auth } from './routes/auth';
import { creditsRoutes } from './routes/credits';
import { docsRoutes } from './routes/docs';
import { keyManagementRoutes } from './routes/key-management';
import { keysRoutes } from './routes/keys';
import { LICENSES_PATH, licenses, signLicensingAnswers } from './routes/licenses';
import { paymentsRoutes, stripeWebhookRoutes } from './routes/payments';
import { productsRoutes } from './routes/products';
import { securityRoutes } from './routes/security';
import { settingsRoutes } from './routes/settings';
import { usersRoutes } from './routes/users';
import { webhooksRoutes } from './routes/webhooks';

export const MAX_BODY_BYTES = 64 * 1024;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Calls that are POSTs for their body but only read: served by a replica like a GET. */
const READ_ONLY_CALLS = new Set(['/api/v1/licenses/validate']);

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
    const d1 = openRequestD1(c.env.DB, { write: !READS.has(c.req.method) && !READ_ONLY_CALLS.has(c.req.path), bookmark });
    c.set('d1', d1);
    c.set('db', requestDb(d1));
    await next();
    // The newest point this request saw (or, when it asked D1 nothing, the caller's own), errors too.
    const latest = d1.getBookmark() ?? bookmark;
    if (latest) c.header(BOOKMARK_HEADER, latest);
  },
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new AppError('PAYLOAD_TOO_LARGE', `Request body must be at most ${MAX_BODY_BYTES / 1024} KB`);
    },
  }),
);

// Before every route: while maintenance mode is on, only owners (and licensed apps) are served.
app.use('/api/*', maintenanceMode);

app.get('/api/health', (c) => c.json({ ok: true }, 200));

// One line per resource, so each mount reads (and merges) on its own.
const routes = app
  .route('/api/auth', auth)
  .route('/api/users', usersRoutes)
  .route('/api/users', securityRoutes)
  .route('/api/users', apiTokensRoutes)
  .route('/api/settings', settingsRoutes)
  .route('/api/products', productsRoutes)
  .route('/api/keys', keysRoutes)
  .route('/api/keys', keyManagementRoutes)
  .route('/api/credits', creditsRoutes)
  // The webhook first: it has no session, and answers before the payments routes' sign-in check.
  .route('/api/payments/stripe', stripeWebhookRoutes)
  .route('/api/payments', paymentsRoutes)
  .route('/api/admin/users', adminUsersRoutes)
  .route('/api/admin/keys', adminKeysRoutes)
  .route('/api/admin/analytics', analyticsRoutes)
  .route('/api/admin/payments', adminPaymentsRoutes)
  .route('/api/admin', adminStatsRoutes)
  .route('/api/admin', adminPurchaseRoutes)
  .route(LICENSES_PATH, licenses)
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

export type AppType = typeof routes;
