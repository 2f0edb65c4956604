// The CLI is careful with where it sends credentials and what it trusts: no plain http:// beyond
// this machine without --insecure, offline tokens checked against the key pinned at sign-in, and
// a clear error (exit 1, no stack trace) for whatever answers that is not KeyPanel.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopback } from '../lib/http';
import {
  apiCall,
  baseURL,
  configHome,
  createProduct,
  keypanel,
  ownerCredentials,
  ownerSession,
  signedInHome,
  type CliResult,
  json,
  readConfig,
  type Schemas,
} from './helpers';

function expectFailure(result: CliResult, code: 1 | 2, message: string) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toContain(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

const configOf = (home: string) => readConfig(path.join(home, 'keypanel', 'config.json'));
const strangerKey = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
const login = (home: string, extra: string[] = []) =>
  keypanel(['login', '--url', baseURL(), '--email', ownerCredentials().email, ...extra], {
    home,
    input: `${ownerCredentials().password}\n`,
  });

describe('plain http://', () => {
  it('is refused for a server other than this machine, before anything is sent or asked', async () => {
    const result = await keypanel(['login', '--url', 'http://keys.example.com', '--email', 'owner@example.com'], { input: 'not-read\n' });
    expectFailure(result, 2, 'Refusing to talk to http://keys.example.com over plain http://');
    expect(result.stderr).toContain('--insecure');
    expect(result.stderr).not.toContain('Password:');
    expectFailure(
      await keypanel(['keys', 'list'], { env: { KEYPANEL_URL: 'http://203.0.113.9:8787', KEYPANEL_TOKEN: 'kp_x' } }),
      2,
      'over plain http://',
    );
  });

  it('is allowed with --insecure', async () => {
    // 0.0.0.0 reaches this machine's server but is not a loopback name, so it needs --insecure.
    const url = baseURL().replace('127.0.0.1', '0.0.0.0');
    const serverKey = path.join(configHome(), 'server.pem');
    writeFileSync(serverKey, (await apiCall('GET', '/api/v1/licenses/public-key')).body.pem);
    const args = [
      'license',
      'validate',
      '--key',
      'NOPE-KEY-1',
      '--fingerprint',
      'device-0001',
      '--public-key',
      serverKey,
      '--format',
      'json',
    ];
    expectFailure(await keypanel(args, { env: { KEYPANEL_URL: url } }), 2, 'over plain http://');
    const insecure = await keypanel([...args, '--insecure'], { env: { KEYPANEL_URL: url } });
    expect(insecure.stderr).not.toContain('Refusing');
    expect(JSON.parse(insecure.stdout)).toMatchObject({ valid: false, code: 'NOT_FOUND' });
  });

  it('is fine for this machine', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]']) expect(isLoopback(host), host).toBe(true);
    for (const host of ['0.0.0.0', 'example.com', 'localhost.example.com', '10.0.0.1', '[::2]']) expect(isLoopback(host), host).toBe(false);
  });
});

