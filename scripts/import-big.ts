// `npm run import:big`: the import and the round trip at full size (issue 34), against two throwaway
// local Workers this script starts (as `npm start` runs them, each with a fresh database).
//   1. Shop A: a file of 100,000 keys (a tenth with a device, half with an expiry, 5,000 customers)
//      through `keypanel import`, timed; then the same file again, which must create nothing.
//   2. Funds added to 200 of the new customers, so the ledger has rows; the whole shop exported.
//   3. Shop B, empty: that export imported, timed; then B exported and compared with A's: the same
//      keys, balances and ledger, or the script fails.
// Options: --keys N (default 100000), --customers N (default 5000), --keep (leave the state folders).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildCli } from './build-cli';
import { applyMigrations, ensureDevVars, ensureOwner, freePort, LOCAL_CALLERS, startServer, stopServer, stubAssets } from './local';

const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '100000' },
    customers: { type: 'string', default: '5000' },
    keep: { type: 'boolean', default: false },
  },
});
const KEYS = Number(values.keys);
const CUSTOMERS = Number(values.customers);
const OWNER = { email: 'owner@import-big.test', password: 'Granite-Willow-83' };

const work = mkdtempSync(path.join(tmpdir(), 'keypanel-import-big-'));
const cli = path.join(work, 'keypanel.js');
const children: Awaited<ReturnType<typeof startServer>>[] = [];

async function shop(name: string) {
  const stateDir = path.join(work, name);
  const assetsDir = stubAssets(stateDir);
  applyMigrations(stateDir);
  await ensureOwner(stateDir, OWNER);
  const port = await freePort();
  children.push(await startServer({ port, stateDir, assetsDir, vars: { THROTTLE_EXEMPT_IPS: LOCAL_CALLERS } }));
  const url = `http://127.0.0.1:${port}`;
  return { url, token: await signIn(url) };
}

/**
 * A session of its own for each command: the API allows a session 600 calls a minute, and two
 * 100,000-record imports back to back (a dry run and a write each, up to 500 records a call) pass it.
 */
async function signIn(url: string) {
  const login = await call<{ token: string }>(url, 'POST', '/api/auth/login', null, OWNER);
  return login.token;
}

async function call<T = Record<string, string>>(
  url: string,
  method: string,
  pathname: string,
  token: string | null,
  body?: unknown,
): Promise<T> {
  const res = await fetch(url + pathname, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Runs the built CLI against a shop; its progress and summary go to this terminal's stderr. */
async function keypanel(target: { url: string; token: string }, args: string[]): Promise<number> {
  const token = await signIn(target.url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, HOME: work, XDG_CONFIG_HOME: work, KEYPANEL_URL: target.url, KEYPANEL_TOKEN: token },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve((Date.now() - started) / 1000) : reject(new Error(`keypanel ${args.join(' ')} exited ${code}`)),
    );
  });
}

type Line = { table: string; row: Record<string, unknown> };
/** What a round trip must keep: keys, balances and ledger, by natural keys (ids of accounts differ per shop). */
function essentials(file: string) {
  const lines = readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  const rows = (table: string) => lines.filter((l) => l.table === table).map((l) => l.row);
  const email = new Map(rows('users').map((u) => [u.id, u.email as string]));
  const owners = new Set(
    rows('users')
      .filter((u) => u.role === 'owner')
      .map((u) => u.id),
  );
  const keyOf = new Map(rows('keys').map((k) => [k.id, k.key]));
  const devices = new Map<unknown, number>();
  for (const d of rows('devices')) devices.set(keyOf.get(d.keyId), (devices.get(keyOf.get(d.keyId)) ?? 0) + 1);
  return {
    keys: rows('keys')
      .map((k) =>
        JSON.stringify([
          k.key,
          k.status,
          k.productKeyTag,
          k.expiresAt,
          k.duration,
          k.maxActivations,
          email.get(k.purchasedBy as string) ?? null,
          devices.get(k.key) ?? 0,
        ]),
      )
      .sort(),
    balances: rows('users')
      .filter((u) => !owners.has(u.id))
      .map((u) => `${String(u.email)}:${String(u.credits)}:${String(u.balanceCents)}`)
      .sort(),
    ledger: rows('ledger')
      .filter((l) => !owners.has(l.userId))
      .map((l) => JSON.stringify([l.id, email.get(l.userId as string), l.kind, l.creditsDelta, l.usdCentsDelta, l.reference, l.createdAt]))
      .sort(),
  };
}

async function main() {
  ensureDevVars();
  await buildCli(cli);
  const a = await shop('a');
  const product = await call(a.url, 'POST', '/api/products', a.token, {
    name: 'Big import',
    description: 'Keys moved in from another system',
    keyTag: 'BIG',
    baseCreditCost: 10,
    creditsPerDay: 1,
    minDays: 30,
    maxDays: 365,
  });
  const rows = ['key,email,expiresAt,devices'];
  for (let i = 0; i < KEYS; i++) {
    const n = String(i).padStart(7, '0');
    rows.push(
      `BIG-${n}-IMPORTED,${i % 2 ? `customer${(i >> 1) % CUSTOMERS}@import-big.test` : ''},${i % 2 ? '2031-01-01T00:00:00Z' : ''},${i % 10 === 1 ? `device-${n}` : ''}`,
    );
  }
  const file = path.join(work, 'keys.csv');
  writeFileSync(file, `${rows.join('\n')}\n`);

  const first = await keypanel(a, ['import', file, '--from', 'keypanel', '--product', product.keyTag, '--no-mail']);
  const repeat = await keypanel(a, ['import', file, '--from', 'keypanel', '--product', product.keyTag, '--no-mail']);

  const usersFile = path.join(work, 'users.jsonl');
  await keypanel(a, ['export', '--table', 'users', '--output', usersFile]);
  const customers = readFileSync(usersFile, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.table === 'users' && l.row.role === 'user')
    .slice(0, 200);
  for (const [i, c] of customers.entries())
    await call(a.url, 'POST', `/api/admin/users/${String(c.row.id)}/balance`, a.token, { amount: 10 + i, type: 'credits' });

  const exportA = path.join(work, 'a.jsonl');
  const exported = await keypanel(a, ['export', '--output', exportA]);
  const b = await shop('b');
  const roundTrip = await keypanel(b, ['import', exportA, '--from', 'keypanel', '--no-mail']);
  const exportB = path.join(work, 'b.jsonl');
  await keypanel(b, ['export', '--output', exportB]);

  const [ea, eb] = [essentials(exportA), essentials(exportB)];
  const same = (name: keyof typeof ea) => JSON.stringify(ea[name]) === JSON.stringify(eb[name]);
  console.log(`\n${KEYS} keys, ${CUSTOMERS} customers:`);
  console.log(`  import ${first.toFixed(1)} s, the same file again ${repeat.toFixed(1)} s`);
  console.log(`  export of shop A ${exported.toFixed(1)} s, imported into empty shop B ${roundTrip.toFixed(1)} s`);
  for (const name of ['keys', 'balances', 'ledger'] as const)
    console.log(`  ${name}: ${ea[name].length} in A, ${eb[name].length} in B, ${same(name) ? 'the same' : 'DIFFERENT'}`);
  if (!same('keys') || !same('balances') || !same('ledger')) process.exitCode = 1;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) stopServer(child);
    if (!values.keep) rmSync(work, { recursive: true, force: true });
    else console.log(`State kept in ${work}`);
  });
