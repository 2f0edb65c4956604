// A CPU profile of the Worker's isolate while a scenario runs, through workerd's inspector (the
// Chrome DevTools protocol). It says where the Worker's own time goes: routing, validation,
// drizzle, signatures; the D1 and KV services run in other isolates and are not in it.
import { writeFileSync } from 'node:fs';

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
export type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

type Ws = { send(data: string): void; close(): void; addEventListener(type: string, listener: (event: { data?: unknown }) => void): void };

/** Profiles `service` (Miniflare names a worker's isolate `core:user:<name>`) during `work`. */
export async function profile(inspectorPort: number, service: string, work: () => Promise<void>): Promise<CpuProfile> {
  const WebSocketClass = (globalThis as { WebSocket?: new (url: string) => Ws }).WebSocket;
  if (!WebSocketClass) throw new Error('Profiling needs a WebSocket client: run with NODE_OPTIONS=--experimental-websocket on Node 20');
  const socket = new WebSocketClass(`ws://127.0.0.1:${inspectorPort}/${service}`);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error(`Cannot reach the inspector of ${service}`)));
  });
  let next = 0;
  let profiled: CpuProfile;
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
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: 200 });
  await call('Profiler.start');
  try {
    await work();
  } finally {
    const stopped = (await call('Profiler.stop')) as { profile: CpuProfile };
    socket.close();
    profiled = stopped.profile;
  }
  return profiled;
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
