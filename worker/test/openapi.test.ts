// The OpenAPI document (GET /api/openapi.json): current with the committed docs/openapi.json, and
// covering exactly the routes the app mounts. Its validity as OpenAPI 3.1 is checked in Node
// (scripts/test/openapi-document.test.ts), since the validator compiles code, which workerd forbids.
import { describe, expect, it } from 'vitest';
import committed from '../../docs/openapi.json';
import { app } from '../app';
import { api } from './helpers';

type Operation = { operationId?: string; summary?: string; tags?: string[]; security?: unknown[]; responses?: Record<string, unknown> };
type Document = { openapi: string; info: { title: string }; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };

const served = async () => {
  const res = await api('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  // The document describes itself only as an object; these tests read its OpenAPI structure.
  return res.body as unknown as Document;
};

/** Every method + path the app answers, in the document's spelling ('/api/keys/{id}/revoke'). */
function mountedRoutes(): string[] {
  const routes = app.routes
    // Middleware (`use`) and the catch-alls are ALL; every route proper names its method. A page
    // outside /api (the local mailbox of local development) is no operation of the API.
    .filter((r) => r.method !== 'ALL' && r.path.startsWith('/api'))
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
  return [...new Set(routes)].sort();
}

const documentedRoutes = (doc: Document) =>
  Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();

describe('GET /api/openapi.json', () => {
  it('is the committed docs/openapi.json (run `npm run api:generate` after changing a route or a schema)', async () => {
    const doc = await served();
    expect(doc, 'docs/openapi.json is stale: run `npm run api:generate` and commit the result').toEqual(committed);
  });

  it('is OpenAPI 3.1 for KeyPanel on the same origin', async () => {
    const doc = await served();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('KeyPanel');
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('documents every mounted route, and no route that is not mounted', async () => {
    const doc = await served();
    const mounted = mountedRoutes();
    expect(mounted.length).toBeGreaterThan(70);
    expect(documentedRoutes(doc)).toEqual(mounted);
  });

  it('gives every operation a unique id, a summary, a tag, its security and a success answer', async () => {
    const doc = await served();
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(operations.length);
    for (const op of operations) {
      expect(op.summary, op.operationId).toBeTruthy();
      expect(op.tags, op.operationId).toHaveLength(1);
      expect(op.security, op.operationId).toBeInstanceOf(Array);
      expect(
        Object.keys(op.responses ?? {}).some((status) => /^[23]\d\d$/.test(status)),
        op.operationId,
      ).toBe(true);
    }
  });
});
