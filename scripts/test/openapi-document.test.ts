// docs/openapi.json (which worker/test/openapi.test.ts holds equal to what the Worker serves) is a
// valid OpenAPI 3.1 document, every reference in it resolving, and one the /api/docs reference page
// loads without a complaint. Run in Node: the validator compiles its JSON Schemas to code, which
// workerd does not allow.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createWorkspaceStore } from '@scalar/workspace-store/client';
import { describe, expect, it, vi } from 'vitest';
import { typeEverySchema } from '../../worker/platform/openapi-types';

const DOCUMENT = path.join(import.meta.dirname, '../../docs/openapi.json');

describe('docs/openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(await readFile(DOCUMENT, 'utf8')) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('would refuse a document with a reference that leads nowhere, or a malformed operation', async () => {
    const read = async () =>
      JSON.parse(await readFile(DOCUMENT, 'utf8')) as { paths: Record<string, Record<string, { responses?: unknown }>> };
    const dangling = await read();
    dangling.paths['/api/health'].get.responses = { 200: { $ref: '#/components/responses/Nowhere' } };
    expect((await new Validator().validate(dangling)).valid).toBe(false);
    const malformed = await read();
    malformed.paths['/api/health'].get.responses = 'OK';
    expect((await new Validator().validate(malformed)).valid).toBe(false);
  });
});

/**
 * What the /api/docs page (Scalar's API reference) says of a document as it loads it: the page's
 * workspace store validates the document against its own schema of OpenAPI and, finding fault,
 * logs "document validation errors" with a list (issue 47 saw twelve "Expected union value"). The
 * same store, run here on the document, with the list it would log.
 */
async function referencePageComplaints(document: object): Promise<{ message: string; path: string }[]> {
  const warned: unknown[][] = [];
  const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args));
  // The store times each step with console.info.
  const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
  try {
    await createWorkspaceStore().addDocument({ name: 'keypanel', document: structuredClone(document) as Record<string, unknown> });
  } finally {
    warn.mockRestore();
    info.mockRestore();
  }
  return warned.flat().flatMap((logged) => (Array.isArray(logged) ? (logged as { message: string; path: string }[]) : []));
}

describe('docs/openapi.json on the /api/docs reference page', () => {
  it('is the store the page bundles: the version @scalar/api-reference depends on', async () => {
    const modules = path.join(import.meta.dirname, '../../node_modules/@scalar');
    const reference = JSON.parse(await readFile(path.join(modules, 'api-reference/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const store = JSON.parse(await readFile(path.join(modules, 'workspace-store/package.json'), 'utf8')) as { version: string };
    expect(reference.dependencies['@scalar/workspace-store']).toBe(store.version);
  });

  it('loads with no validation error', async () => {
    const document = JSON.parse(await readFile(DOCUMENT, 'utf8')) as object;
    expect(await referencePageComplaints(document)).toEqual([]);
  });

  it('would complain of a nullable field with no type, as zod writes it, until typeEverySchema types it', async () => {
    const document = JSON.parse(await readFile(DOCUMENT, 'utf8')) as { components: { schemas: Record<string, unknown> } };
    // User, as zod writes its nullable fields and an open record (every schema the page meets).
    const user = document.components.schemas.User as { properties: Record<string, unknown> };
    user.properties.lastLogin = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] };
    user.properties.language = { anyOf: [{ $ref: '#/components/schemas/Language' }, { type: 'null' }] };
    user.properties.details = { type: 'object', additionalProperties: {} };
    const complaints = await referencePageComplaints(document);
    expect(complaints).toContainEqual(expect.objectContaining({ path: '/components/schemas/User', message: 'Expected union value' }));
    typeEverySchema(document);
    const typed = user.properties as Record<string, { type?: unknown; additionalProperties?: unknown }>;
    expect(typed.lastLogin.type).toEqual(['string', 'null']);
    expect(typed.language.type).toEqual(['string', 'null']);
    expect(typed.details.additionalProperties).toBe(true);
    expect(await referencePageComplaints(document)).toEqual([]);
  });
});
