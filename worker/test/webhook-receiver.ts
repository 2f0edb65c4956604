// A local webhook receiver for the worker tests (global setup): a real HTTP server on 127.0.0.1 that
// the Worker's queue consumer POSTs to. POST /hook/<name>?mode=ok|fail|fail-once|hang|redirect|long
// records each request; GET /received/<name> answers what <name> got. `long` answers a 500 whose
// body is 2001 bytes: "x" and then 1000 "é" (2 bytes each), so its first KB ends inside an "é".
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { TestProject } from 'vitest/node';

type Received = { headers: Record<string, string>; body: string; at: number };

export default async function setup(project: TestProject) {
  const received = new Map<string, Received[]>();
  const failedOnce = new Set<string>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, kind, name] = url.pathname.split('/');
    if (req.method === 'GET' && kind === 'received') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received.get(name) ?? []));
      return;
    }
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.set(name, [...(received.get(name) ?? []), { headers, body, at: Date.now() }]);
      const mode = url.searchParams.get('mode') ?? 'ok';
      const id = headers['webhook-id'];
      if (mode === 'hang') {
        hanging.add(res);
        return;
      }
      if (mode === 'redirect') return void res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      if (mode === 'long') return void res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`x${'é'.repeat(1000)}`);
      if (mode === 'fail' || (mode === 'fail-once' && !failedOnce.has(id))) {
        failedOnce.add(id);
        return void res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver says no');
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  project.provide('webhookReceiver', `http://127.0.0.1:${port}`);
  return async () => {
    for (const res of hanging) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    webhookReceiver: string;
  }
}
