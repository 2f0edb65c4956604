// Signing in from a script (the password piped on stdin), the two-factor step, the config file and
// its mode, whoami and logout.
import { statSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { describe, expect, it } from 'vitest';
import { apiCall, baseURL, configHome, createUser, keypanel, signIn, json, readConfig, type Schemas } from './helpers';

const configFile = (home: string) => path.join(home, 'keypanel', 'config.json');

/** What an authenticator app shows `offset` 30-second steps from now. */
const totp = (secret: string, offset = 0) =>
  generateHOTP(decodeBase32IgnorePadding(secret), BigInt(Math.floor(Date.now() / 30_000) + offset), 6);

describe('keypanel login', () => {
  it('reads the password from stdin, keeps the session in a 0600 file under XDG_CONFIG_HOME, and whoami uses it', async () => {
    const user = await createUser('reseller', { credits: 42 });
    const home = configHome();
    const login = await keypanel(['login', '--url', baseURL(), '--email', user.email.toUpperCase()], {
      home,
      input: `${user.password}\n`,
      env: { KEYPANEL_URL: undefined },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toContain(`Signed in to ${baseURL()} as ${user.username} (reseller).`);
    expect(login.stderr).not.toContain(user.password);
    const file = configFile(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const config = readConfig(file);
    expect(config).toMatchObject({ url: baseURL(), user: { username: user.username, email: user.email, role: 'reseller' } });
    expect(config.token).toMatch(/^eyJ/);

    const whoami = await keypanel(['whoami', '--format', 'json'], { home, env: { KEYPANEL_URL: undefined } });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ url: baseURL(), user: { username: user.username, role: 'reseller', credits: 42 } });
    const csv = await keypanel(['whoami', '--format', 'csv'], { home });
    expect(csv.stdout).toBe(
      `url,username,email,role,credits,balance,twoFactorEnabled\r\n${baseURL()},${user.username},${user.email},reseller,42,0.00,false\r\n`,
    );
  });

  it('refuses a wrong password with the API message and writes nothing', async () => {
    const user = await createUser('user');
    const home = configHome();
    const login = await keypanel(['login', '--email', user.email], { home, input: 'WrongPass1\n' });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('Error: Invalid email or password');
    expect(existsSync(configFile(home))).toBe(false);
  });

  it('asks for the password when none is piped in, and says so', async () => {
    const user = await createUser('user');
    const login = await keypanel(['login', '--email', user.email], { input: '' });
    expect(login.code).toBe(2);
    expect(login.stderr).toContain('Expected the password on standard input, but it ended.');
  });

  it('reads the email too when --email is missing', async () => {
    const user = await createUser('user');
    const home = configHome();
    const login = await keypanel(['login'], { home, input: `${user.email}\n${user.password}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(readConfig(configFile(home)).user?.email).toBe(user.email);
  });

  it('asks for the two-factor code when the account has one, then signs in', async () => {
    const user = await createUser('owner');
    const session = await signIn(user);
    const setup = await apiCall('POST', '/api/users/setup-2fa', { token: session, body: { currentPassword: user.password } });
    const secret = setup.body.secret;
    expect((await apiCall('POST', '/api/users/verify-2fa', { token: session, body: { code: totp(secret) } })).status).toBe(200);

    // Without a code on stdin, the step is refused clearly.
    const missing = await keypanel(['login', '--email', user.email], { input: `${user.password}\n` });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Expected a two-factor code on standard input');

    const wrong = await keypanel(['login', '--email', user.email], { input: `${user.password}\n000000\n` });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Error: (Invalid two-factor code|This code was already used)/);

    // The next step's code: the current one was spent turning two-factor on.
    const home = configHome();
    const login = await keypanel(['login', '--email', user.email], { home, input: `${user.password}\n${totp(secret, 1)}\n` });
    expect(login.code, login.stderr).toBe(0);
    const whoami = await keypanel(['whoami', '--format', 'json'], { home });
    expect(json<{ user: Schemas['User'] }>(whoami.stdout).user).toMatchObject({ email: user.email, twoFactorEnabled: true });

    // A recovery token works in place of the code, given with --code.
    const { body } = await apiCall('POST', '/api/users/recovery-tokens', { token: session, body: { currentPassword: user.password } });
    const withToken = await keypanel(['login', '--email', user.email, '--code', body.tokens[0]], {
      home: configHome(),
      input: `${user.password}\n`,
    });
    expect(withToken.code, withToken.stderr).toBe(0);
  });
});

describe('keypanel logout', () => {
  it('ends the session on the server and forgets it, keeping the address', async () => {
    const user = await createUser('user');
    const home = configHome();
    expect((await keypanel(['login', '--email', user.email], { home, input: `${user.password}\n` })).code).toBe(0);
    const token = readConfig(configFile(home)).token;
    expect((await apiCall('GET', '/api/users/profile', { token })).status).toBe(200);

    const logout = await keypanel(['logout'], { home });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain(`Signed out of ${baseURL()}.`);
    // The licensing key pinned at sign-in stays, as a known host would.
    expect(JSON.parse(readFileSync(configFile(home), 'utf8'))).toEqual({
      url: baseURL(),
      publicKeys: { [baseURL()]: expect.stringContaining('PUBLIC KEY') as unknown },
    });
    expect((await apiCall('GET', '/api/users/profile', { token })).status).toBe(401);

    const whoami = await keypanel(['whoami'], { home });
    expect(whoami.code).toBe(1);
    expect(whoami.stderr).toContain('Run `keypanel login` to sign in.');
    expect((await keypanel(['logout'], { home })).stderr).toContain('You were not signed in.');
  });
});
