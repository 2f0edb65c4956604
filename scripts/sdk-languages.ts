// The Python and Go SDKs' tests (sdk/python, sdk/go): the conformance vectors, and an integration
// test of each against a real local Worker, started as the CLI tests start theirs (scripts/local.ts)
// with a customer, products and keys made through the API for each language. `npm test` runs this
// beside its vitest runs; `npm run test:sdks` runs it alone. A toolchain that is missing (Python 3.9+
// with cryptography and pytest, Go 1.19+) is skipped, and said so; `.ci/run` installs both.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { applyMigrations, ensureDevVars, ensureOwner, freePort, LOCAL_CALLERS, ROOT, startServer, stopServer, stubAssets } from './local';

const OWNER = { email: 'owner@sdk.test', password: 'Harbor-Lantern-42' };
const CUSTOMER_PASSWORD = 'Steady-Secret-9';

export type Toolchain = { name: string; ok: true; command: string; version: string } | { name: string; ok: false; reason: string };

/** Python 3.9+ with cryptography and pytest: KEYPANEL_PYTHON, else Debian's /usr/bin/python3 (what CI installs to). */
export function findPython(python = process.env.KEYPANEL_PYTHON ?? '/usr/bin/python3'): Toolchain {
  const probe = spawnSync(
    python,
    [
      '-c',
      'import sys, cryptography, pytest; assert sys.version_info >= (3, 9); print(sys.version.split()[0], cryptography.__version__, pytest.__version__)',
    ],
    { encoding: 'utf8' },
  );
  if (probe.error) return { name: 'Python SDK', ok: false, reason: `no ${python}` };
  if (probe.status !== 0)
    return {
      name: 'Python SDK',
      ok: false,
      reason: `${python} lacks Python 3.9+ with cryptography and pytest (apt-get install python3-cryptography python3-pytest)`,
    };
  const [version, cryptography, pytest] = probe.stdout.trim().split(' ');
  return { name: 'Python SDK', ok: true, command: python, version: `Python ${version}, cryptography ${cryptography}, pytest ${pytest}` };
}

/** Go 1.19+ on the PATH. */
export function findGo(): Toolchain {
  const probe = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return { name: 'Go SDK', ok: false, reason: 'no go on the PATH (apt-get install golang-go)' };
  const found = /go(\d+)\.(\d+)/.exec(probe.stdout);
  if (!found || Number(found[1]) < 1 || (Number(found[1]) === 1 && Number(found[2]) < 19))
    return { name: 'Go SDK', ok: false, reason: `${probe.stdout.trim()} is older than Go 1.19` };
  return { name: 'Go SDK', ok: true, command: 'go', version: probe.stdout.trim() };
}

type Fixtures = {
  url: string;
  publicKeyPem: string;
  customerToken: string;
  keys: { nodeLocked: string; metered: string; floating: string; airGapped: string; tampered: string };
  meteredAllowance: number;
  trialKeyTag: string;
};

async function call(url: string, method: string, pathname: string, body?: unknown, token?: string) {
  const res = await fetch(new URL(pathname, url), {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A customer with a key of each kind the integration tests use, made through the API. */
async function makeFixtures(url: string, owner: string, lang: string): Promise<Fixtures> {
  const tag = (kind: string) =>
    `${lang}${kind}${Date.now().toString(36)}`
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(0, 10);
  const product = async (kind: string, fields: Record<string, unknown>) =>
    (await call(
      url,
      'POST',
      '/api/products',
      {
        name: `${lang} SDK ${kind}`,
        description: `For the ${lang} SDK's integration test`,
        keyTag: tag(kind),
        baseCreditCost: 1,
        creditsPerDay: 1,
        minDays: 1,
        maxDays: 365,
        ...fields,
      },
      owner,
    )) as { _id: string; keyTag: string };
  const username = `${lang}sdk${Date.now().toString(36)}`;
  const email = `${username}@sdk.test`;
  await call(
    url,
    'POST',
    '/api/admin/users',
    { username, email, password: CUSTOMER_PASSWORD, role: 'user', emailVerified: true, credits: 10_000 },
    owner,
  );
  const customer = (await call(url, 'POST', '/api/auth/login', { email, password: CUSTOMER_PASSWORD })).token as string;
  const buy = async (p: { _id: string }) =>
    ((await call(url, 'POST', '/api/keys/purchase', { productId: p._id, duration: 30 }, customer)) as { licenseKey: { key: string } })
      .licenseKey.key;
  const nodeLocked = await product('N', { maxActivations: 1, offlineTokenHours: 24, entitlements: ['pro'] });
  const metered = await product('M', { maxActivations: 1, usageAllowance: 10 });
  const floating = await product('F', { licenseModel: 'floating', maxActivations: 1, leaseMinutes: 1, borrowMaxHours: 24 });
  const trial = await product('T', { trialDays: 7 });
  const { pem } = (await call(url, 'GET', '/api/v1/licenses/public-key')) as { pem: string };
  return {
    url,
    publicKeyPem: pem,
    customerToken: customer,
    keys: {
      nodeLocked: await buy(nodeLocked),
      metered: await buy(metered),
      floating: await buy(floating),
      airGapped: await buy(nodeLocked),
      tampered: await buy(nodeLocked),
    },
    meteredAllowance: 10,
    trialKeyTag: trial.keyTag,
  };
}

type Run = { name: string; code: number; output: string };

function run(name: string, command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => resolve({ name, code: 1, output: `${output}\n${err.message}` }));
    child.on('close', (code) => resolve({ name, code: code ?? 1, output }));
  });
}

