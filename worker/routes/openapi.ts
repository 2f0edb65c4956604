// /api/openapi.json: the OpenAPI 3.1 document, generated from the routes' own descriptions and the
// zod schemas that validate them (lib/openapi.ts). Built from the app it is mounted on, so it
// takes the app as an argument rather than importing it.
import { Hono, type Env } from 'hono';
import { openAPIRouteHandler } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../context';
import { routeDocs, OPENAPI_OPTIONS } from '../lib/openapi';

const doc = routeDocs({ tag: 'Meta', access: 'public' });

const openApiDocumentSchema = z
  .object({
    openapi: z.string(),
    info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .loose()
  .meta({ id: 'OpenApiDocument' });

export const openapiRoutes = <E extends Env>(api: Hono<E>) =>
  new Hono<AppEnv>().get(
    '/',
    // The reference page (/api/docs) reads it, and both are served in maintenance.
    doc(
      'getOpenApiDocument',
      'This document',
      { 200: { description: 'The OpenAPI 3.1 document', schema: openApiDocumentSchema } },
      { servedInMaintenance: true },
    ),
    openAPIRouteHandler(api, OPENAPI_OPTIONS),
  );
