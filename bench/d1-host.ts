// The benchmark's D1, in a workerd process of its own (runtime.ts, the default `--d1 process`): the
// Worker's D1 binding is workerd's own, and each of its calls leaves the Worker's process as an HTTP
// request to this Worker, as a deployed Worker's calls leave for Cloudflare's D1. It hands each call
// to local D1 as it came and counts, per caller (the path of the binding's address: `/keypanel`,
// `/floor`), the round trips and the rows D1 read and wrote, from D1's own result metadata.
//
// The calls arrive in the shape of Miniflare's remote bindings (its remote proxy client): the
// binding's request URL in `MF-URL`, each of its headers as `MF-Header-<name>`, the body as it is.
type HostEnv = { DB: D1Database & { fetcher: Fetcher } };

export type CallerCost = { roundTrips: number; statements: number; rowsRead: number; rowsWritten: number };
const costs = new Map<string, CallerCost>();

const HEADER_PREFIX = 'mf-header-';

/** D1's answer to a call: one result per statement (an array), or one. */
type D1Answer = { meta?: { rows_read?: number; rows_written?: number } };

function count(caller: string, answer: unknown) {
  const cost = costs.get(caller) ?? { roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0 };
  cost.roundTrips++;
  for (const result of [answer].flat() as D1Answer[]) {
    cost.statements++;
    cost.rowsRead += result?.meta?.rows_read ?? 0;
    cost.rowsWritten += result?.meta?.rows_written ?? 0;
  }
  costs.set(caller, cost);
}

export default {
  async fetch(request: Request, env: HostEnv): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/__costs') return Response.json(Object.fromEntries(costs));
    const target = request.headers.get('mf-url');
    if (!target) return new Response('Not a D1 call: no MF-URL header', { status: 400 });
    const headers = new Headers();
    for (const [name, value] of request.headers) if (name.startsWith(HEADER_PREFIX)) headers.set(name.slice(HEADER_PREFIX.length), value);
    const answer = await env.DB.fetcher.fetch(new Request(target, { method: request.method, headers, body: request.body }));
    const text = await answer.text();
    if (answer.ok) {
      try {
        count(pathname, JSON.parse(text));
      } catch {
        count(pathname, []);
      }
    }
    return new Response(text, { status: answer.status, headers: answer.headers });
  },
};