/** The runner's own closing lines (pytest's summary, go test's `ok` or `FAIL` lines). */
export function closingLines(output: string, count = 3): string[] {
  return stripVTControlCharacters(output)
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .slice(-count);
}

/**
 * Runs both languages' tests; resolves to the exit code, the output to print and the recap's lines.
 * `print`: write each run's output as it ends (a full `npm test` holds it and prints it at its end).
 */
export async function runLanguageSdks(): Promise<{ code: number; output: string; recap: string[] }> {
  const chains = [findPython(), findGo()];
  const recap: string[] = [];
  let output = '';
  for (const chain of chains)
    if (!chain.ok) recap.push(`${chain.name}: SKIPPED (${chain.reason}): its conformance and integration tests did not run`);
  const present = chains.filter((c): c is Extract<Toolchain, { ok: true }> => c.ok);
  if (present.length === 0) return { code: 0, output, recap };

  ensureDevVars();
  const stateDir = mkdtempSync(path.join(tmpdir(), 'keypanel-sdks-'));
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    applyMigrations(stateDir);
    await ensureOwner(stateDir, OWNER);
    const port = await freePort();
    server = await startServer({ port, stateDir, assetsDir: stubAssets(stateDir), vars: { THROTTLE_EXEMPT_IPS: LOCAL_CALLERS } });
    const url = `http://127.0.0.1:${port}`;
    const owner = (await call(url, 'POST', '/api/auth/login', OWNER)).token as string;
    const runs = present.map(async (chain) => {
      const lang = chain.name.startsWith('Python') ? 'py' : 'go';
      const fixtures = path.join(stateDir, `${lang}-fixtures.json`);
      writeFileSync(fixtures, JSON.stringify(await makeFixtures(url, owner, lang)));
      // The integration tests fail, rather than skip, when run from here without their server.
      const env = { KEYPANEL_TEST_FIXTURES: fixtures, KEYPANEL_REQUIRE_INTEGRATION: '1' };
      return lang === 'py'
        ? run(chain.name, chain.command, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], path.join(ROOT, 'sdk', 'python'), env)
        : run(chain.name, 'go', ['test', '-count=1', './...'], path.join(ROOT, 'sdk', 'go'), {
            ...env,
            // Offline by design: the module has no dependency to fetch.
            GOPROXY: 'off',
            GOFLAGS: '-mod=mod -buildvcs=false',
            GOTOOLCHAIN: 'local',
          });
    });
    const results = await Promise.all(runs);
    for (const result of results) {
      output += `\n\u25B8 ${result.name} (${present.find((c) => c.name === result.name)!.version})\n${result.output}`;
      recap.push(
        `${result.name}: ${result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`}`,
        ...closingLines(result.output, result.name.startsWith('Python') ? 1 : 3).map((line) => `      ${line}`),
      );
    }
    return { code: results.some((r) => r.code !== 0) ? 1 : 0, output, recap };
  } catch (err) {
    recap.push(`Python and Go SDKs: FAILED before their tests ran: ${(err as Error).message}`);
    return { code: 1, output, recap };
  } finally {
    if (server) stopServer(server);
    rmSync(stateDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { code, output, recap } = await runLanguageSdks();
  process.stdout.write(`${output}\n\u25B8 Python and Go SDKs\n${recap.join('\n')}\n`);
  process.exit(code);
}
