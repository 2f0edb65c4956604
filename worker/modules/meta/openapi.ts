// /api/openapi.json: the OpenAPI 3.1 document, generated from the routes' own descriptions and the
// zod schemas that validate them (platform/openapi.ts). Built from the app it is mounted on, so it
// takes the app as an argument rather than importing it.
import { Hono, type Env } from 'hono';
import { generateSpecs } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../../platform/context';
import { isolateCache } from '../../platform/isolate-cache';
import { finishDocument, OPENAPI_OPTIONS } from '../../platform/openapi';
import { routeOperations } from '../accounts';

const op = routeOperations({ tag: 'Meta', access: 'public' });

const openApiDocumentSchema = z
  .object({
    openapi: z.string(),
    info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .loose()
  .meta({ id: 'OpenApiDocument' });

const documents = isolateCache<Hono, Promise<unknown>>('openapi-document');

/** The document of the app, as docs/openapi.json holds it (scripts/api-generate.ts makes that one the same way). */
export const openApiDocument = <E extends Env>(api: Hono<E>) =>
  documents.getOrSet(api as unknown as Hono, () => generateSpecs(api, OPENAPI_OPTIONS).then(finishDocument));

export const openapiRoutes = <E extends Env>(api: Hono<E>) =>
  new Hono<AppEnv>().get(
    '/',
    // The reference page (/api/docs) reads it, and both are served in maintenance.
    op(
      'getOpenApiDocument',
      'This document',
      { 200: { description: 'The OpenAPI 3.1 document', schema: openApiDocumentSchema } },
      { servedInMaintenance: true },
    ),
    async (c) => c.json(await openApiDocument(api), 200),
  );
