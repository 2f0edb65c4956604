// CPU profiles of the isolates in workerd while a scenario runs, through workerd's inspector (the
// Chrome DevTools protocol): the Worker's own (routing, validation, drizzle, signatures) and the one
// that runs local D1 (SQLite in a Durable Object, with Miniflare's JSON protocol around it).
import { writeFileSync } from 'node:fs';

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
export type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

type Ws = { send(data: string): void; close(): void; addEventListener(type: string, listener: (event: { data?: unknown }) => void): void };

/** Profiles each isolate in `services` (by the inspector's target names) during `work`. */
export async function profile(inspectorPort: number, services: string[], work: () => Promise<void>): Promise<Map<string, CpuProfile>> {
  const sessions = await Promise.all(services.map((service) => connect(inspectorPort, service)));
  for (const s of sessions) {
    await s.call('Profiler.enable');
    await s.call('Profiler.setSamplingInterval', { interval: 200 });
    await s.call('Profiler.start');
  }
  const profiles = new Map<string, CpuProfile>();
  try {
    await work();
  } finally {
    for (const [i, s] of sessions.entries()) {
      profiles.set(services[i], ((await s.call('Profiler.stop')) as { profile: CpuProfile }).profile);
      s.close();
    }
  }
  return profiles;
}

async function connect(inspectorPort: number, service: string) {
  const WebSocketClass = (globalThis as { WebSocket?: new (url: string) => Ws }).WebSocket;
  if (!WebSocketClass) throw new Error('Profiling needs a WebSocket client: run with NODE_OPTIONS=--experimental-websocket on Node 20');
  const socket = new WebSocketClass(`ws://127.0.0.1:${inspectorPort}/${service}`);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error(`Cannot reach the inspector of ${service}`)));
  });
  let next = 0;
  const pending = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/** The functions with the most self time, with their share of the samples that were not idle. */
export function topFunctions(p: CpuProfile, count = 25): { share: number; ms: number; name: string }[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  p.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') return;
    const name = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    const dt = p.timeDeltas[i] ?? 0;
    self.set(name, (self.get(name) ?? 0) + dt);
    busy += dt;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ share: us / busy, ms: us / 1000, name }));
}

export function saveProfile(file: string, p: CpuProfile) {
  writeFileSync(file, JSON.stringify(p));
}
