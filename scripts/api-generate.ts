// npm run api:generate: writes the OpenAPI document the Worker serves at /api/openapi.json to
// docs/openapi.json, and its TypeScript types (openapi-typescript) to generated/api-paths.ts, which
// `npm install` also writes from the committed document (scripts/generate.ts). A worker test fails
// when the committed document is stale.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSpecs } from 'hono-openapi';
import { app } from '../worker/app';
import { finishDocument, OPENAPI_OPTIONS } from '../worker/platform/openapi';
import { API_PATHS_PATH, OPENAPI_DOCUMENT_PATH, writeApiPaths } from './generate';

const root = path.join(import.meta.dirname, '..');
const document = `${JSON.stringify(finishDocument(await generateSpecs(app, OPENAPI_OPTIONS)), null, 2)}\n`;
await writeFile(OPENAPI_DOCUMENT_PATH, document);
await writeApiPaths(document);
console.log(`Wrote ${path.relative(root, OPENAPI_DOCUMENT_PATH)} and ${path.relative(root, API_PATHS_PATH)}`);
