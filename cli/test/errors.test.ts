// Every way a command can fail, and its exit code: 2 for bad usage (nothing sent), 1 for an error
// from the API or the network; the message on stderr, no stack trace, nothing on stdout.
import { createServer } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseURL, configHome, createUser, keypanel, ownerSession, signedInHome, signIn, type CliResult } from './helpers';

let ownerHome: string;
beforeAll(async () => {
  ownerHome = signedInHome(await ownerSession());
});

function expectFailure(result: CliResult, code: 1 | 2, message: string | RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  if (typeof message === 'string') expect(result.stderr).toContain(message);
  else expect(result.stderr).toMatch(message);
  // A message for a person, not a stack trace.
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('bad usage exits 2', () => {
  it.each([
    [
      ['keys', 'generate', '--product', 'APP', '--quantity', 'many'],
      "option '--quantity <n>' argument 'many' is invalid. --quantity must be a whole number (digits only).",
    ],
    [['keys', 'generate', '--product', 'APP', '--quantity', '0'], '--quantity must be at least 1.'],
    [['keys', 'generate', '--quantity', '5'], "required option '--product <id|keyTag>' not specified"],
    [['keys', 'list', '--status', 'lost'], "argument 'lost' is invalid. Allowed choices are available, used, revoked, expired."],
    [['keys', 'list', '--format', 'xml'], "argument 'xml' is invalid. Allowed choices are table, csv, json."],
    [['keys', 'frobnicate'], "unknown command 'frobnicate'"],
    [['keys', 'list', '--colour'], "unknown option '--colour'"],
    [['keys', 'list', 'extra'], "too many arguments for 'list'"],
    [['users', 'credit', 'alice', '--credits', '5', '--balance', '5'], 'Give exactly one of --credits N or --balance USD'],
    [['users', 'credit', 'alice', '--balance', '1.234'], "argument '1.234' is invalid. --balance must be a positive number like 12.50."],
    [['settings', 'set', 'maxKeysPerGeneration'], 'Expected name=value, got "maxKeysPerGeneration"'],
    [['settings', 'set', 'colour=blue'], 'Unknown setting "colour"'],
    [['settings', 'set', 'maxKeysPerGeneration=5000'], 'maxKeysPerGeneration: maxKeysPerGeneration must be at most 1000'],
    [['settings', 'set', 'maintenanceMode=yes'], 'maintenanceMode must be true or false (got "yes")'],
    [
      ['products', 'create', '--name', 'X', '--description', 'Y', '--key-tag', 'bad tag!', '--base-cost', '1'],
      'Key tag must be 2 to 10 letters or digits',
    ],
    [['products', 'update', 'APP'], 'Nothing to update'],
    [['license', 'validate', '--key', 'APP-1', '--fingerprint', 'short'], 'deviceFingerprint must be at least 8 characters'],
    [['license', 'verify-token', 'not-a-token'], 'That is not an offline token'],
    [['token', 'create', '--name', 'x', '--role', 'admin'], '--role must be one of user, reseller, owner.'],
    [['token', 'revoke', 'abc'], '"abc" is not an API token id'],
    [
      ['purchase', '--user', 'alice', '--product', 'APP', '--days', '-3'],
      "argument '-3' is invalid. --days must be a whole number (digits only).",
    ],
    [['keys', 'export', '--output', '/nonexistent-dir/keys.csv'], 'Cannot write --output /nonexistent-dir/keys.csv: ENOENT'],
    [['keys', 'list', '--mine', '--product', 'APP'], '--product cannot be combined with --mine'],
  ])('keypanel %j', async (args, message) => {
    expectFailure(await keypanel(args, { home: ownerHome }), 2, message);
  });

  it('a bad KEYPANEL_URL', async () => {
    expectFailure(
      await keypanel(['whoami'], { home: ownerHome, env: { KEYPANEL_URL: 'ftp://example.com' } }),
      2,
      'KEYPANEL_URL must be an http:// or https:// address',
    );
  });

  it('no command at all shows the help on stderr', async () => {
    const result = await keypanel([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: keypanel [options] [command]');
  });

  it('every command has --help with examples', async () => {
    const commands = [
      'login',
      'logout',
      'whoami',
      'token',
      'token create',
      'token list',
      'token revoke',
      'keys',
      'keys generate',
      'keys list',
      'keys export',
      'keys revoke',
      'keys delete',
      'keys entitlements',
      'keys usage',
      'keys top-up',
      'users',
      'users list',
      'users create',
      'users credit',
      'users deactivate',
      'products',
      'products list',
      'products create',
      'products update',
      'purchase',
      'settings',
      'settings get',
      'settings set',
      'stats',
      'license',
      'license activate',
      'license validate',
      'license deactivate',
      'license consume',
      'license verify-token',
    ];
    const results = await Promise.all(commands.map((c) => keypanel([...c.split(' '), '--help'])));
    results.forEach((result, i) => {
      expect(result.code, commands[i]).toBe(0);
      expect(result.stdout, commands[i]).toContain(`Usage: keypanel ${commands[i]}`);
      expect(result.stdout, commands[i]).toMatch(/Examples?:\n {2}\$ keypanel /);
    });
  });

  it('--help and --version succeed, on stdout', async () => {
    const help = await keypanel(['keys', 'export', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: keypanel keys export [options]');
    expect(help.stdout).toContain('Examples:');
    const helpCommand = await keypanel(['help', 'keys']);
    expect(helpCommand.code).toBe(0);
    expect(helpCommand.stdout).toContain('Usage: keypanel keys [options] [command]');
    const version = await keypanel(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });
});

describe('errors from the API or the network exit 1', () => {
  it("shows the API's own message", async () => {
    expectFailure(
      await keypanel(['keys', 'revoke', '0123456789abcdef01234567', '--reason', 'gone'], { home: ownerHome }),
      1,
      'Error: License key not found',
    );
  });

  it('shows a refusal for the wrong role', async () => {
    const user = await createUser('user');
    const home = signedInHome(await signIn(user));
    expectFailure(await keypanel(['settings', 'get'], { home }), 1, 'Error: You do not have permission to do this');
  });

  it('reports a server that does not answer', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const result = await keypanel(['products', 'list'], {
      home: ownerHome,
      env: { KEYPANEL_URL: `http://127.0.0.1:${port}`, KEYPANEL_TOKEN: 'kp_unused' },
    });
    expectFailure(result, 1, `Could not reach KeyPanel at http://127.0.0.1:${port}: connection refused.`);
  });

  it('tells a signed-out user to log in, without calling the server', async () => {
    const result = await keypanel(['keys', 'list'], { env: { KEYPANEL_URL: 'http://127.0.0.1:9' } });
    expectFailure(result, 1, 'Error: You are not signed in.\nRun `keypanel login` to sign in.');
  });

  it('tells the user to log in again when the stored session is refused', async () => {
    const home = configHome();
    mkdirSync(path.join(home, 'keypanel'));
    writeFileSync(
      path.join(home, 'keypanel', 'config.json'),
      JSON.stringify({ url: baseURL(), token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bad' }),
    );
    const result = await keypanel(['whoami'], { home });
    expectFailure(result, 1, 'Error: Your session has expired. Please sign in again.\nRun `keypanel login` to sign in again.');
  });

  it('does not send the stored session to another server named by KEYPANEL_URL', async () => {
    const result = await keypanel(['whoami'], { home: ownerHome, env: { KEYPANEL_URL: 'http://127.0.0.1:9' } });
    expectFailure(result, 1, 'You are not signed in.');
  });

  it('reports a config file that is not JSON', async () => {
    const home = configHome();
    mkdirSync(path.join(home, 'keypanel'));
    writeFileSync(path.join(home, 'keypanel', 'config.json'), '{oops');
    expectFailure(await keypanel(['whoami'], { home }), 2, 'is not a valid KeyPanel config file');
  });
});
