// API tokens from the CLI: created from a signed-in session, used by a script through
// KEYPANEL_TOKEN, bound to their role and read-only flag, refused as soon as they are revoked.
import { describe, expect, it } from 'vitest';
import { createProduct, createUser, csvRecords, keypanel, ownerSession, signedInHome, signIn } from './helpers';

async function createToken(home: string, args: string[]) {
  const result = await keypanel(['token', 'create', ...args, '--format', 'json'], { home });
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
    expect(JSON.parse(whoami.stdout).user.role).toBe('owner');
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
    const write = await asScript(readOnly, ['products', 'create', '--name', 'Nope', '--description', 'x', '--key-tag', 'NOPE', '--base-cost', '1']);
    expect(write.code).toBe(1);
    expect(write.stderr).toContain('Error: This API token is read-only');
  });

  it('cannot make more tokens, and a reseller cannot make an owner token', async () => {
    const ownerHome = signedInHome(await ownerSession());
    const { token } = await createToken(ownerHome, ['--name', 'no minting', '--role', 'owner']);
    const minted = await asScript(token, ['token', 'create', '--name', 'child', '--role', 'owner']);
    expect(minted.code).toBe(1);
    expect(minted.stderr).toContain('API tokens cannot manage account security');

    const reseller = await createUser('reseller');
    const resellerHome = signedInHome(await signIn(reseller));
    const tooHigh = await keypanel(['token', 'create', '--name', 'x', '--role', 'owner'], { home: resellerHome });
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
    const bought = await keypanel(['purchase', '--user', customer.email, '--product', product.keyTag, '--days', '10', '--format', 'json'], { home: resellerHome });
    expect(bought.code, bought.stderr).toBe(0);
    const { token } = await createToken(resellerHome, ['--name', 'export', '--role', 'reseller', '--read-only']);
    const exported = await asScript(token, ['keys', 'export']);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = csvRecords(exported.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ key: JSON.parse(bought.stdout).licenseKey.key, purchasedBy: customer.username, createdBy: reseller.username, status: 'used' });
  });
});
