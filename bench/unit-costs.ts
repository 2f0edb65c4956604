// `npx tsx bench/unit-costs.ts`: what each piece of a request costs in local workerd, in µs of CPU,
// measured one piece at a time (unit-cost-worker.ts), so that a profile's shares can be read as time.
// The V8 profile of one isolate cannot say this by itself: every isolate (the Worker, local D1, local
// KV) runs on workerd's one thread, and each isolate's profile also counts, as its own, time the
// thread spent in the others (docs/performance.md). Each piece runs until it has used about half a
// second of CPU (/proc counts in 10 ms ticks). Run it on a quiet machine: contention inflates CPU time.
import path from 'node:path';
import os from 'node:os';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { offlineEnv } from '../scripts/local';
import { generateLicenseSigningKey } from '../scripts/secrets';
import { cpuMsOf, findRuntimePids } from './cpu';
import { OPERATION_NAMES } from './unit-cost-worker';

/** CPU to spend on each operation, in ms: 50 ticks, so a tick's rounding is 2%. */
const TARGET_MS = 500;
Object.assign(process.env, offlineEnv);

const { outputFiles } = await build({
  entryPoints: [path.join(import.meta.dirname, 'unit-cost-worker.ts')],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  write: false,
  logLevel: 'warning',
});
const mf = new Miniflare({
  modules: true,
  script: outputFiles[0].text,
  compatibilityDate: '2025-06-01',
  d1Databases: ['DB'],
  kvNamespaces: ['KV'],
  ratelimits: { LIMITER: { simple: { limit: 1_000_000_000, period: 60 } } },
  bindings: { SIGNING_KEY: generateLicenseSigningKey() },
});
try {
  await mf.ready;
  await (await mf.getKVNamespace('KV')).put('account:1', JSON.stringify({ role: 'user', active: true }));
  const pid = findRuntimePids()[0] ?? null;
  if (pid === null) throw new Error('No workerd process to measure (this needs Linux /proc)');
  const run = async (op: string, times: number) => {
    const res = await mf.dispatchFetch(`http://unit/?op=${encodeURIComponent(op)}&n=${times}`);
    if (!res.ok) throw new Error(`${op}: ${res.status} ${await res.text()}`);
    await res.text();
  };
  const cpuOf = async (op: string, times: number) => {
    const before = cpuMsOf(pid)!;
    await run(op, times);
    return cpuMsOf(pid)! - before;
  };
  console.log(`CPU of workerd per operation (load average before: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
  for (const op of OPERATION_NAMES) {
    // A first run warms it up and sizes the measured one.
    const trial = await cpuOf(op, 200);
    const n = Math.min(200_000, Math.max(200, Math.round((TARGET_MS * 200) / Math.max(trial, 1))));
    const ms = await cpuOf(op, n);
    console.log(`${((ms * 1000) / n).toFixed(1).padStart(8)} µs  ${op}  (${n} times)`);
  }
} finally {
  await mf.dispose();
}
