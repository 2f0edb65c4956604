// The API tokens section of the security page: a reseller creates a token (shown once), a script
// uses it, the list shows its last use, revoking it stops it at once; a plain user has no section.
import type { Browser, Page } from 'playwright-core';
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

async function openSecurity(page: Page) {
  await page.goto('/settings/security');
  await visible(page.getByRole('heading', { name: 'Security settings' }));
}

async function reseller() {
  const user = uniqueUser('tok');
  const owner = await apiLogin(ownerCredentials());
  // Making a reseller needs the owner's proof beyond the session (step-up).
  const res = await apiCall('POST', '/api/admin/users', { ...user, role: 'reseller', currentPassword: ownerCredentials().password }, owner);
  expect(res.status).toBe(201);
  return user;
}

describe('API tokens on the security page', () => {
  it('creates a token shown once, lists its last use, and revokes it', async () => {
    const { context, page } = await newPage(browser);
    const user = await reseller();
    await signIn(page, user);
    await openSecurity(page);
    const section = page.locator('section').filter({ has: page.getByRole('heading', { name: 'API tokens' }) });
    await visible(section.getByText('No API tokens yet'));

    // The name is required, with the server's own message.
    await section.getByRole('button', { name: 'Create token' }).click();
    await visible(section.getByText('Name is required'));

    const role = section.getByLabel('Role');
    expect(await role.locator('option').allTextContents()).toEqual(['User', 'Reseller']);
    await section.getByLabel('Token name').fill('nightly export');
    await section.getByLabel(/Read-only/).check();
    // Step-up, inline: the password is asked for, and a wrong one is refused where it was typed.
    await section.getByRole('button', { name: 'Create token' }).click();
    await visible(section.getByRole('alert').filter({ hasText: 'Enter your current password.' }));
    await section.getByLabel('Confirm with your password').fill('not-my-password');
    await section.getByRole('button', { name: 'Create token' }).click();
    await visible(section.getByRole('alert').filter({ hasText: 'Password is incorrect' }));
    expect((await apiCall('GET', '/api/users/api-tokens', undefined, await apiLogin(user))).body.tokens).toEqual([]);
    await section.getByLabel('Confirm with your password').fill(user.password);
    await section.getByRole('button', { name: 'Create token' }).click();
    const shown = section.getByLabel('Your new API token');
    const token = await textOf(shown);
    expect(token).toMatch(/^kp_[A-Za-z0-9_-]{43}$/);
    await visible(section.getByRole('button', { name: 'Copy token' }));
    await screenshot(page, 'api-tokens-created-desktop');

    const row = section.getByRole('row', { name: /nightly export/ });
    expect(await textOf(row)).toMatch(/nightly export\s*Reseller\s*Read-only.*Never/);

    // A script uses it: read-only, so it reads but cannot write.
    expect((await apiCall('GET', '/api/admin/keys', undefined, token)).status).toBe(200);
    expect(
      (await apiCall('POST', '/api/admin/users/000000000000000000000000/purchase/000000000000000000000000', { duration: 1 }, token)).status,
    ).toBe(403);

    await section.getByRole('button', { name: 'I have saved it' }).click();
    expect(await shown.count()).toBe(0);
    await page.reload();
    await visible(row.getByText('Just now'));
    await screenshot(page, 'api-tokens-desktop');

    await row.getByRole('button', { name: 'Revoke token nightly export' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this API token?' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await visible(page.getByText('API token "nightly export" revoked'));
    await visible(section.getByText('No API tokens yet'));
    expect((await apiCall('GET', '/api/admin/keys', undefined, token)).status).toBe(401);
    await context.close();
  });

  it('ends the API tokens with a password change, unless the box is unticked', async () => {
    const { context, page } = await newPage(browser);
    const user = await reseller();
    const session = await apiLogin(user);
    const made = await apiCall('POST', '/api/users/api-tokens', { name: 'script', role: 'user', currentPassword: user.password }, session);
    expect(made.status).toBe(201);
    await signIn(page, user);
    await openSecurity(page);
    const form = page.getByRole('form', { name: 'Change password' });
    const revokeToo = form.getByLabel('Also revoke my API tokens');
    expect(await revokeToo.isChecked()).toBe(true);
    await form.getByLabel('Current password').fill(user.password);
    await form.getByLabel('New password', { exact: true }).fill('NewPass123');
    await form.getByLabel('Confirm new password').fill('NewPass123');
    await form.getByRole('button', { name: 'Change password' }).click();
    await visible(
      page.getByText('Password changed successfully. Other sessions have been signed out and your API tokens revoked.').first(),
    );
    expect((await apiCall('GET', '/api/users/profile', undefined, made.body.token)).status).toBe(401);
    expect((await apiCall('GET', '/api/users/profile', undefined, session)).status).toBe(401);
    await context.close();
  });

  it('fits a phone', async () => {
    const { context, page } = await newPage(browser, { mobile: true });
    const user = await reseller();
    await signIn(page, user);
    await openSecurity(page);
    const section = page.locator('section').filter({ has: page.getByRole('heading', { name: 'API tokens' }) });
    await section.getByLabel('Token name').fill('phone token');
    await section.getByLabel('Confirm with your password').fill(user.password);
    await section.getByRole('button', { name: 'Create token' }).click();
    await visible(section.getByLabel('Your new API token'));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'api-tokens-phone');
    await context.close();
  });

  it('is not offered to a plain user', async () => {
    const { context, page } = await newPage(browser);
    await register(page, uniqueUser('plain'));
    await openSecurity(page);
    await visible(page.getByRole('heading', { name: 'Active sessions' }));
    expect(await page.getByRole('heading', { name: 'API tokens' }).count()).toBe(0);
    await context.close();
  });
});
