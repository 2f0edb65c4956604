// fast-check arbitraries from the OpenAPI document's request schemas, for the subset it uses:
// objects with required and optional properties, strings (enum, const, length, pattern), integers
// and numbers with bounds, booleans, arrays, anyOf (nullable included) and $ref to a component.
// `valid` gives what the schema accepts; `invalid` gives what it must refuse.
import fc from 'fast-check';

export type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  anyOf?: Schema[];
};

/** Marks a string to be replaced, when the request is sent, by something that exists: `known`. */
const KNOWN = '\u0000known:';

/** Replaces each reference `validProperty` made with an id or a license key from the pools. */
export function known(value: unknown, pools: { id: string[]; key: string[] }): unknown {
  if (typeof value === 'string' && value.startsWith(KNOWN)) {
    const [pool, n] = value.slice(KNOWN.length).split(':') as ['id' | 'key', string];
    const list = pools[pool];
    return list.length ? list[Number(n) % list.length] : 'none';
  }
  if (Array.isArray(value)) return value.map((v) => known(v, pools));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, known(v, pools)]));
  return value;
}

export function arbitraries(components: Record<string, Schema>) {
  const deref = (schema: Schema): Schema => (schema.$ref ? deref(components[schema.$ref.split('/').pop()!]) : schema);

  function valid(input: Schema): fc.Arbitrary<unknown> {
    const schema = deref(input);
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.anyOf) return fc.oneof(...schema.anyOf.map(valid));
    switch (schema.type) {
      case 'object': {
        const properties = schema.properties ?? {};
        const requiredKeys = (schema.required ?? []).filter((k) => k in properties);
        return fc.record(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, validProperty(k, v)])), { requiredKeys });
      }
      case 'array':
        return fc.array(valid(schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) });
      case 'string':
        return validString(schema);
      case 'integer':
        return fc.integer({ min: lower(schema, -1000), max: upper(schema, 1_000_000) });
      case 'number':
        return fc.double({ min: lower(schema, -1000), max: upper(schema, 1_000_000), noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      default:
        return fc.jsonValue();
    }
  }

  /**
   * A property that names something (`productId`, `keyIds`, a license `key`) is, half the time, a
   * reference to something that exists (see `known`), so well-formed requests reach the work.
   */
  function validProperty(name: string, schema: Schema): fc.Arbitrary<unknown> {
    const pool = name === 'key' || name === 'licenseKey' ? 'key' : /Ids?$/.test(name) ? 'id' : null;
    if (!pool) return valid(schema);
    const reference = fc.nat().map((n) => `${KNOWN}${pool}:${n}`);
    const real = deref(schema).type === 'array' ? fc.array(reference, { minLength: 1, maxLength: 3 }) : reference;
    return fc.oneof(valid(schema), real);
  }

  /** Values of the wrong kind, out of bounds, or (for objects) missing a field, with an extra one, or a field gone wrong. */
  function invalid(input: Schema): fc.Arbitrary<unknown> {
    const schema = deref(input);
    const options: fc.Arbitrary<unknown>[] = [wrongType(schema)];
    if (schema.enum || schema.const !== undefined)
      options.push(fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !(schema.enum ?? [schema.const]).includes(s)));
    if (schema.type === 'string' && schema.maxLength !== undefined) options.push(fc.constant('x'.repeat(schema.maxLength + 1)));
    if (schema.type === 'string' && (schema.minLength ?? 0) > 0) options.push(fc.constant(''));
    if (schema.type === 'string' && schema.pattern)
      options.push(fc.constantFrom('!', '../..', ' ', '%00', 'é'.repeat(12)).filter((s) => !new RegExp(schema.pattern!).test(s)));
    if ((schema.type === 'integer' || schema.type === 'number') && schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER)
      options.push(fc.constant(schema.maximum + 1));
    if ((schema.type === 'integer' || schema.type === 'number') && schema.minimum !== undefined)
      options.push(fc.constant(schema.minimum - 1));
    if (schema.type === 'integer') options.push(fc.constantFrom(0.5, 1e300));
    if (schema.type === 'object' && schema.properties) {
      const properties = schema.properties;
      const names = Object.keys(properties);
      const base = valid(schema) as fc.Arbitrary<Record<string, unknown>>;
      if (schema.required?.length) options.push(base.chain((value) => fc.constantFrom(...schema.required!).map((k) => omit(value, k))));
      if (schema.additionalProperties === false) options.push(base.map((value) => ({ ...value, unexpectedField: 'surprise' })));
      if (names.length)
        options.push(
          base.chain((value) => fc.constantFrom(...names).chain((k) => invalid(properties[k]).map((bad) => ({ ...value, [k]: bad })))),
        );
    }
    return fc.oneof(...options);
  }

  return { valid, invalid };
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, 80);
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  }
  // Mostly printable text, now and then any code point (quotes, control characters, astral planes).
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength }) },
  );
}

const lower = (s: Schema, fallback: number) =>
  Math.max(s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : fallback), Number.MIN_SAFE_INTEGER);
const upper = (s: Schema, fallback: number) =>
  Math.min(s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : fallback), Number.MAX_SAFE_INTEGER);

function wrongType(schema: Schema): fc.Arbitrary<unknown> {
  const types = new Set([schema.type].flat());
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 10 }),
    integer: fc.integer(),
    number: fc.double({ noNaN: true }),
    boolean: fc.boolean(),
    object: fc.constant({ nested: true }),
    array: fc.constant([1, 'two']),
    null: fc.constant(null),
  };
  // An integer is also a number, and a whole number is also an integer.
  if (types.has('number')) types.add('integer');
  if (types.has('integer')) types.add('number');
  const wrong = Object.entries(all)
    .filter(([type]) => !types.has(type))
    .map(([, a]) => a);
  return wrong.length ? fc.oneof(...wrong) : fc.constant(undefined);
}

function omit(value: Record<string, unknown>, key: string) {
  const copy = { ...value };
  delete copy[key];
  return copy;
}
