// The Worker as it is deployed, in local workerd through Miniflare's own server: wrangler builds
// the bundle it would upload, and Miniflare serves it with D1 and KV persisted in a folder. The
// floor Worker runs beside it in the same workerd, bound to the same database.
//
// Where D1 runs (`d1`): 'process', the default, puts it in a workerd process of its own (d1-host.ts),
// and the Workers' D1 bindings (workerd's own) reach it over HTTP, as a deployed Worker's reach
// Cloudflare's D1: the Worker's thread carries only the Worker's work, and D1 counts the rows each
// caller's calls read and wrote. 'thread' is how local development runs it, in the Workers' own
// process, where its statements and its garbage collections count as the Worker's.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { generateLicenseSigningKey } from '../scripts/secrets';
import { offlineEnv, ROOT } from '../scripts/local';
import { KEY_JOBS_CRON } from '../worker/platform/crons';
import { findRuntimePids } from './cpu';
import type { CallerCost } from './d1-host';

export const FLOOR_PATH = '/__floor/key';
/** Miniflare names each worker's isolate `core:user:<name>` (the inspector's path to it). */
export const WORKER_NAME = 'keypanel';
/** Far above anything a run sends, so the licensing limiters are never what is measured. */
const UNLIMITED = 1_000_000_000;

const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

