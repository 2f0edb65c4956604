// The OpenAPI document (docs/openapi.json) enforced on every answer the test suites see: the worker
// tests' `api()`, the CLI tests' and the browser tests' `apiCall` hand each answer to `checkAnswer`,
// which throws when the document does not describe it. Runs in workerd too, where `new Function` is
// not allowed, hence @cfworker/json-schema (an interpreter, not a compiler like ajv).
import { dereference, validate } from '@cfworker/json-schema';
import document from '../docs/openapi.json';

type Json = Record<string, unknown>;
type Operation = { operationId: string; responses: Record<string, Json> };
type Template = { method: string; template: string; segments: string[]; literals: number; operation: Operation };

const DOCUMENT_ID = 'https://keypanel.invalid/openapi.json';

/**
 * Response objects are closed: a property the document does not name is an error, so a field
 * renamed on either side fails (JSON Schema leaves objects open unless told otherwise). Objects
 * that say what their other properties are (maps, the document itself) keep their own rule.
 */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!node || typeof node !== 'object') return node;
  const copy: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closeObjects(v)]));
  const isObjectSchema = copy.type === 'object' && typeof copy.properties === 'object';
  if (isObjectSchema && !('additionalProperties' in copy) && !('patternProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

export function contractFor(source: Json) {
  const doc = closeObjects(source) as Json & { paths: Record<string, Record<string, Operation>>; components: Json };
  const lookup = dereference({ ...doc, $id: DOCUMENT_ID });

  const templates: Template[] = Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const segments = template.split('/');
      return { method: method.toUpperCase(), template, segments, literals: segments.filter((s) => !s.startsWith('{')).length, operation };
    }),
  );

  const matches = (t: Template, parts: string[]) =>
    t.segments.length === parts.length && t.segments.every((s, i) => s.startsWith('{') || s === parts[i]);

  /** The operation for a method and path (query ignored); literal segments win over `{param}` ones. */
  function operationFor(method: string, path: string) {
    const parts = new URL(path, 'http://x').pathname.split('/');
    const found = templates.filter((t) => matches(t, parts)).sort((a, b) => b.literals - a.literals);
    return { operation: found.find((t) => t.method === method.toUpperCase()), pathKnown: found.length > 0 };
  }

  const resolve = (node: Json): Json => {
    const ref = node.$ref as string | undefined;
    if (!ref) return node;
    return ref
      .slice(2)
      .split('/')
      .reduce<Json>((at, key) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, doc);
  };

  function validateJson(schema: Json, body: unknown) {
    const result = validate(body, schema, '2020-12', lookup, false);
    // The deepest errors say what is wrong; the ones above them only say "a property failed".
    const deepest = result.errors.filter((e) => !['properties', 'items', '$ref', 'anyOf', 'allOf'].includes(e.keyword));
    return (deepest.length ? deepest : result.errors).map((e) => `${e.instanceLocation.replace(/^#/, '') || '/'}: ${e.error}`);
  }

  const errorSchema = { $ref: `${DOCUMENT_ID}#/components/schemas/Error` };

  /**
   * Throws unless the document describes this answer: its operation, its status, its content type,
   * and (for JSON) a body valid against the schema. Paths outside /api, and /api paths no operation
   * has (an unknown route answering 404 or 405 with the error envelope), are not operations.
   */
  function checkAnswer(answer: { method: string; path: string; status: number; contentType: string | null; text: string }) {
    const { method, path, status, text } = answer;
    if (!new URL(path, 'http://x').pathname.startsWith('/api/')) return;
    const mediaType = (answer.contentType ?? '').split(';')[0].trim().toLowerCase();
    const parsed = mediaType === 'application/json' && text ? parseJson(text) : undefined;
    const fail = (why: string): never => {
      throw new Error(`API contract: ${method} ${path} answered ${status}: ${why}\nbody: ${text.slice(0, 2000)}`);
    };
    // A server error is a bug, and a feature a deployment has not set up is 404 NOT_CONFIGURED: the only
    // 5xx are maintenance (503) and a payment provider that failed (502), both documented where they apply.
    if (status >= 500 && status !== 502 && status !== 503) fail('a server error: the API answers no 5xx but 502 and 503');
    const { operation, pathKnown } = operationFor(method, path);
    if (!operation) {
      // Refusals that come before routing (maintenance, the body limit) reach unknown paths too.
      if (![404, 405, 413, 503].includes(status))
        fail(pathKnown ? 'the method is not in the document for this path' : 'no operation in the document has this path');
      const problems = validateJson(errorSchema, parsed);
      if (problems.length) fail(`not the error envelope:\n  ${problems.join('\n  ')}`);
      return;
    }
    const { operationId, responses } = operation.operation;
    const where = `${operationId} (${operation.method} ${operation.template})`;
    const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!documented) fail(`${where} does not document status ${status} (it documents ${Object.keys(responses).join(', ')})`);
    const content = (resolve(documented).content ?? {}) as Record<string, { schema?: Json }>;
    const mediaTypes = Object.keys(content);
    if (!mediaTypes.length) {
      if (text && status !== 302) fail(`${where} documents no body for ${status}, but one came (${mediaType})`);
      return;
    }
    if (!mediaTypes.includes(mediaType))
      fail(`${where} ${status} is documented as ${mediaTypes.join(' or ')}, but came as ${mediaType || 'nothing'}`);
    if (mediaType !== 'application/json') return;
    if (parsed === undefined) fail(`${where} ${status}: the body is not JSON`);
    const schema = content[mediaType].schema;
    if (!schema) return;
    const problems = validateJson(schema, parsed);
    if (problems.length) fail(`${where} ${status} does not match the document:\n  ${problems.join('\n  ')}`);
  }

  return { checkAnswer, operationFor, document: doc };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The committed document's check, shared by every test helper that calls the API. */
export const { checkAnswer, operationFor, document: contractDocument } = contractFor(document);
