// Air-gapped activation from a terminal: the SDK (Node entry) writes the device's request file, the
// key's holder turns it into the response file with `keypanel license offline-activate`, the SDK
// verifies it offline; the device's deactivation proof goes back with `offline-deactivate`.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLicensing, memoryStore } from '../../sdk/src/index';
import { applyOfflineResponseFile, writeDeactivationProof, writeOfflineRequest } from '../../sdk/src/node';
import { apiCall, baseURL, createProduct, createUser, json, keypanel, readConfig, signedInHome, signIn } from './helpers';

/** Signed in, with the server's licensing key pinned (as `keypanel login` leaves it). */
function pinnedHome(token: string, pem: string) {
  const home = signedInHome(token);
  const config = path.join(home, 'keypanel', 'config.json');
  writeFileSync(config, JSON.stringify({ ...readConfig(config), publicKeys: { [baseURL()]: pem } }));
  return home;
}

describe('keypanel license offline-activate / offline-deactivate', () => {
  it("turns the device's request file into a response file it verifies, and its proof frees the slot once", async () => {
    const product = await createProduct({ maxActivations: 1 });
    const customer = await createUser('user', { credits: 100 });
    const token = await signIn(customer);
    const bought = await apiCall('POST', '/api/keys/purchase', { token, body: { productId: product._id, duration: 5 } });
    expect(bought.status).toBe(201);
    const key = bought.body.licenseKey.key;
    const pem = (await apiCall('GET', '/api/v1/licenses/public-key')).body.pem;
    const home = pinnedHome(token, pem);
    const dir = mkdtempSync(path.join(tmpdir(), 'keypanel-airgap-'));
    const file = (name: string) => path.join(dir, name);

    // The offline machine: the SDK, the server's public key shipped inside it, no network needed.
    const sdk = createLicensing({ url: 'http://offline.invalid', publicKey: pem, store: memoryStore() });
    const fingerprint = 'lab-machine-0001';
    await writeOfflineRequest(sdk, file('request.json'), { key, fingerprint });

    const activated = await keypanel(
      ['license', 'offline-activate', file('request.json'), '--output', file('response.json'), '--format', 'json'],
      { home },
    );
    expect(activated.code, activated.stderr).toBe(0);
    expect(json(activated.stdout)).toMatchObject({ code: 'OFFLINE_ACTIVATED', key, written: file('response.json') });
    const applied = await applyOfflineResponseFile(sdk, file('response.json'), { fingerprint });
    expect(applied).toMatchObject({ valid: true, code: 'OFFLINE_ACTIVATED', offlineToken: { key, fingerprint } });

    // The same request again: its nonce was used; no file is written and the exit code says so.
    const again = await keypanel(
      ['license', 'offline-activate', file('request.json'), '--output', file('again.json'), '--format', 'json'],
      { home },
    );
    expect(again.code).toBe(1);
    expect(json(again.stdout)).toMatchObject({ code: 'NONCE_ALREADY_USED' });
    expect(again.stderr).toContain('NONCE_ALREADY_USED');
    expect(existsSync(file('again.json'))).toBe(false);

    // Not a request, and someone else's key: clear refusals.
    writeFileSync(file('junk.json'), '{"type":"nope"}');
    const junk = await keypanel(['license', 'offline-activate', file('junk.json')], { home });
    expect(junk.code).toBe(2);
    expect(junk.stderr).toContain('This is not an offline activation request');
    const stranger = pinnedHome(await signIn(await createUser('user')), pem);
    const theirs = await keypanel(['license', 'offline-activate', file('request.json'), '--output', file('x.json')], { home: stranger });
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toContain('License key not found');

    await writeDeactivationProof(sdk, file('proof.json'), { key, fingerprint });
    const freed = await keypanel(['license', 'offline-deactivate', file('proof.json'), '--format', 'json'], { home });
    expect(freed.code, freed.stderr).toBe(0);
    expect(json(freed.stdout)).toMatchObject({ code: 'DEACTIVATED', key });
    const twice = await keypanel(['license', 'offline-deactivate', file('proof.json'), '--format', 'json'], { home });
    expect(twice.code).toBe(1);
    expect(json(twice.stdout)).toMatchObject({ code: 'NOT_ACTIVATED' });
    const written = JSON.parse(readFileSync(file('proof.json'), 'utf8')) as { type: string };
    expect(written.type).toBe('keypanel.offline-deactivation-proof');
  });
});
