// `wrangler dev` (npm start, and the server the CLI and browser tests run against) answers through
// its ProxyWorker, whose pooled connections to the Worker close after 5 s idle on both ends at once.
// A request sent in that moment failed, and wrangler 4.86 took the failure for a restart: a POST got
// 503 "Your worker restarted mid-request", a GET was held until some later request came. Our patch
// (patches/README.md) sends such a request again. This sends volleys at those 5 s marks.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, ensureDevVars, freePort, LOCAL_CALLERS, ROOT, startServer, stopServer, stubAssets } from '../local';

const ROUNDS = 10;
const VOLLEY = 8;
/** How far from the 5 s mark each volley lands, in turn. */
const SWEEP_MS = [-30, -15, -5, 0, 5, 10, 20, 35];

let server: ChildProcess;
let base: string;
const stateDir = mkdtempSync(path.join(tmpdir(), 'keypanel-proxy-race-'));

beforeAll(async () => {
  ensureDevVars();
  const assetsDir = stubAssets(stateDir);
  applyMigrations(stateDir);
  const port = await freePort();
  server = await startServer({ port, stateDir, assetsDir, vars: { THROTTLE_EXEMPT_IPS: LOCAL_CALLERS } });
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(() => {
  if (server) stopServer(server);
  rmSync(stateDir, { recursive: true, force: true });
});

/** One request's answer, or what went wrong: a 503 from wrangler's proxy, or no answer within 4 s. */
async function send(method: 'GET' | 'POST', pathname: string): Promise<string | null> {
  try {
    const res = await fetch(`${base}${pathname}`, {
      method,
      ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      signal: AbortSignal.timeout(4_000),
    });
    const text = await res.text();
    return res.headers.get('content-type')?.includes('application/json')
      ? null
      : `${method} ${pathname}: ${res.status} ${text.slice(0, 60)}`;
  } catch (err) {
    return `${method} ${pathname}: ${String(err)}`;
  }
}

describe("wrangler dev's proxy", () => {
  it('carries the patch', () => {
    const proxyWorker = readFileSync(path.join(ROOT, 'node_modules', 'wrangler', 'wrangler-dist', 'ProxyWorker.js'), 'utf8');
    expect(proxyWorker, 'run npm install, whose postinstall applies patches/ (patch-package)').toContain("KeyPanel's patch");
  });

  it('answers every request sent as its pooled connections time out, POST and GET alike', async () => {
    const wrong: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Each volley leaves the connections it used idle; the next comes as their 5 s run out, swept
      // around that mark, since the moment both ends close moves a little from one machine to another.
      const answers = await Promise.all([
        ...Array.from({ length: VOLLEY }, () => send('POST', '/api/auth/login')),
        ...Array.from({ length: VOLLEY }, () => send('GET', '/api/health')),
      ]);
      wrong.push(...answers.filter((a): a is string => a !== null));
      await new Promise((resolve) => setTimeout(resolve, 5_000 + SWEEP_MS[round % SWEEP_MS.length]));
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
