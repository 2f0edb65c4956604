// Every schema of the OpenAPI document carries a `type`, as the /api/docs reference page's own
// validator (Scalar's) demands: it refuses a schema with none, logging "Expected union value" for
// each (issue 47). zod writes a nullable field as `anyOf: [X, {type: 'null'}]` with no type beside
// it, and an open record's values as `{}`. No imports: scripts/generate.ts reads this too.

type JsonSchema = { type?: string | string[]; $ref?: string; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; [key: string]: unknown };
type Named = Record<string, JsonSchema>;

const namedSchemas = (document: object): Named => (document as { components?: { schemas?: Named } }).components?.schemas ?? {};

/** The types a schema admits, read from its `type`, else its reference or its alternatives; null when unknown. */
function typesOf(schema: JsonSchema, named: Named, seen: Set<string>): string[] | null {
  if (schema.type) return [schema.type].flat();
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = named[name];
    return target && !seen.has(name) ? typesOf(target, named, new Set(seen).add(name)) : null;
  }
  return alternativesTypes(schema, named, seen);
}

/** The types an `anyOf`/`oneOf` admits, all its alternatives together; null when any is unknown. */
function alternativesTypes(schema: JsonSchema, named: Named, seen = new Set<string>()): string[] | null {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (!alternatives) return null;
  const found = new Set<string>();
  for (const alternative of alternatives) {
    const types = typesOf(alternative, named, seen);
    if (!types) return null;
    for (const type of types) found.add(type);
  }
  return [...found];
}

/** Calls `visit` on every object of the document, depth first. */
function eachObject(node: unknown, visit: (schema: JsonSchema) => void) {
  if (Array.isArray(node)) return node.forEach((item) => eachObject(item, visit));
  if (!node || typeof node !== 'object') return;
  visit(node as JsonSchema);
  Object.values(node).forEach((value) => eachObject(value, visit));
}

/**
 * Writes beside each `anyOf`/`oneOf` without a type the types its alternatives admit (the same
 * schema: the alternatives already limit it to them), and makes `additionalProperties: {}` its
 * equal, `true`. scripts/test/openapi-document.test.ts validates docs/openapi.json as the page does.
 */
export function typeEverySchema(document: object) {
  const named = namedSchemas(document);
  eachObject(document, (schema) => {
    if (!schema.type && (schema.anyOf || schema.oneOf)) {
      const types = alternativesTypes(schema, named);
      if (types) schema.type = types.length === 1 ? types[0] : types;
    }
    const extra = schema.additionalProperties;
    if (extra && typeof extra === 'object' && Object.keys(extra).length === 0) schema.additionalProperties = true;
  });
  return document;
}

/**
 * The document as openapi-typescript should read it: without the types typeEverySchema wrote beside
 * an `anyOf`/`oneOf`, which it would add as one more alternative (`Language | null` would widen to
 * `string | Language | null`). A type that says more than its alternatives stays.
 */
export function withoutAlternativesTypes(document: object) {
  const named = namedSchemas(document);
  eachObject(document, (schema) => {
    if (!schema.type || !(schema.anyOf || schema.oneOf)) return;
    const types = alternativesTypes(schema, named);
    const own = [schema.type].flat();
    if (types && types.length === own.length && types.every((type) => own.includes(type))) delete schema.type;
  });
  return document;
}
