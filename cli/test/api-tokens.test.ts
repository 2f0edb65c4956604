// API tokens from the CLI: created from a signed-in session, used by a script through
// KEYPANEL_TOKEN, bound to their role and read-only flag, refused as soon as they are revoked.
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { describe, expect, it } from 'vitest';
import {
  apiCall,
  createProduct,
  createUser,
  csvRecords,
  keypanel,
  ownerCredentials,
  ownerSession,
  PASSWORD,
  signedInHome,
  signIn,
  json,
  type Schemas,
} from './helpers';

/** Creates a token as a script would, confirming with KEYPANEL_PASSWORD (the owner's unless given). */
async function createToken(home: string, args: string[], password = ownerCredentials().password) {
  const result = await keypanel(['token', 'create', ...args, '--format', 'json'], { home, env: { KEYPANEL_PASSWORD: password } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain('Copy it now: it is shown only once.');
  return JSON.parse(result.stdout) as { token: string; apiToken: { _id: string; name: string; role: string; readOnly: boolean } };
}

/** Runs the CLI as a script would: no config file, only KEYPANEL_TOKEN. */
const asScript = (token: string, args: string[]) => keypanel(args, { env: { KEYPANEL_TOKEN: token } });

describe('keypanel token and KEYPANEL_TOKEN', () => {
  it('creates a token, uses it from a script, lists its last use, and is refused after revocation', async () => {
    const ownerHome = signedInHome(await ownerSession());
    const product = await createProduct();
    const { token, apiToken } = await createToken(ownerHome, ['--name', 'nightly generation', '--role', 'owner']);
    expect(token).toMatch(/^kp_/);
    expect(apiToken).toMatchObject({ name: 'nightly generation', role: 'owner', readOnly: false });

    const whoami = await asScript(token, ['whoami', '--format', 'json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(json<{ user: Schemas['User'] }>(whoami.stdout).user.role).toBe('owner');
    const generated = await asScript(token, ['keys', 'generate', '--product', product.keyTag, '--quantity', '3', '--format', 'csv']);
    expect(generated.code, generated.stderr).toBe(0);
    expect(csvRecords(generated.stdout)).toHaveLength(3);

    const list = await keypanel(['token', 'list', '--format', 'json'], { home: ownerHome });
    const listed = (JSON.parse(list.stdout) as Array<{ _id: string; lastUsedAt: string | null }>).find((t) => t._id === apiToken._id)!;
    expect(Date.parse(listed.lastUsedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(list.stdout).not.toContain(token);

    const revoke = await keypanel(['token', 'revoke', apiToken._id], { home: ownerHome });
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.stderr).toContain('API token "nightly generation" revoked');

    const refused = await asScript(token, ['keys', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('Error: This API token is not valid or has been revoked');
    expect(refused.stderr).toContain('Check KEYPANEL_TOKEN (it may have been revoked), or unset it and run `keypanel login`.');
  });

  it('keeps a token to its role and its read-only flag', async () => {
    const ownerHome = signedInHome(await ownerSession());
    const { token: resellerToken } = await createToken(ownerHome, ['--name', 'reseller scope', '--role', 'reseller']);
    const settings = await asScript(resellerToken, ['settings', 'get']);
    expect(settings.code).toBe(1);
    expect(settings.stderr).toContain('Error: You do not have permission to do this');
    expect((await asScript(resellerToken, ['keys', 'list', '--format', 'csv'])).code).toBe(0);

    const { token: readOnly } = await createToken(ownerHome, ['--name', 'read only', '--role', 'owner', '--read-only']);
    expect((await asScript(readOnly, ['settings', 'get', 'maxKeysPerGeneration'])).stdout).toMatch(/^\d+\n$/);
    const write = await asScript(readOnly, [
      'products',
      'create',
      '--name',
      'Nope',
      '--description',
      'x',
      '--key-tag',
      'NOPE',
      '--base-cost',
      '1',
    ]);
    expect(write.code).toBe(1);
    expect(write.stderr).toContain('Error: This API token is read-only');
  });

  it('cannot make more tokens, and a reseller cannot make an owner token', async () => {
    const ownerHome = signedInHome(await ownerSession());
    const { token } = await createToken(ownerHome, ['--name', 'no minting', '--role', 'owner']);
    const minted = await asScript(token, ['token', 'create', '--name', 'child', '--role', 'owner']);
    expect(minted.code).toBe(1);
    expect(minted.stderr).toContain('API tokens cannot do this: it needs proof of who you are');

    const reseller = await createUser('reseller');
    const resellerHome = signedInHome(await signIn(reseller));
    const tooHigh = await keypanel(['token', 'create', '--name', 'x', '--role', 'owner'], {
      home: resellerHome,
      env: { KEYPANEL_PASSWORD: PASSWORD },
    });
    expect(tooHigh.code).toBe(1);
    expect(tooHigh.stderr).toContain("A token's role cannot be above your own role (reseller)");
    const user = await createUser('user');
    const userTry = await keypanel(['token', 'create', '--name', 'x', '--role', 'user'], { home: signedInHome(await signIn(user)) });
    expect(userTry.code).toBe(1);
    expect(userTry.stderr).toContain('You do not have permission to do this');
  });

  it("lets a reseller's read-only token export only the reseller's keys", async () => {
    const reseller = await createUser('reseller', { credits: 1000 });
    const customer = await createUser('user');
    const product = await createProduct();
    const resellerHome = signedInHome(await signIn(reseller));
    const bought = await keypanel(['purchase', '--user', customer.email, '--product', product.keyTag, '--days', '10', '--format', 'json'], {
      home: resellerHome,
    });
    expect(bought.code, bought.stderr).toBe(0);
    const { token } = await createToken(resellerHome, ['--name', 'export', '--role', 'reseller', '--read-only'], PASSWORD);
    const exported = await asScript(token, ['keys', 'export']);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = csvRecords(exported.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      key: json<Schemas['PurchaseForUserResponse']>(bought.stdout).licenseKey.key,
      purchasedBy: customer.username,
      createdBy: reseller.username,
      status: 'used',
    });
  });
});

describe('keypanel token create confirms it is you', () => {
  const tokensOf = async (session: string) => (await apiCall('GET', '/api/users/api-tokens', { token: session })).body.tokens as unknown[];
  const create = (home: string, options: { input?: string; env?: Record<string, string> } = {}) =>
    keypanel(['token', 'create', '--name', 'ci', '--role', 'user', '--format', 'json'], { home, ...options });

  it('asks for the password when the server wants it, and takes it piped in', async () => {
    const reseller = await createUser('reseller');
    const session = await signIn(reseller);
    const made = await create(signedInHome(session), { input: `${PASSWORD}\n` });
    expect(made.code, made.stderr).toBe(0);
    expect(json<Schemas['CreatedApiToken']>(made.stdout).token).toMatch(/^kp_/);
    expect(await tokensOf(session)).toHaveLength(1);
  });

  it('takes a two-factor code instead (an empty password line, then the code)', async () => {
    const reseller = await createUser('reseller');
    const session = await signIn(reseller);
    const setup = await apiCall('POST', '/api/users/setup-2fa', { token: session, body: { currentPassword: PASSWORD } });
    const key = decodeBase32IgnorePadding(setup.body.secret);
    const totp = (offset: number) => generateHOTP(key, BigInt(Math.floor(Date.now() / 30_000) + offset), 6);
    expect((await apiCall('POST', '/api/users/verify-2fa', { token: session, body: { code: totp(0) } })).status).toBe(200);
    const made = await create(signedInHome(session), { input: `\n${totp(1)}\n` });
    expect(made.code, made.stderr).toBe(0);
    expect(await tokensOf(session)).toHaveLength(1);
  });

  it('refuses a wrong KEYPANEL_PASSWORD and makes nothing; with no answer at all it says what it needs', async () => {
    const reseller = await createUser('reseller');
    const session = await signIn(reseller);
    const wrong = await create(signedInHome(session), { env: { KEYPANEL_PASSWORD: 'not-my-password' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Error: Password is incorrect');
    const silent = await create(signedInHome(session));
    expect(silent.code).toBe(2);
    expect(silent.stderr).toContain('Expected the current password on standard input');
    expect(await tokensOf(session)).toEqual([]);
  });
});
