// Where the API's own routes are mounted: its health, its OpenAPI document and its reference page.
import type { Env, Hono } from 'hono';
import { API_DOCS_PATH } from '../../platform/security-headers';
import { docsRoutes } from './docs';
import { healthRoutes } from './health';
import { openapiRoutes } from './openapi';

/** The document describes `api`, the whole app. */
export const metaMounts = <E extends Env>(api: Hono<E>) =>
  [
    ['/api/health', healthRoutes],
    ['/api/openapi.json', openapiRoutes(api)],
    [API_DOCS_PATH, docsRoutes],
  ] as const;
