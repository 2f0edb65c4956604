// The local embedded default: everything `npm start` and the browser tests need to run KeyPanel
// in workerd with local D1 and KV on disk. Shared so the tests start the product the same way.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { createDb } from '../worker/platform/db/client';
import { users } from '../worker/platform/db/schema';
import { createUser } from '../worker/modules/accounts/users';
import { passwordProblem } from '../worker/modules/accounts/schemas/password-policy';
import { generateLicenseSigningKey } from './secrets';

import { freePort } from './free-port';
export { freePort } from './free-port';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DEFAULT_STATE_DIR = path.join(ROOT, '.wrangler', 'state');

// Offline by design: no metrics, no Cloudflare request-data fetch.
export const offlineEnv = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' };
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

/** Secrets generated on first start. Each is created only when missing, never overwritten. */
const GENERATED_SECRETS: Record<string, () => string> = {
  JWT_SECRET: () => randomBytes(48).toString('base64url'),
  LICENSE_SIGNING_KEY: generateLicenseSigningKey,
  // Encrypts two-factor secrets at rest (worker/platform/secret-box.ts).
  TOTP_ENCRYPTION_KEY: () => randomBytes(32).toString('base64url'),
};

export function ensureDevVars(file = path.join(ROOT, '.dev.vars')): string[] {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const present = new Set(existing.split('\n').map((line) => line.split('=')[0].trim()));
  const added = Object.keys(GENERATED_SECRETS).filter((name) => !present.has(name));
  if (added.length) {
    const lines = added.map((name) => `${name}=${GENERATED_SECRETS[name]()}`);
    const prefix = existing && !existing.endsWith('\n') ? '\n' : '';
    // Written beside and moved into place: a server starting meanwhile reads the old file or the new one.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, existing + prefix + lines.join('\n') + '\n', { mode: 0o600 });
    renameSync(partial, file);
  }
  return added;
}

function run(command: string, args: string[], label: string, env: NodeJS.ProcessEnv = offlineEnv) {
  const result = spawnSync(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`${label} failed (exit ${result.status})`);
  }
  return result.stdout;
}

/**
 * Addresses a test server lets past its per-IP limits (THROTTLE_EXEMPT_IPS): a whole test run calls
 * from this machine, which would otherwise count as one busy caller.
 */
export const LOCAL_CALLERS = '127.0.0.1,::1,unknown';

/** An assets folder in `stateDir` with one page, for a server whose callers need the API alone (no web build). */
export function stubAssets(stateDir: string): string {
  const assetsDir = path.join(stateDir, 'client');
  mkdirSync(assetsDir, { recursive: true });
  writeFileSync(path.join(assetsDir, 'index.html'), '<!doctype html><title>KeyPanel</title>');
  return assetsDir;
}

/** Builds the web app into dist/client, or into `outDir` (tests build their own copy, so runs can overlap). */
export function buildWeb(outDir?: string) {
  // The build as users get it, even when a test runner has set NODE_ENV=test (React's development build otherwise).
  run(bin('vite'), ['build', '--logLevel', 'warn', ...(outDir ? ['--outDir', outDir, '--emptyOutDir'] : [])], 'Building the web app', {
    ...offlineEnv,
    NODE_ENV: 'production',
  });
}

export function applyMigrations(stateDir = DEFAULT_STATE_DIR) {
  run(bin('wrangler'), ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', stateDir], 'Applying migrations');
}

export type OwnerResult = { created: false } | { created: true; email: string; password: string; generated: boolean };

/**
 * Creates the owner account when none exists: from OWNER_EMAIL / OWNER_PASSWORD, else
 * owner@localhost with a generated password that the caller prints once.
 */
export async function ensureOwner(
  stateDir = DEFAULT_STATE_DIR,
  credentials = { email: process.env.OWNER_EMAIL, password: process.env.OWNER_PASSWORD },
): Promise<OwnerResult> {
  const { getPlatformProxy } = await import('wrangler');
  const proxy = await getPlatformProxy<{ DB: D1Database }>({
    configPath: path.join(ROOT, 'wrangler.toml'),
    persist: { path: path.join(stateDir, 'v3') },
    remoteBindings: false,
  });
  try {
    const db = createDb(proxy.env.DB);
    const owner = await db.select({ id: users.id }).from(users).where(eq(users.role, 'owner')).get();
    if (owner) return { created: false };
    const email = (credentials.email || 'owner@localhost').trim().toLowerCase();
    const generated = !credentials.password;
    const password = credentials.password || randomBytes(12).toString('base64url');
    const username = email
      .split('@')[0]
      .replace(/[^A-Za-z0-9_.-]/g, '')
      .padEnd(3, '0')
      .slice(0, 30);
    // The password policy every other account meets (a generated one is long and random).
    const problem = generated ? null : passwordProblem(password, { username, email });
    if (problem) throw new Error(`OWNER_PASSWORD: ${problem}`);
    const taken = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
    if (taken) {
      // An existing account with that email becomes the owner; its password stays its own.
      await db.update(users).set({ role: 'owner', isActive: true }).where(eq(users.id, taken.id));
      return { created: false };
    }
    await createUser(db, { username, email, password, role: 'owner' });
    return { created: true, email, password, generated };
  } finally {
    await proxy.dispose();
  }
}

/** The STRIPE_* variables of this process's environment (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE). */
export function stripeVarsFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[0].startsWith('STRIPE_') && !!e[1]));
}

