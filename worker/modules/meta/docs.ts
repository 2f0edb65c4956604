// GET /api/docs: the interactive API reference (Scalar) over the OpenAPI document, whose "try it"
// calls this same origin. Everything it loads comes from here too (platform/api-reference-bundle.ts).
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import type { AppEnv } from '../../platform/context';
import { SCALAR_BUNDLE_PATH } from '../../platform/api-reference-bundle';
import { apiDocsContentSecurityPolicy } from '../../platform/security-headers';
import { routeOperations } from '../accounts';

const reference = Scalar<AppEnv>({
  url: '/api/openapi.json',
  cdn: SCALAR_BUNDLE_PATH,
  pageTitle: 'KeyPanel API reference',
  // Nothing from Scalar's servers: no web fonts, no telemetry, no hosted client, agent or sharing tools.
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  agent: { disabled: true },
  showDeveloperTools: 'never',
});

export const docsRoutes = new Hono<AppEnv>().get(
  '/',
  routeOperations({ tag: 'Meta', access: 'public' })(
    'getApiReference',
    'This reference, interactive (an HTML page)',
    { 200: { description: 'The API reference page (Scalar), with "try it" against this origin', mediaType: 'text/html' } },
    { servedInMaintenance: true },
  ),
  async (c, next) => {
    const page = (await reference(c, next)) as Response;
    const html = await page.text();
    // Computed from the page as served, so the allowed inline script is always exactly this one.
    c.header('Content-Security-Policy', await apiDocsContentSecurityPolicy(html));
    return c.html(html, 200);
  },
);
