// The Worker as it is deployed, in local workerd through Miniflare's own server: wrangler builds
// the bundle it would upload, and Miniflare serves it with D1 and KV persisted in a folder. The
// floor Worker runs beside it in the same workerd, bound to the same database.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { generateLicenseSigningKey } from '../scripts/secrets';
import { offlineEnv, ROOT } from '../scripts/local';

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

export async function buildFloorWorker(outDir: string): Promise<string> {
  const outfile = path.join(outDir, 'floor-worker.js');
  await build({
    entryPoints: [path.join(ROOT, 'bench', 'floor-worker.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

export type Runtime = {
  mf: Miniflare;
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
}): Promise<Runtime> {
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
  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    d1Persist: path.join(options.stateDir, 'v3', 'd1'),
    kvPersist: path.join(options.stateDir, 'v3', 'kv'),
    workers: [
      {
        name: WORKER_NAME,
        modules: true,
        scriptPath: options.workerScript,
        modulesRoot: path.dirname(options.workerScript),
        ...compat,
        d1Databases: { DB: dbId },
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
              d1Databases: { DB: dbId },
              ...direct,
            },
          ]
        : []),
    ],
  });
  const entryUrl = await mf.ready;
  const url = options.via === 'entry' ? entryUrl : await mf.unsafeGetDirectURL(WORKER_NAME);
  const floorUrl = options.via === 'entry' || !options.floorScript ? entryUrl : await mf.unsafeGetDirectURL('floor');
  return {
    mf,
    url,
    floorUrl,
    db: await mf.getD1Database('DB'),
    kv: (await mf.getKVNamespace('KV')) as unknown as KVNamespace,
    secrets,
    inspectorPort: options.inspectorPort,
  };
}
