// A customer sees the devices their key runs on and frees a slot, once a day per key.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allowDevicesPerKey,
  apiCall,
  apiLogin,
  launchBrowser,
  newPage,
  ownerCredentials,
  customerWithKey,
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

describe('devices in My Keys', () => {
  it('lists the activated devices and removes one, then refuses a second removal the same day', async () => {
    const ownerToken = await apiLogin(ownerCredentials());
    await allowDevicesPerKey(ownerToken, 3);
    const keyTag = `DV${Date.now().toString(36).toUpperCase().slice(-6)}`;
    const product = await apiCall(
      'POST',
      '/api/products',
      {
        name: `Device App ${keyTag}`,
        description: 'Licensed per device',
        keyTag,
        baseCreditCost: 10,
        creditsPerDay: 1,
        minDays: 1,
        maxDays: 30,
        maxActivations: 3,
      },
      ownerToken,
    );
    expect(product.status).toBe(201);

    const { context, page } = await newPage(browser);
    const { key } = await customerWithKey(page, ownerToken, product.body._id);
    for (const [fp, model] of [
      ['laptop-fingerprint-0001-abcdef', 'ThinkPad'],
      ['desktop-fingerprint-0002-abcdef', 'Tower'],
    ]) {
      const activated = await apiCall('POST', '/api/v1/licenses/activate', {
        key,
        deviceFingerprint: fp,
        deviceInfo: { manufacturer: 'Acme', model },
      });
      expect(activated.body.code).toBe('VALID');
    }

    await page.goto('/my-keys');
    const devices = page.getByRole('list', { name: 'Activated devices' });
    expect(await visible(devices.getByText('laptop-fingerpri…'))).toBe(true);
    expect(await visible(devices.getByText('desktop-fingerpr…'))).toBe(true);
    expect(await textOf(page.getByText('2 / 3'))).toContain('2 / 3');
    await screenshot(page, 'my-keys-devices');

    await page.getByRole('button', { name: 'Remove device laptop-fingerpri…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this device?' });
    expect(await visible(dialog)).toBe(true);
    await dialog.getByRole('button', { name: 'Remove device' }).click();
    expect(await visible(page.getByTestId('toast').filter({ hasText: 'Device removed' }))).toBe(true);
    await devices.getByText('laptop-fingerpri…').waitFor({ state: 'detached' });
    expect(await textOf(page.getByText('1 / 3'))).toContain('1 / 3');
    // Its slot stays held while the laptop may still hold an offline token, and the card says until when.
    expect(await textOf(page.getByRole('list', { name: 'Held slots' }))).toMatch(/laptop-fingerpri… removed · its slot frees/);
    const validated = await apiCall('POST', '/api/v1/licenses/validate', { key, deviceFingerprint: 'laptop-fingerprint-0001-abcdef' });
    expect(validated.body.code).toBe('NOT_ACTIVATED');

    await page.getByRole('button', { name: 'Remove device desktop-fingerpr…' }).click();
    await dialog.getByRole('button', { name: 'Remove device' }).click();
    expect(await visible(page.getByTestId('toast').filter({ hasText: /one device from this key each day/ }))).toBe(true);
    expect(await visible(devices.getByText('desktop-fingerpr…'))).toBe(true);
    await context.close();
  });
});
