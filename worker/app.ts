// The Hono app: security headers for every response, the JSON API under /api, the SPA for the rest.
import { Hono } from 'hono';
import type { AppEnv } from './platform/context';
import { BOOKMARK_HEADER, parseBookmark, type RequestD1 } from './platform/db/session';
import { errorResponse } from './platform/errors';
import { securityHeaders } from './platform/security-headers';
import { bodyLimit } from './platform/body-limit';
import { accountsMounts } from './modules/accounts/routes';
import { auditMounts } from './modules/audit/routes';
import { billingMounts } from './modules/billing/routes';
import { catalogMounts } from './modules/catalog/routes';
import { keysMounts } from './modules/keys/routes';
import { licensingMounts } from './modules/licensing/routes';
import { metaMounts } from './modules/meta/routes';
import { portabilityMounts } from './modules/portability/routes';
import { reportingMounts } from './modules/reporting/routes';
import { resellersMounts } from './modules/resellers/routes';
import { settingsMounts } from './modules/settings/routes';
import { webhooksMounts } from './modules/webhooks/routes';
import { mailMounts } from './modules/mail/routes';
import { LICENSES_PATH, signLicensingAnswers } from './modules/licensing';

export const MAX_BODY_BYTES = 64 * 1024;

export const app = new Hono<AppEnv>();

app.use('*', securityHeaders);

// Before the body limit, so its 413 is signed too.
app.use(`${LICENSES_PATH}/*`, signLicensingAnswers);

app.use(
  '/api/*',
  // First, so that every answer (a 413 from the body limit too) carries the bookmark.
  async (c, next) => {
    c.header('Cache-Control', 'no-store');
    const bookmark = parseBookmark(c.req.header(BOOKMARK_HEADER));
    // The operation's own middleware opens its D1 session from its declaration (modules/accounts/operation.ts).
    c.set('bookmark', bookmark);
    await next();
    // The newest point this request saw (or, when it asked D1 nothing, the caller's own), errors too.
    const latest = (c.var.d1 as RequestD1 | undefined)?.getBookmark() ?? bookmark;
    // Set on the answer itself: c.header() on a finished answer copies it into a new Response first.
    if (latest) c.res.headers.set(BOOKMARK_HEADER, latest);
  },
  bodyLimit(MAX_BODY_BYTES),
);

// Each module says where its routes go (modules/<module>/routes.ts); a path is served by one module,
// though a mount path may hold several modules' routes (/api/users: accounts, keys, licensing, reporting).
const mounts = [
  ...metaMounts(app),
  ...accountsMounts,
  ...settingsMounts,
  ...catalogMounts,
  ...keysMounts,
  ...billingMounts,
  ...resellersMounts,
  ...auditMounts,
  ...reportingMounts,
  ...licensingMounts,
  ...webhooksMounts,
  ...portabilityMounts,
  ...mailMounts,
];
for (const [path, routes] of mounts) app.route(path, routes as Hono<AppEnv>);

app.all('/api/*', (c) => c.json({ message: `No API route for ${c.req.method} ${c.req.path}`, code: 'NOT_FOUND' }, 404));

// Everything else is the single-page app; the assets binding falls back to index.html.
app.all('*', async (c) => {
  const asset = await c.env.ASSETS.fetch(c.req.raw);
  // A copy, because the assets binding answers with immutable headers.
  return new Response(asset.body, asset);
});

app.onError(errorResponse);
