// Fuzzing from the OpenAPI document: for every operation it lists, requests built from its own
// request schemas, well-formed and malformed, from each role, from no one and with bad tokens.
// What must hold: no 5xx; every 4xx is the `{message, code}` envelope; a refused request changes
// nothing; and (through api(), which checks every answer) every answer is the documented one.
// CI runs a few cases per operation with a fixed seed; `npm run fuzz` runs many with a printed seed.
import { env } from 'cloudflare:test';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import document from '../../docs/openapi.json';
import { arbitraries, known, type Schema } from './fuzz/arbitraries';
import { CALLERS, fuzzWorld, type Caller } from './fuzz/world';

type Parameter = { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: Schema };
type Operation = {
  operationId: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
};

const RUNS = Number(env.FUZZ_RUNS) || 10;
const SEED = Number(env.FUZZ_SEED) || 20261124;
const { valid, invalid } = arbitraries(document.components.schemas as Record<string, Schema>);

const operations = Object.entries(document.paths as unknown as Record<string, Record<string, Operation>>).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, op]) => {
    const parameters = (op.parameters ?? []).filter((p): p is Parameter => !('$ref' in p));
    return {
      method: method.toUpperCase(),
      template,
      operationId: op.operationId,
      pathParams: parameters.filter((p) => p.in === 'path'),
      queryParams: parameters.filter((p) => p.in === 'query'),
      body: op.requestBody?.content['application/json']?.schema,
    };
  }),
);
type Op = (typeof operations)[number];

/** A path parameter: from its schema, or (half the time) the id of something that exists. */
type PathValue = { value: string } | { known: number };
type Malformation = 'path' | 'query' | 'body' | 'not-json' | 'oversized' | 'none';
type Case = {
  caller: Caller;
  malformed: Malformation;
  path: Record<string, PathValue>;
  query: Record<string, unknown>;
  body: unknown;
};

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function caseFor(op: Op): fc.Arbitrary<Case> {
  // Half the requests well-formed, and most from someone signed in, so many reach the work.
  const kinds: Malformation[] = [];
  if (op.pathParams.length) kinds.push('path');
  if (op.queryParams.length) kinds.push('query');
  if (op.body) kinds.push('body', 'body');
  if (op.method !== 'GET') kinds.push('not-json', 'oversized');
  const malformed = kinds.length
    ? fc.oneof({ weight: kinds.length, arbitrary: fc.constant<Malformation>('none') }, fc.constantFrom(...kinds))
    : fc.constant<Malformation>('none');
  const caller = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...CALLERS.slice(0, 4)) }, fc.constantFrom(...CALLERS.slice(4)));
  return fc.record({ caller, malformed }).chain(({ caller, malformed }) =>
    fc.record({
      caller: fc.constant(caller),
      malformed: fc.constant(malformed),
      path: fc.record(
        Object.fromEntries(
          op.pathParams.map((p, i) => [
            p.name,
            malformed === 'path' && i === 0
              ? invalid(p.schema).map((v): PathValue => ({ value: asText(v) }))
              : fc.oneof(
                  valid(p.schema).map((v): PathValue => ({ value: asText(v) })),
                  fc.nat().map((n): PathValue => ({ known: n })),
                ),
          ]),
        ),
      ),
      query: fc.record(
        Object.fromEntries(op.queryParams.map((p, i) => [p.name, malformed === 'query' && i === 0 ? invalid(p.schema) : valid(p.schema)])),
        { requiredKeys: op.queryParams.filter((p, i) => p.required || (malformed === 'query' && i === 0)).map((p) => p.name) },
      ),
      body: op.body ? (malformed === 'body' ? invalid(op.body) : valid(op.body)) : fc.constant(undefined),
    }),
  );
}

function urlFor(op: Op, c: Case, ids: string[]) {
  const path = op.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = c.path[name];
    const value = 'value' in v ? v.value : (ids[v.known % Math.max(ids.length, 1)] ?? 'none');
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(c.query)) if (value !== undefined) query.set(name, asText(value));
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

function bodyFor(op: Op, c: Case, pools: { id: string[]; key: string[] }): { body?: unknown; rawBody?: string } {
  if (op.method === 'GET') return {};
  if (c.malformed === 'not-json') return { rawBody: '{"not json' };
  if (c.malformed === 'oversized') return { rawBody: JSON.stringify({ padding: 'x'.repeat(70_000) }) };
  return c.body === undefined ? {} : { body: known(c.body, pools) };
}

/** What each operation answered, so the run can show it reached the work and not only refusals. */
const answered = new Map<string, Set<number>>();

describe('fuzzing every operation in the document', () => {
  let world: Awaited<ReturnType<typeof fuzzWorld>>;
  beforeAll(async () => {
    world = await fuzzWorld();
    console.log(`fuzz: ${RUNS} runs per operation, seed ${SEED} (replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npm run fuzz)`);
  }, 60_000);

  for (const op of operations) {
    test.prop([caseFor(op)], { numRuns: RUNS, seed: SEED, endOnFailure: true })(
      `${op.operationId} (${op.method} ${op.template}) holds`,
      async (c) => {
        const before = await world.snapshot();
        const pools = await world.known();
        const url = urlFor(op, c, pools.id);
        const res = await world.box.api(op.method, url, {
          token: world.tokenOf(c.caller),
          ...bodyFor(op, c, pools),
        });
        const what = `${op.method} ${url} as ${c.caller} (${c.malformed}) answered ${res.status}: ${JSON.stringify(res.body)}`;
        answered.set(op.operationId, (answered.get(op.operationId) ?? new Set()).add(res.status));
        expect(res.status, what).toBeLessThan(500);
        if (res.status >= 400) {
          expect(typeof res.body?.message, what).toBe('string');
          expect(typeof res.body?.code, what).toBe('string');
          expect(await world.snapshot(), `${what}\nA refused request changed something`).toEqual(before);
        } else if (op.method !== 'GET') {
          await world.restore();
        }
      },
      Math.max(30_000, RUNS * 5_000),
    );
  }

  afterAll(() => {
    const reached = [...answered].filter(([, statuses]) => [...statuses].some((s) => s < 300)).length;
    console.log(`fuzz: ${reached} of ${operations.length} operations answered 2xx at least once`);
    // A fuzzer whose every request is refused (its callers signed out, its ids unknown) proves little.
    expect(reached).toBeGreaterThan(operations.length / 3);
  });
});
