// Mail in a real browser: a customer chooses which notices they get on their security page, and the
// owner reads a mail the mail API refused in the admin panel's Mail tab (this server's mail goes to a
// mail API stand-in that refuses any address with "bounce" in it, as a provider refuses a bad one).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  apiLogin,
  launchBrowser,
  newPage,
  ownerCredentials,
  register,
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

describe('mail', () => {
  it('lets a customer choose the notices they get, and keeps the choice', async () => {
    const { context, page } = await newPage(browser);
    await register(page, uniqueUser('mailprefs'));
    await page.goto('/settings/security');
    const card = page.getByRole('region', { name: 'Mail' });
    const devices = card.getByLabel('New devices');
    await visible(devices);
    expect(await devices.isChecked()).toBe(true);
    await devices.uncheck();
    await visible(page.getByTestId('toast').filter({ hasText: 'New devices: off' }));
    await screenshot(page, 'mail-preferences');
    await page.reload();
    await visible(page.getByRole('region', { name: 'Mail' }).getByLabel('New devices'));
    expect(await page.getByRole('region', { name: 'Mail' }).getByLabel('New devices').isChecked()).toBe(false);
    expect(await page.getByRole('region', { name: 'Mail' }).getByLabel('Receipts').isChecked()).toBe(true);
    await context.close();
  });

  it("shows the owner a mail the mail API refused, with the API's status", async () => {
    const owner = await apiLogin(ownerCredentials());
    const bounced = uniqueUser('bounce');
    // Not vouched for: a verification link goes to the address, which the mail API refuses.
    expect((await apiCall('POST', '/api/admin/users', { ...bounced, emailVerified: false }, owner)).status).toBe(201);

    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=mail');
    await page.getByLabel('State').selectOption('failed');
    const table = page.getByRole('table', { name: 'Mail, newest first' });
    const row = table.getByRole('row').filter({ hasText: bounced.email });
    // The queue's consumer takes the mail within seconds of the answer.
    for (let i = 0; i < 20 && (await row.count()) === 0; i++) {
      await page.waitForTimeout(1000);
      await page.reload();
      await page.getByLabel('State').selectOption('failed');
    }
    await visible(row);
    expect(await textOf(row)).toContain('failed (the mail API answered 422)');
    expect(await textOf(row)).toContain('Address verification');
    await screenshot(page, 'admin-mail-failed');
    await context.close();
  });
});
