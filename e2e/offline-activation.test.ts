// Issue 31's air-gapped journey: the licensing SDK (its Node entry) on a machine without network
// writes an activation request file; the customer uploads it in My Keys and downloads the signed
// response file, which the SDK verifies offline; later the device's deactivation proof, brought back
// the same way, frees its slot for another device.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLicensing } from '../sdk/src/index';
import { applyOfflineResponseFile, fileStore, writeDeactivationProof, writeOfflineRequest } from '../sdk/src/node';
import {
  apiCall,
  apiLogin,
  baseURL,
  customerWithKey,
  launchBrowser,
  newPage,
  ownerCredentials,
  screenshot,
  textOf,
  visible,
} from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('air-gapped activation in the browser', () => {
  it('activates a device with no network through My Keys with the request file the SDK wrote, and frees it with its proof', async () => {
    const ownerToken = await apiLogin(ownerCredentials());
    const tag = `AG${Date.now().toString(36).toUpperCase()}`.slice(0, 10);
    const made = await apiCall(
      'POST',
      '/api/products',
      {
        name: `Lab Suite ${tag}`,
        description: 'For machines off the network',
        keyTag: tag,
        baseCreditCost: 10,
        creditsPerDay: 1,
        maxActivations: 1,
      },
      ownerToken,
    );
    expect(made.status).toBe(201);
    const { context, page } = await newPage(browser, { mobile: true });
    const { key } = await customerWithKey(page, ownerToken, made.body._id);

    // The offline machine: the SDK with the server's public key shipped in the app, its state in a file.
    const dir = mkdtempSync(path.join(tmpdir(), 'keypanel-airgap-e2e-'));
    const pem = (await apiCall('GET', '/api/v1/licenses/public-key')).body.pem;
    const offlineSdk = createLicensing({
      url: 'http://no-network.invalid',
      publicKey: pem,
      store: fileStore(path.join(dir, 'license.json')),
    });
    const fingerprint = `lab-${tag.toLowerCase()}-0001`;
    await writeOfflineRequest(offlineSdk, path.join(dir, 'request.json'), { key, fingerprint, deviceInfo: { model: 'Lab PC' } });

    // The customer, on a connected machine, uploads it in My Keys and downloads the response.
    await page.goto('/my-keys');
    const section = page.getByRole('region', { name: 'Air-gapped devices' });
    await section.getByLabel('Activation request file').setInputFiles(path.join(dir, 'request.json'));
    const downloading = page.waitForEvent('download');
    await section.getByRole('button', { name: 'Create response file' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('keypanel-offline-response.json');
    await download.saveAs(path.join(dir, 'response.json'));
    expect(await textOf(section.getByRole('status'))).toContain(`Device activated offline on ${key}`);
    await screenshot(page, 'my-keys-offline-activation');

    // Back on the offline machine, the SDK verifies it and the app runs from the kept token.
    const applied = await applyOfflineResponseFile(offlineSdk, path.join(dir, 'response.json'), { fingerprint });
    expect(applied).toMatchObject({ valid: true, code: 'OFFLINE_ACTIVATED', offlineToken: { key, fingerprint } });
    expect(await offlineSdk.checkOffline({ key, fingerprint })).toMatchObject({ valid: true, source: 'offline' });

    // The device counts against the key's one slot.
    const elsewhere = createLicensing({ url: baseURL(), publicKey: pem });
    expect(await elsewhere.activate({ key, fingerprint: `${fingerprint}-desk` })).toMatchObject({ code: 'DEVICE_LIMIT_REACHED' });

    // The machine is retired: its proof, uploaded in My Keys, frees the slot.
    await writeDeactivationProof(offlineSdk, path.join(dir, 'proof.json'), { key, fingerprint });
    expect(await offlineSdk.checkOffline({ key, fingerprint })).toMatchObject({ valid: false });
    await section.getByLabel('Deactivation proof file').setInputFiles(path.join(dir, 'proof.json'));
    await section.getByRole('button', { name: 'Free the device’s slot' }).click();
    expect(await visible(section.getByRole('status').filter({ hasText: 'its slot is free' }))).toBe(true);
    expect(await elsewhere.activate({ key, fingerprint: `${fingerprint}-desk` })).toMatchObject({ valid: true, code: 'VALID' });
    await context.close();
  });
});
