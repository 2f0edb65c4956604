// A customer takes care of their own keys from My Keys: gives one to a friend, and replaces a
// leaked one, whose old value the licensing API then refuses; the key's activity tells it, and the
// friend downloads their data.
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  apiLogin,
  launchBrowser,
  newPage,
  ownerCredentials,
  customerWithKey,
  screenshot,
  signIn,
  textOf,
  uniqueUser,
  visible,
} from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('a key in My Keys', () => {
  it('goes to another customer with its device when the giver keeps its value, then gets a new value from its new holder', async () => {
    const ownerToken = await apiLogin(ownerCredentials());
    const keyTag = `KC${Date.now().toString(36).toUpperCase().slice(-6)}`;
    const product = await apiCall(
      'POST',
      '/api/products',
      {
        name: `Care App ${keyTag}`,
        description: 'Licensed per device',
        keyTag,
        baseCreditCost: 10,
        creditsPerDay: 1,
        minDays: 1,
        maxDays: 30,
      },
      ownerToken,
    );
    expect(product.status).toBe(201);
    const friend = uniqueUser('friend');
    expect((await apiCall('POST', '/api/admin/users', { ...friend, emailVerified: true }, ownerToken)).status).toBe(201);

    const { context, page } = await newPage(browser);
    const { user: giver, key } = await customerWithKey(page, ownerToken, product.body._id);
    const device = 'care-laptop-fingerprint-0001';
    expect((await apiCall('POST', '/api/v1/licenses/activate', { key, deviceFingerprint: device })).body.code).toBe('VALID');

    // The giver transfers it by the friend's email, confirming with their password.
    await page.goto('/my-keys');
    await page.getByRole('button', { name: `Transfer license key ${key}` }).click();
    const transfer = page.getByRole('dialog', { name: 'Transfer this license key' });
    expect(await visible(transfer)).toBe(true);
    await transfer.getByLabel('Email or username of the new holder').fill(friend.email);
    await transfer.getByRole('button', { name: 'Transfer key' }).click();
    // Without the password nothing is sent, and the field says so.
    expect(await visible(transfer.getByText('Enter your current password.'))).toBe(true);
    await transfer.getByLabel('Confirm with your password').fill(giver.password);
    // The friend uses the same machine: the giver keeps the value and its device (by default the
    // key would get a new value and the device would leave it).
    await transfer.getByLabel('Keep its value and devices').check();
    await screenshot(page, 'key-transfer');
    await transfer.getByRole('button', { name: 'Transfer key' }).click();
    expect(await visible(page.getByTestId('toast').filter({ hasText: `License key given to ${friend.username}` }))).toBe(true);
    // The key left the giver's list; a line says where it went.
    expect(await visible(page.getByRole('heading', { name: 'No license keys yet' }))).toBe(true);
    const transfers = page.getByRole('region', { name: 'Transferred keys' });
    expect(await textOf(transfers)).toContain(`given to ${friend.username}`);
    await context.close();

    // The friend finds it in My Keys with its device, and regenerates it, keeping the device.
    const second = await newPage(browser);
    await signIn(second.page, friend);
    await second.page.goto('/my-keys');
    expect(await visible(second.page.getByText(key))).toBe(true);
    expect(await textOf(second.page.getByText('1 / 1'))).toContain('1 / 1');
    await second.page.getByRole('button', { name: `Regenerate license key ${key}` }).click();
    const regenerate = second.page.getByRole('dialog', { name: 'Regenerate this license key' });
    await regenerate.getByLabel('Why is it being replaced?').fill('Shared in a chat by mistake');
    await regenerate.getByRole('button', { name: 'Regenerate key' }).click();
    const done = second.page.getByTestId('toast').filter({ hasText: 'License key regenerated' });
    expect(await visible(done)).toBe(true);
    const renewed = (await textOf(done)).match(new RegExp(`${keyTag}(-[0-9A-Z]{5}){4}`))?.[0] ?? '';
    expect(renewed).not.toBe(key);
    expect(await visible(second.page.getByText(renewed))).toBe(true);
    await screenshot(second.page, 'key-regenerated');

    // The old value is refused with its own code; the device works under the new one.
    expect((await apiCall('POST', '/api/v1/licenses/validate', { key, deviceFingerprint: device })).body.code).toBe('KEY_REGENERATED');
    expect((await apiCall('POST', '/api/v1/licenses/validate', { key: renewed, deviceFingerprint: device })).body.code).toBe('VALID');

    // The key's activity tells what happened while they held it, newest first.
    await second.page.getByRole('button', { name: 'Show activity' }).click();
    expect(await second.page.getByRole('button', { name: 'Hide activity' }).getAttribute('aria-expanded')).toBe('true');
    const activity = second.page.getByRole('region', { name: 'Activity' });
    const lines = activity.getByRole('listitem');
    expect(await visible(lines.first())).toBe(true);
    expect(await textOf(lines.first())).toContain('New key value');
    const told = await textOf(activity);
    for (const line of ['Shared in a chat by mistake', `From ${giver.username} to ${friend.username}`]) expect(told).toContain(line);
    // What happened before it was theirs is the giver's: their purchase and device are not shown.
    for (const line of ['Device activated', 'Purchased']) expect(told).not.toContain(line);
    await screenshot(second.page, 'key-activity');

    // Their own data, downloaded from the security page under the name the server gives it.
    await second.page.goto('/settings/security');
    const [download] = await Promise.all([
      second.page.waitForEvent('download'),
      second.page.getByRole('button', { name: 'Download my data' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^keypanel-my-data-\d{4}-\d{2}-\d{2}\.jsonl$/);
    const saved = await readFile(await download.path(), 'utf8');
    expect(JSON.parse(saved.split('\n')[0])).toMatchObject({ table: 'export' });
    expect(saved).toContain(renewed);
    await second.context.close();
  });
});