describe('the licensing public key', () => {
  it('is pinned at login, and verify-token never fetches one', async () => {
    const home = configHome();
    const signedIn = await login(home);
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(configOf(home).publicKeys?.[baseURL()]).toContain('BEGIN PUBLIC KEY');

    // Nothing pinned for this server: an error that says how to pin, and no request (nothing listens there).
    const token = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJYIn0.c2ln';
    const unpinned = await keypanel(['license', 'verify-token', token], { env: { KEYPANEL_URL: 'http://127.0.0.1:9' } });
    expectFailure(unpinned, 1, 'No licensing public key is pinned for http://127.0.0.1:9.');
    expect(unpinned.stderr).toContain('Run `keypanel login`');
    expect(unpinned.stderr).not.toContain('Could not reach');
  });

  it('refuses a server whose key changed, before the password, until re-pinned', async () => {
    const home = configHome();
    expect((await login(home)).code).toBe(0);
    const config = configOf(home);
    const serverKey = config.publicKeys?.[baseURL()];
    writeFileSync(
      path.join(home, 'keypanel', 'config.json'),
      JSON.stringify({ ...config, token: undefined, publicKeys: { [baseURL()]: strangerKey() } }),
    );

    const changed = await login(home);
    expectFailure(changed, 1, `The licensing public key of ${baseURL()} is not the one pinned at an earlier sign-in.`);
    expect(changed.stderr).toContain('keypanel login --repin');
    expect(changed.stderr).not.toContain('Password:');
    expect(configOf(home).token).toBeUndefined();

    const repinned = await login(home, ['--repin']);
    expect(repinned.code, repinned.stderr).toBe(0);
    expect(configOf(home).publicKeys?.[baseURL()]).toBe(serverKey);
  });

  it('verifies a token with the pinned key, and a token the pinned key did not sign says how to re-pin', async () => {
    const owner = signedInHome(await ownerSession());
    const product = await createProduct({ maxActivations: 1 });
    const [key] = json<Array<{ key: string }>>(
      (await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '1', '--format', 'json'], { home: owner })).stdout,
    );
    const home = configHome();
    expect((await login(home)).code).toBe(0);
    // The call's answer is verified with the pinned key too (the SDK, as an app does).
    const activated = json<Schemas['LicenseAnswer']>(
      (await keypanel(['license', 'activate', '--key', key.key, '--fingerprint', 'device-pinned-1', '--format', 'json'], { home })).stdout,
    );
    const token = activated.license!.token!;
    const ok = await keypanel(['license', 'verify-token', token, '--format', 'json'], { home });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, key: key.key });

    const config = configOf(home);
    writeFileSync(path.join(home, 'keypanel', 'config.json'), JSON.stringify({ ...config, publicKeys: { [baseURL()]: strangerKey() } }));
    const other = await keypanel(['license', 'verify-token', token], { home });
    expectFailure(other, 1, 'The token is not valid: the signature does not match this public key.');
    expect(other.stderr).toContain('keypanel login --repin');
    const refused = await keypanel(['license', 'validate', '--key', key.key, '--fingerprint', 'device-pinned-1'], { home });
    expectFailure(refused, 1, `The server at ${baseURL()} sent a licensing answer the public key does not verify`);
    expect(refused.stderr).toContain('keypanel login --repin');
  });

  it('is needed by the licensing calls too, never fetched for them', async () => {
    const unpinned = await keypanel(['license', 'validate', '--key', 'APP-1', '--fingerprint', 'device-0001'], {
      env: { KEYPANEL_URL: 'http://127.0.0.1:9' },
    });
    expectFailure(unpinned, 1, 'No licensing public key is pinned for http://127.0.0.1:9.');
    expect(unpinned.stderr).not.toContain('Could not reach');
  });
});

describe('an answer that is not KeyPanel', () => {
  let server: Server;
  let url = '';
  const answers: Record<string, { type: string; body: string }> = {
    '/api/products': { type: 'text/html', body: '<html><body>Welcome to the hotel Wi-Fi</body></html>' },
    '/api/users/profile': { type: 'application/json', body: '{"user": ' },
    '/api/auth/login': { type: 'application/json', body: '{"ok": true}' },
    '/api/v1/licenses/validate': { type: 'application/json', body: '{"hello": "world"}' },
    '/api/admin/stats': { type: 'application/json', body: '{"unexpected": []}' },
  };

  let strangerKeyFile = '';
  beforeAll(async () => {
    strangerKeyFile = path.join(configHome(), 'stranger.pem');
    writeFileSync(strangerKeyFile, strangerKey());
    server = createServer((req, res) => {
      const answer = answers[new URL(req.url ?? '/', 'http://x').pathname] ?? { type: 'application/json', body: 'null' };
      res.writeHead(200, { 'content-type': answer.type }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const run = (args: string[], input?: string) => keypanel(args, { env: { KEYPANEL_URL: url, KEYPANEL_TOKEN: 'kp_test' }, input });

  it.each([
    [['products', 'list'], 'sent an answer that is not a JSON object (HTTP 200, text/html)'],
    [['whoami'], 'sent an answer that is not a JSON object (HTTP 200, application/json)'],
    // Unsigned, so the SDK refuses it whatever key is pinned.
    [
      ['license', 'validate', '--key', 'APP-1', '--fingerprint', 'device-0001', '--public-key', 'STRANGER_KEY'],
      'sent a licensing answer the public key does not verify (The answer is not signed by the pinned public key)',
    ],
  ])('keypanel %j exits 1 with a clear message', async (args, message) => {
    const result = await run(args.map((arg) => (arg === 'STRANGER_KEY' ? strangerKeyFile : arg)));
    expectFailure(result, 1, `The server at ${url} ${message}`);
    expect(result.stderr).toContain('Check that KEYPANEL_URL');
  });

  it('a sign-in answer it cannot read', async () => {
    const result = await keypanel(['login', '--url', url, '--email', 'owner@example.com'], { input: 'Harbor-Lantern-42\n' });
    expectFailure(result, 1, `The server at ${url} sent a sign-in answer this CLI cannot read.`);
  });

  it('JSON of another shape: exit 1 and a hint, no stack trace', async () => {
    const result = await run(['stats']);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).toMatch(/^Error: /);
  });
});
