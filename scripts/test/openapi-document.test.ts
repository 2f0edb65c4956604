// docs/openapi.json (which worker/test/openapi.test.ts holds equal to what the Worker serves) is a
// valid OpenAPI 3.1 document, every reference in it resolving. Run in Node: the validator compiles
// its JSON Schemas to code, which workerd does not allow.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';

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