/** `wrangler deploy --dry-run`: the exact bundle a deploy would upload, with wrangler's settings. */
export function buildWorker(outDir: string): string {
  // The API does not need the web app's files; an empty assets folder keeps the build self-contained.
  const assets = path.join(outDir, 'empty-assets');
  mkdirSync(assets, { recursive: true });
  const result = spawnSync(bin('wrangler'), ['deploy', '--dry-run', '--outdir', outDir, '--assets', assets], {
    cwd: ROOT,
    env: offlineEnv,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}${result.stderr}`);
  return path.join(outDir, 'index.js');
}

/** A Worker of the benchmark's own (the floor, the D1 host), bundled from bench/<name>.ts. */
export async function buildBenchWorker(name: 'floor-worker' | 'd1-host', outDir: string): Promise<string> {
  const outfile = path.join(outDir, `${name}.js`);
  await build({
    entryPoints: [path.join(ROOT, 'bench', `${name}.ts`)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** Where D1 runs: a process of its own, reached over HTTP (production-shaped), or the Workers' own thread. */
export type D1Placement = 'process' | 'thread';
export const D1_PLACEMENTS: D1Placement[] = ['process', 'thread'];

/** The callers D1 counts apart: each Worker's binding has its own address (d1-host.ts). */
export type D1Caller = 'keypanel' | 'floor';

export type Runtime = {
  mf: Miniflare;
  d1: D1Placement;
  /** The workerd process running the Workers, and the one running D1 (the same one with `thread`); null without /proc. */
  pid: number | null;
  d1Pid: number | null;
  /** What D1 counted so far for each caller (null with `thread`, where nothing counts them). */
  d1Costs: () => Promise<Record<D1Caller, CallerCost> | null>;
  dispose: () => Promise<void>;
  /** Fires KeyPanel's every-minute cron (auto-renewal and expiry) and waits for it. */
  runKeyJobs: () => Promise<void>;
  /** Where KeyPanel answers. */
  url: URL;
  /** Where the floor Worker answers (its path, FLOOR_PATH, is the same either way). */
  floorUrl: URL;
  db: D1Database;
  kv: KVNamespace;
  secrets: { JWT_SECRET: string; LICENSE_SIGNING_KEY: string; TOTP_ENCRYPTION_KEY: string };
  inspectorPort?: number;
};

/** What the runtime takes from wrangler.toml. */
type WranglerConfig = {
  name?: string;
  compatibility_date?: string;
  compatibility_flags: string[];
  vars: Record<string, unknown>;
  d1_databases: { binding: string; database_id?: string; preview_database_id?: string }[];
  kv_namespaces: { binding: string; id?: string }[];
  ratelimits: { name: string }[];
};

/** The same folder layout as `wrangler ... --persist-to stateDir`, so migrations applied by wrangler are found. */
export type Via = 'direct' | 'entry';

export async function startRuntime(options: {
  stateDir: string;
  workerScript: string;
  floorScript?: string;
  inspectorPort?: number;
  via?: Via;
  d1?: D1Placement;
  /** The D1 host's bundle (buildBenchWorker('d1-host')); required with d1 'process'. */
  d1HostScript?: string;
}): Promise<Runtime> {
  const placement = options.d1 ?? 'process';
  // wrangler declares this result with a type from @cloudflare/workers-utils, which it bundles but does
  // not install, so the type does not resolve; the fields used here are declared above.
  const config = unstable_readConfig({ config: path.join(ROOT, 'wrangler.toml') }) as unknown as WranglerConfig;
  const d1 = config.d1_databases.find((d) => d.binding === 'DB');
  const kv = config.kv_namespaces.find((k) => k.binding === 'KV');
  if (!d1?.database_id || !kv?.id) throw new Error('wrangler.toml must bind DB (D1) and KV');
  const dbId = d1.preview_database_id ?? d1.database_id;
  const secrets = {
    JWT_SECRET: randomBytes(48).toString('base64url'),
    LICENSE_SIGNING_KEY: generateLicenseSigningKey(),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
  };
  // 'direct': each Worker on a socket of its own that Miniflare opens in workerd, with nothing in
  // front; 'entry': behind Miniflare's entry Worker (its development layer: request logging, pretty
  // error pages, live reload), which routes the floor's path to the floor Worker.
  const direct = options.via === 'entry' ? {} : { unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }] };
  const compat = { compatibilityDate: config.compatibility_date, compatibilityFlags: config.compatibility_flags };
  const d1Persist = path.join(options.stateDir, 'v3', 'd1');

  let host: Miniflare | null = null;
  let hostUrl: URL | null = null;
  let d1Pid: number | null = null;
  if (placement === 'process') {
    if (!options.d1HostScript) throw new Error("startRuntime: d1 'process' needs the D1 host's script");
    host = new Miniflare({
      host: '127.0.0.1',
      port: 0,
      d1Persist,
      workers: [
        {
          name: 'd1',
          modules: true,
          scriptPath: options.d1HostScript,
          modulesRoot: path.dirname(options.d1HostScript),
          ...compat,
          d1Databases: { DB: dbId },
          unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
        },
      ],
    });
    await host.ready;
    hostUrl = await host.unsafeGetDirectURL('d1');
    d1Pid = findRuntimePids()[0] ?? null;
  }
  /** A Worker's D1 binding: local, or workerd's binding whose calls go to the D1 host at the caller's own path. */
  const d1Binding = (caller: D1Caller) =>
    hostUrl ? { DB: { id: dbId, remoteProxyConnectionString: new URL(`/${caller}`, hostUrl) } } : { DB: dbId };

  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    d1Persist,
    kvPersist: path.join(options.stateDir, 'v3', 'kv'),
    workers: [
      {
        name: WORKER_NAME,
        modules: true,
        scriptPath: options.workerScript,
        modulesRoot: path.dirname(options.workerScript),
        ...compat,
        d1Databases: d1Binding('keypanel'),
        kvNamespaces: { KV: kv.id },
        ratelimits: Object.fromEntries(config.ratelimits.map((r) => [r.name, { simple: { limit: UNLIMITED, period: 60 } }])),
        bindings: { ...(config.vars as Record<string, string>), ...secrets },
        // The benchmark calls the API only; anything else would be the web app's files.
        serviceBindings: { ASSETS: () => new Response('Not found', { status: 404 }) },
        ...direct,
      },
      ...(options.floorScript
        ? [
            {
              name: 'floor',
              modules: true,
              scriptPath: options.floorScript,
              modulesRoot: path.dirname(options.floorScript),
              ...compat,
              routes: [`*${path.posix.dirname(FLOOR_PATH)}/*`],
              d1Databases: d1Binding('floor'),
              ...direct,
            },
          ]
        : []),
    ],
  });
  const entryUrl = await mf.ready;
  const url = options.via === 'entry' ? entryUrl : await mf.unsafeGetDirectURL(WORKER_NAME);
  const floorUrl = options.via === 'entry' || !options.floorScript ? entryUrl : await mf.unsafeGetDirectURL('floor');
  const pid = findRuntimePids().find((p) => p !== d1Pid) ?? null;
  return {
    mf,
    d1: placement,
    pid,
    d1Pid: host ? d1Pid : pid,
    d1Costs: async () => {
      if (!hostUrl) return null;
      const costs = await (await fetch(new URL('/__costs', hostUrl))).json<Record<string, CallerCost>>();
      const none: CallerCost = { roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0 };
      return { keypanel: costs['/keypanel'] ?? none, floor: costs['/floor'] ?? none };
    },
    dispose: async () => {
      await mf.dispose();
      await host?.dispose();
    },
    runKeyJobs: async () => {
      const result = await (await mf.getWorker(WORKER_NAME)).scheduled({ cron: KEY_JOBS_CRON });
      if (result.outcome !== 'ok') throw new Error(`The key jobs' cron ended ${result.outcome}`);
    },
    url,
    floorUrl,
    // Seeding and the checks read and write D1 directly, not through the Workers' bindings, so D1 does not count them.
    db: await (host ?? mf).getD1Database('DB'),
    kv: (await mf.getKVNamespace('KV')) as unknown as KVNamespace,
    secrets,
    inspectorPort: options.inspectorPort,
  };
}
