// CPU profiles of the isolates in workerd while a scenario runs, through workerd's inspector (the
// Chrome DevTools protocol): the Worker's own (routing, validation, drizzle, signatures) and the one
// that runs local D1 (SQLite in a Durable Object, with Miniflare's JSON protocol around it).
import { writeFileSync } from 'node:fs';
import type { CpuProfile } from './profile-summary';

type Ws = { send(data: string): void; close(): void; addEventListener(type: string, listener: (event: { data?: unknown }) => void): void };

/** An isolate's JavaScript heap in use (MB) while it was profiled: at the start, its lowest, its highest, at the end. */
export type HeapRange = { startMb: number; lowMb: number; highMb: number; endMb: number };

/** How often the heaps are read during the work: a fall between two readings is a garbage collection. */
const HEAP_READ_MS = 500;

/**
 * Profiles each isolate in `services` (by the inspector's target names) during `work`, and reads
 * their heaps every HEAP_READ_MS: a heap that falls by tens of MB was collected in one pause, which
 * every request in flight waits through (docs/performance.md, Latency).
 */
export async function profile(
  inspectorPort: number,
  services: string[],
  work: () => Promise<void>,
): Promise<{ profiles: Map<string, CpuProfile>; heaps: Map<string, HeapRange> }> {
  const sessions = await Promise.all(services.map((service) => connect(inspectorPort, service)));
  for (const s of sessions) {
    await s.call('Profiler.enable');
    await s.call('Profiler.setSamplingInterval', { interval: 200 });
    await s.call('Profiler.start');
  }
  const heaps = new Map<string, HeapRange>();
  const readHeaps = async () => {
    for (const [i, s] of sessions.entries()) {
      const mb = ((await s.call('Runtime.getHeapUsage')) as { usedSize: number }).usedSize / 2 ** 20;
      const known = heaps.get(services[i]);
      heaps.set(
        services[i],
        known
          ? { ...known, lowMb: Math.min(known.lowMb, mb), highMb: Math.max(known.highMb, mb), endMb: mb }
          : { startMb: mb, lowMb: mb, highMb: mb, endMb: mb },
      );
    }
  };
  const profiles = new Map<string, CpuProfile>();
  await readHeaps();
  const reading = setInterval(() => void readHeaps(), HEAP_READ_MS);
  try {
    await work();
  } finally {
    clearInterval(reading);
    await readHeaps();
    for (const [i, s] of sessions.entries()) {
      profiles.set(services[i], ((await s.call('Profiler.stop')) as { profile: CpuProfile }).profile);
      s.close();
    }
  }
  return { profiles, heaps };
}

async function connect(inspectorPort: number, service: string) {
  // Node 22 has a WebSocket client built in; on Node 20, the `ws` package (in node_modules through wrangler).
  const WebSocketClass =
    (globalThis as { WebSocket?: new (url: string) => Ws }).WebSocket ??
    ((await import('ws')) as unknown as { default: new (url: string) => Ws }).default;
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

export function saveProfile(file: string, p: CpuProfile) {
  writeFileSync(file, JSON.stringify(p));
}
