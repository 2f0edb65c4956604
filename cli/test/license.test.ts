// The licensing API as a developer exercises it from a terminal, down to the offline token
// checked with the public key alone; answers and tokens go through the SDK's verification.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  baseURL,
  createProduct,
  json,
  keypanel,
  ownerCredentials,
  ownerSession,
  signedInHome,
  unique,
  type Schemas,
  readConfig,
} from './helpers';

type Answer = Schemas['LicenseAnswer'];

let home: string;
beforeAll(async () => {
  home = signedInHome(await ownerSession());
});

describe('keypanel license', () => {
  it('activates, validates and deactivates a key, and verifies the offline token with the public key', async () => {
    const product = await createProduct({ maxActivations: 1 });
    const [key] = json<Array<{ key: string }>>(
      (await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '1', '--format', 'json'], { home })).stdout,
    );
    const fingerprint = `device-${unique('fp')}`;
    // The licensing API needs no sign-in: no config, no token; the public key comes as an app ships it.
    const shipped = path.join(mkdtempSync(path.join(tmpdir(), 'keypanel-license-key-')), 'keypanel.pem');
    writeFileSync(shipped, (await apiCall('GET', '/api/v1/licenses/public-key')).body.pem);
    const activate = await keypanel([
      'license',
      'activate',
      '--key',
      key.key,
      '--fingerprint',
      fingerprint,
      '--nonce',
      'n-1',
      '--public-key',
      shipped,
      '--format',
      'json',
    ]);
    expect(activate.code, activate.stderr).toBe(0);
    const answer = json<Answer>(activate.stdout);
    expect(answer).toMatchObject({
      valid: true,
      code: 'VALID',
      nonce: 'n-1',
      license: { key: key.key, status: 'used', activationCount: 1, maxActivations: 1 },
    });
    const token = answer.license!.token!;

    const second = await keypanel([
      'license',
      'activate',
      '--key',
      key.key,
      '--fingerprint',
      `${fingerprint}-other`,
      '--public-key',
      shipped,
      '--format',
      'json',
    ]);
    expect(second.code).toBe(1);
    expect(json<Answer>(second.stdout).code).toBe('DEVICE_LIMIT_REACHED');
    expect(second.stderr).toContain('Error: DEVICE_LIMIT_REACHED');

    // The key pinned at sign-in is what the checks use.
    const home2 = mkdtempSync(path.join(tmpdir(), 'keypanel-license-'));
    const { email, password } = ownerCredentials();
    expect((await keypanel(['login', '--email', email], { home: home2, input: `${password}\n` })).code).toBe(0);
    const verified = await keypanel(['license', 'verify-token', token, '--fingerprint', fingerprint, '--format', 'json'], { home: home2 });
    expect(verified.code, verified.stderr).toBe(0);
    expect(json(verified.stdout)).toMatchObject({
      valid: true,
      key: key.key,
      fingerprint,
      product: product.keyTag,
      expiryModel: 'time-limited',
    });
    const configFile = path.join(home2, 'keypanel', 'config.json');
    const config = readConfig(configFile);
    const pem = config.publicKeys?.[baseURL()] ?? '';
    expect(pem).toContain('BEGIN PUBLIC KEY');
    const stranger = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(configFile, JSON.stringify({ ...config, publicKeys: { [baseURL()]: stranger } }));
    const withStranger = await keypanel(['license', 'verify-token', token], { home: home2 });
    expect(withStranger.code).toBe(1);
    expect(withStranger.stderr).toContain('the signature does not match this public key');
    // The calls verify answers with the same kept key (through the SDK): the server's own answer is refused.
    const refused = await keypanel(['license', 'validate', '--key', key.key, '--fingerprint', fingerprint, '--format', 'json'], {
      home: home2,
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `The server at ${baseURL()} sent a licensing answer the public key does not verify (The answer is not signed by the pinned public key).`,
    );
    expect(refused.stderr).toContain('keypanel login --repin');
    const pemFile = path.join(home2, 'public.pem');
    writeFileSync(pemFile, pem);
    const fromFile = await keypanel(['license', 'verify-token', token, '--public-key', pemFile, '--format', 'json'], {
      env: { KEYPANEL_URL: 'http://127.0.0.1:9' },
    });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(json<{ valid: boolean }>(fromFile.stdout).valid).toBe(true);
    const fromStdin = await keypanel(
      ['license', 'verify-token', '-', '--public-key', pemFile, '--key', key.key.toLowerCase(), '--format', 'csv'],
      { input: `${token}\n` },
    );
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout.split('\r\n')[1].startsWith(`true,${key.key},${fingerprint},${product.keyTag},`)).toBe(true);

    const wrongDevice = await keypanel(['license', 'verify-token', token, '--public-key', pemFile, '--fingerprint', 'someone-else'], {});
    expect(wrongDevice.code).toBe(1);
    expect(wrongDevice.stderr).toContain('The token is not valid: it was issued for another device fingerprint.');
    const [head, body, signature] = token.split('.');
    const tampered = `${head}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const forged = await keypanel(['license', 'verify-token', tampered, '--public-key', pemFile]);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain('The token is not valid: the signature does not match this public key.');

    const validate = await keypanel(
      ['license', 'validate', '--key', key.key, '--fingerprint', fingerprint, '--public-key', pemFile, '--format', 'json'],
      { home: home2 },
    );
    expect(validate.code, validate.stderr).toBe(0);
    expect(json(validate.stdout)).toMatchObject({ valid: true, code: 'VALID', nonce: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown });
    expect(json<Answer>(validate.stdout).license!.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const deactivate = await keypanel([
      'license',
      'deactivate',
      '--key',
      key.key,
      '--fingerprint',
      fingerprint,
      '--public-key',
      shipped,
      '--format',
      'json',
    ]);
    expect(deactivate.code, deactivate.stderr).toBe(0);
    expect(json<Answer>(deactivate.stdout).code).toBe('DEACTIVATED');
    // The slot stays held while the device's offline token may live.
    expect(Date.parse(json<Answer>(deactivate.stdout).slotFreesAt!)).toBeGreaterThan(Date.now());
    const after = await keypanel([
      'license',
      'validate',
      '--key',
      key.key,
      '--fingerprint',
      fingerprint,
      '--public-key',
      shipped,
      '--format',
      'json',
    ]);
    expect(after.code).toBe(1);
    expect(json(after.stdout)).toMatchObject({ valid: false, code: 'NOT_ACTIVATED', license: { key: key.key, token: null } });
  });

  it('keeps a floating seat with heartbeats, swaps a device, shows the seats, and starts one trial per device', async () => {
    const product = await createProduct({ licenseModel: 'floating', maxActivations: 1, leaseMinutes: 30, swapLimit: 2, trialDays: 5 });
    const [key] = json<Array<{ key: string }>>(
      (await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '1', '--format', 'json'], { home })).stdout,
    );
    const shipped = path.join(mkdtempSync(path.join(tmpdir(), 'keypanel-license-key-')), 'keypanel.pem');
    writeFileSync(shipped, (await apiCall('GET', '/api/v1/licenses/public-key')).body.pem);
    const license = (...args: string[]) => keypanel(['license', ...args, '--public-key', shipped, '--format', 'json']);
    const [one, two] = [`device-${unique('one')}`, `device-${unique('two')}`];
    expect((await license('activate', '--key', key.key, '--fingerprint', one)).code).toBe(0);
    const full = await license('activate', '--key', key.key, '--fingerprint', two);
    expect(full.code).toBe(1);
    const refused = json<Answer>(full.stdout);
    expect(refused.code).toBe('NO_SEAT_AVAILABLE');
    expect(refused.devices).toHaveLength(1);

    const beat = await license('heartbeat', '--key', key.key, '--fingerprint', one);
    expect(beat.code, beat.stderr).toBe(0);
    expect(Date.parse(json<Answer>(beat.stdout).leaseExpiresAt!)).toBeGreaterThan(Date.now() + 29 * 60_000);

    const swap = await license('replace-device', '--key', key.key, '--fingerprint', two, '--replace', refused.devices![0].id);
    expect(swap.code, swap.stderr).toBe(0);
    expect(json<Answer>(swap.stdout)).toMatchObject({ valid: true, code: 'DEVICE_REPLACED', license: { key: key.key } });
    expect((await license('replace-device', '--key', key.key, '--fingerprint', one, '--replace', 'x'.repeat(65))).code).toBe(2);

    const shown = await keypanel(['keys', 'show', key.key, '--format', 'table'], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/seats\s+1\/1/);
    expect(shown.stdout).toMatch(new RegExp(`seat 1\\s+\\w+ ${two}, lease until \\S+, last heartbeat`));
    const shownJson = json<Schemas['LicenseKey']>((await keypanel(['keys', 'show', key.key, '--format', 'json'], { home })).stdout);
    expect(shownJson.activations.map((a) => a.deviceFingerprint)).toEqual([two]);

    // An update through the CLI keeps the licensing fields it was not given (the API replaces the whole product).
    const updated = await keypanel(['products', 'update', product.keyTag, '--per-day', '2', '--format', 'json'], { home });
    expect(updated.code, updated.stderr).toBe(0);
    expect(json<Schemas['Product']>(updated.stdout)).toMatchObject({
      creditsPerDay: 2,
      licenseModel: 'floating',
      leaseMinutes: 30,
      swapLimit: 2,
      trialDays: 5,
    });
    const swaps = await keypanel(['products', 'update', product.keyTag, '--swap-limit', 'none', '--format', 'json'], { home });
    expect(json<Schemas['Product']>(swaps.stdout)).toMatchObject({ swapLimit: null, licenseModel: 'floating' });

    const trial = await license('trial', '--key-tag', product.keyTag.toLowerCase(), '--fingerprint', one);
    expect(trial.code, trial.stderr).toBe(0);
    expect(json<Answer>(trial.stdout)).toMatchObject({ valid: true, code: 'TRIAL_STARTED', license: { trial: true } });
    const again = await license('trial', '--key-tag', product.keyTag, '--fingerprint', one);
    expect(again.code).toBe(1);
    expect(json<Answer>(again.stdout).code).toBe('TRIAL_ALREADY_USED');
  });

  it('grants entitlements, consumes uses once per idempotency key, tops up and shows the usage of a metered key', async () => {
    const product = await createProduct({ maxActivations: 1, entitlements: ['pro'], usageAllowance: 3 });
    const [key] = json<Array<{ key: string }>>(
      (await keypanel(['keys', 'generate', '--product', product.keyTag, '--quantity', '1', '--format', 'json'], { home })).stdout,
    );
    const shipped = path.join(mkdtempSync(path.join(tmpdir(), 'keypanel-license-key-')), 'keypanel.pem');
    writeFileSync(shipped, (await apiCall('GET', '/api/v1/licenses/public-key')).body.pem);
    const license = (...args: string[]) => keypanel(['license', ...args, '--public-key', shipped, '--format', 'json']);
    const fingerprint = `device-${unique('use')}`;

    const granted = await keypanel(['keys', 'entitlements', key.key, '--set', 'beta', '--format', 'json'], { home });
    expect(granted.code, granted.stderr).toBe(0);
    expect(json(granted.stdout)).toEqual({ key: key.key, entitlements: ['beta', 'pro'], granted: ['beta'] });
    expect((await keypanel(['keys', 'entitlements', key.key, '--set', 'Not Valid'], { home })).code).toBe(2);

    const activated = await license('activate', '--key', key.key, '--fingerprint', fingerprint);
    expect(json<Answer>(activated.stdout).license).toMatchObject({ entitlements: ['beta', 'pro'], usage: { remaining: 3 } });
    const consume = (id: string, amount = '2') =>
      license('consume', '--key', key.key, '--fingerprint', fingerprint, '--amount', amount, '--idempotency-key', id);
    const first = await consume('job-1');
    expect(first.code, first.stderr).toBe(0);
    expect(json<Answer>(first.stdout)).toMatchObject({ valid: true, code: 'CONSUMED', license: { usage: { remaining: 1 } } });
    // Sent again, the same debit answers alike and takes nothing more.
    expect(json<Answer>((await consume('job-1')).stdout)).toMatchObject({ code: 'CONSUMED', license: { usage: { remaining: 1 } } });
    const exhausted = await consume('job-2');
    expect(exhausted.code).toBe(1);
    expect(json<Answer>(exhausted.stdout)).toMatchObject({ valid: false, code: 'USAGE_EXHAUSTED', license: { usage: { remaining: 1 } } });
    expect(exhausted.stderr).toContain('USAGE_EXHAUSTED');

    const topUp = await keypanel(['keys', 'top-up', key.key, '--amount', '10', '--format', 'json'], { home });
    expect(topUp.code, topUp.stderr).toBe(0);
    expect(json<Schemas['LicenseKey']>(topUp.stdout).usage).toMatchObject({ remaining: 11 });
    expect((await keypanel(['keys', 'top-up', key.key, '--amount', '0'], { home })).code).toBe(2);
    expect((await consume('job-2')).code).toBe(0);

    const usage = await keypanel(['keys', 'usage', key.key, '--format', 'json'], { home });
    expect(usage.code, usage.stderr).toBe(0);
    expect(json<Schemas['KeyUsage']>(usage.stdout)).toMatchObject({
      usage: { remaining: 9, allowance: 3 },
      consumed: 4,
      toppedUp: 10,
      history: [
        { kind: 'consume', amount: 2, remaining: 9 },
        { kind: 'top_up', amount: 10, remaining: 11 },
        { kind: 'consume', amount: 2, remaining: 1 },
      ],
    });
    // An update through the CLI keeps the product's entitlements and allowance it was not given.
    const updated = await keypanel(
      ['products', 'update', product.keyTag, '--refill-amount', '5', '--refill-days', '30', '--format', 'json'],
      {
        home,
      },
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(json<Schemas['Product']>(updated.stdout)).toMatchObject({
      entitlements: ['pro'],
      usageAllowance: 3,
      usageRefillAmount: 5,
      usageRefillDays: 30,
    });
  });
});
