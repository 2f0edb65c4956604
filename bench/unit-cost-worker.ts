// The pieces a KeyPanel request is made of, each run `n` times inside one request so that workerd's
// CPU time for the request (unit-costs.ts reads it from /proc) is the cost of `n` of them. The
// operations are the ones the request path makes, on empty or one-row data: what they cost locally
// beside the floor's one D1 read.
import { Hono } from 'hono';
import { importJWK, SignJWT, type JWK } from 'jose';

type UnitEnv = { DB: D1Database; KV: KVNamespace; LIMITER: RateLimit; SIGNING_KEY: string };

const encoder = new TextEncoder();
const answer = encoder.encode(JSON.stringify({ valid: true, code: 'VALID', detail: 'x'.repeat(300) }));
const app = new Hono();
app.use('*', async (_, next) => await next());
app.post('/api/v1/licenses/validate', (c) => c.json({ valid: true, code: 'VALID' }));

let signingKey: CryptoKey | null = null;

const OPERATIONS: Record<string, (env: UnitEnv, i: number) => unknown> = {
  nothing: () => undefined,
  'D1 read': (env) => env.DB.prepare('SELECT ?1 AS x').bind(1).first(),
  'D1 read on a session': (env) => env.DB.withSession('first-unconstrained').prepare('SELECT ?1 AS x').bind(1).first(),
  'D1 batch of two reads': (env) => env.DB.batch([env.DB.prepare('SELECT ?1 AS x').bind(1), env.DB.prepare('SELECT ?1 AS y').bind(2)]),
  'KV read (JSON)': (env) => env.KV.get('account:1', 'json'),
  'rate limiter call': (env, i) => env.LIMITER.limit({ key: `k${i % 100}` }),
  'Ed25519 signature (350 bytes)': () => crypto.subtle.sign({ name: 'Ed25519' }, signingKey!, answer),
  'jose SignJWT (EdDSA token)': (_, i) =>
    new SignJWT({ fp: 'device', product: 'APP' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setSubject(`KEY-${i}`)
      .setIssuer('keypanel')
      .setIssuedAt(1)
      .setExpirationTime(2)
      .sign(signingKey!),
  'a Response from a string': () => new Response('{"valid":true}', { headers: { 'content-type': 'application/json' } }),
  'a Response read back into a new one': async () => {
    const first = new Response('{"valid":true}', { headers: { 'content-type': 'application/json' } });
    return new Response(new Uint8Array(await first.arrayBuffer()), first);
  },
  'ten headers set on a Response': () => {
    const res = new Response('x');
    for (let h = 0; h < 10; h++) res.headers.set(`x-header-${h}`, 'value');
  },
  'Hono: a route and a middleware': () => app.fetch(new Request('http://unit/api/v1/licenses/validate', { method: 'POST' })),
};
export const OPERATION_NAMES = Object.keys(OPERATIONS);

export default {
  async fetch(request: Request, env: UnitEnv): Promise<Response> {
    signingKey ??= (await importJWK(JSON.parse(env.SIGNING_KEY) as JWK, 'EdDSA')) as CryptoKey;
    const url = new URL(request.url);
    const operation = OPERATIONS[url.searchParams.get('op') ?? ''];
    if (!operation) return new Response('unknown op', { status: 404 });
    const n = Number(url.searchParams.get('n'));
    for (let i = 0; i < n; i++) await operation(env, i);
    return new Response('ok');
  },
};