/**
 * Secrets for the local Worker beside those of .dev.vars: a private env file holding both (wrangler
 * reads .dev.vars only when no env file is given), so no secret shows on a command line.
 */
function envFileWith(secrets: Record<string, string>): { file: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'keypanel-env-'));
  const file = path.join(dir, '.env');
  const devVars = path.join(ROOT, '.dev.vars');
  const base = existsSync(devVars) ? readFileSync(devVars, 'utf8') : '';
  const extra = Object.entries(secrets).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  writeFileSync(file, `${base}${base && !base.endsWith('\n') ? '\n' : ''}${extra.join('\n')}\n`, { mode: 0o600 });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `wrangler dev` serving the built app and the API; resolves once it answers. */
/** A free port other than `taken` (a port just found free but not yet bound can be found again). */
async function freePortBut(taken: number): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port !== taken) return port;
  }
}

export async function startServer(options: {
  port: number;
  stateDir?: string;
  assetsDir?: string;
  inherit?: boolean;
  vars?: Record<string, string>;
  /** Secrets added to those of .dev.vars (Stripe's keys). */
  secrets?: Record<string, string>;
  /** Where wrangler's output goes, a line per request included (the browser tests read it on a failure). */
  logFile?: string;
}): Promise<ChildProcess> {
  const args = [
    'dev',
    '--port',
    String(options.port),
    '--ip',
    '127.0.0.1',
    '--persist-to',
    options.stateDir ?? DEFAULT_STATE_DIR,
    '--test-scheduled',
    '--show-interactive-dev-session=false',
    '--log-level',
    options.inherit || options.logFile ? 'info' : 'warn',
    // Its own debugger port: wrangler's default (9229) is taken by whichever of the servers the test
    // runs start side by side binds it first, and the other exits ("Address already in use"); never
    // the server's own port, which is found free but not yet bound.
    '--inspector-port',
    String(await freePortBut(options.port)),
  ];
  if (options.assetsDir) args.push('--assets', options.assetsDir);
  // Reset links and the Google redirect are built from APP_URL only (never the request's Host), so
  // the local server gets its own address unless one is given. Served from this machine, webhook
  // endpoints may be http on loopback (a local receiver). LOCAL_DEVELOPMENT: mail goes to the local
  // outbox (a deployed Worker has no outbox and refuses links without a mail API).
  const vars = {
    APP_URL: `http://localhost:${options.port}`,
    WEBHOOKS_ALLOW_LOOPBACK_HTTP: 'true',
    LOCAL_DEVELOPMENT: 'true',
    ...options.vars,
  };
  for (const [name, value] of Object.entries(vars)) args.push('--var', `${name}:${value}`);
  const envFile = options.secrets && Object.keys(options.secrets).length ? envFileWith(options.secrets) : null;
  if (envFile) args.push('--env-file', envFile.file);
  const child = spawn(bin('wrangler'), args, {
    cwd: ROOT,
    env: offlineEnv,
    stdio: options.inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    detached: !options.inherit,
  });
  // Kept while the server runs (wrangler reads it again when it reloads), private to this user.
  child.on('exit', () => envFile?.remove());
  // Kept only until the server answers, for the errors below: a server logging every request
  // (logFile) would otherwise hold the whole run's output here too.
  let output = '';
  const collect = (d: Buffer) => (output += d.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  if (options.logFile) {
    const log = createWriteStream(options.logFile, { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.on('exit', () => log.end());
  }
  const url = `http://127.0.0.1:${options.port}/api/health`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${output}`);
    try {
      const res = await fetch(url);
      if (res.ok) {
        // Still read to the end (a full pipe would stall wrangler), now into nothing or the log.
        child.stdout?.off('data', collect).resume();
        child.stderr?.off('data', collect).resume();
        return child;
      }
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  stopServer(child);
  throw new Error(`wrangler dev did not answer within 90 s:\n${output}`);
}

export function stopServer(child: ChildProcess) {
  if (child.exitCode !== null || !child.pid) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
}
