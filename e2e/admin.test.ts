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
let ownerToken: string;
beforeAll(async () => {
  browser = await launchBrowser();
  ownerToken = await apiLogin(ownerCredentials());
});
afterAll(async () => {
  // Whatever happened, the next test file finds the default settings.
  if (ownerToken) await apiCall('POST', '/api/settings/reset', undefined, ownerToken);
  await browser?.close();
});

const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true });
const dialog = (page: Page, name: string) => page.getByRole('dialog', { name });
const toastWith = (page: Page, text: string) => page.getByTestId('toast').filter({ hasText: text });

async function findUser(username: string) {
  const res = await apiCall('GET', `/api/admin/users?search=${username}`, undefined, ownerToken);
  return res.body.users.find((u: { username: string }) => u.username === username);
}

describe('the admin panel', () => {
  it('shows the owner every tab, the overview and the audit log', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.getByRole('link', { name: 'Admin Panel' }).click();
    await page.waitForURL('**/admin');
    expect(await visible(page.getByRole('heading', { name: 'Admin Panel', level: 1 }))).toBe(true);
    const names = await page.getByRole('tablist', { name: 'Admin sections' }).getByRole('tab').allTextContents();
    expect(names).toEqual([
      'Overview',
      'Users',
      'Resellers',
      'Products',
      'License Keys',
      'Generate Keys',
      'Direct Purchase',
      'Payments',
      'Webhooks',
      'Mail',
      'Settings',
    ]);
    expect(await visible(page.getByRole('tab', { name: 'Overview', selected: true }))).toBe(true);
    expect(await visible(page.getByText('Total Users'))).toBe(true);
    expect(await visible(page.getByRole('heading', { name: 'Recent Users' }))).toBe(true);
    expect(await visible(page.getByRole('heading', { name: 'Recent License Keys' }))).toBe(true);
    expect(await visible(page.getByRole('heading', { name: 'Audit Log' }))).toBe(true);
    expect(await visible(page.getByRole('button', { name: 'Manage Users' }))).toBe(true);
    await screenshot(page, 'admin-overview');

    // The tablist works from the keyboard, and the URL follows the selected tab.
    await tab(page, 'Overview').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL('**/admin?tab=users');
    expect(await visible(page.getByRole('tab', { name: 'Users', selected: true }))).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Users');
    await page.keyboard.press('End');
    await page.waitForURL('**/admin?tab=settings');
    await context.close();
  });

  it('keeps every admin section in sight at 1366 px and on a 390 px phone, the page never wider than the screen', async () => {
    for (const viewport of [
      { width: 1366, height: 768 },
      { width: 390, height: 844 },
    ]) {
      const { context, page } = await newPage(browser, { mobile: viewport.width < 500 });
      await page.setViewportSize(viewport);
      await signIn(page, ownerCredentials());
      await page.goto('/admin');
      const tabs = page.getByRole('tablist', { name: 'Admin sections' }).getByRole('tab');
      await visible(tabs.first());
      const count = await tabs.count();
      expect(count).toBe(11);
      for (let i = 0; i < count; i++) {
        const box = await tabs.nth(i).boundingBox();
        const name = await tabs.nth(i).textContent();
        expect(box, `${name} at ${viewport.width} px`).not.toBeNull();
        // Wholly inside the screen: not cut off, not behind a scroll.
        expect(box!.x, `${name} at ${viewport.width} px`).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width, `${name} at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
      }
      const strip = page.getByRole('tablist', { name: 'Admin sections' });
      expect(await strip.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(page, `admin-tabs-${viewport.width}`);
      await context.close();
    }
  });

  it('lets the owner create a user, edit them and add credits, all audited', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.goto('/user-management');
    await page.waitForURL('**/admin?tab=users');
    expect(await visible(page.getByRole('heading', { name: 'User Management' }))).toBe(true);

    const person = uniqueUser('adm');
    await page.getByRole('button', { name: 'Create User' }).click();
    const create = dialog(page, 'Create User');
    await create.getByLabel('Username').fill(person.username);
    await create.getByLabel('Email').fill(person.email);
    await create.getByLabel('Password').fill('123');
    await create.getByRole('button', { name: 'Create User' }).click();
    expect(await visible(create.getByText('Password must be at least 10 characters long'))).toBe(true);
    await create.getByLabel('Password').fill(person.password);
    await create.getByLabel('Balance (USD)').fill('12.5');
    await create.getByLabel('Credits').fill('40');
    await screenshot(page, 'admin-users-create');
    await create.getByRole('button', { name: 'Create User' }).click();
    expect(await visible(toastWith(page, 'User created successfully'))).toBe(true);
    await create.waitFor({ state: 'detached' });

    await page.getByLabel('Search users').fill(person.username);
    const card = page.getByRole('listitem').filter({ hasText: person.email });
    expect(await visible(card)).toBe(true);
    expect(await textOf(card)).toContain('$12.50');

    await page.getByRole('button', { name: `Edit ${person.username}` }).click();
    const edit = dialog(page, `Edit ${person.username}`);
    await edit.getByLabel('Role').selectOption('reseller');
    await edit.getByLabel('Credits').fill('75');
    // Raising a role grants power: the owner confirms with their password (step-up).
    await edit.getByLabel('Confirm with your password').fill(ownerCredentials().password);
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    expect(await visible(toastWith(page, 'User updated successfully'))).toBe(true);
    await edit.waitFor({ state: 'detached' });
    expect(await visible(card.getByText('reseller'))).toBe(true);

    await page.getByRole('button', { name: `Add Funds to ${person.username}` }).click();
    const funds = dialog(page, 'Add Balance or Credits');
    await funds.getByLabel('Add to').selectOption('credits');
    await funds.getByLabel('Amount (credits)').fill('25');
    await funds.getByRole('button', { name: 'Add Credits' }).click();
    expect(await visible(toastWith(page, 'Added 25 credits'))).toBe(true);
    await funds.waitFor({ state: 'detached' });
    expect(await visible(card.getByText('100', { exact: true }))).toBe(true);
    await screenshot(page, 'admin-users');

    const saved = await findUser(person.username);
    expect(saved).toMatchObject({ role: 'reseller', credits: 100, balance: 12.5, isActive: true });

    // The Overview's audit log tells the story, filterable by action.
    await tab(page, 'Overview').click();
    await page.getByLabel('Action').selectOption('user.add_funds');
    const row = page.getByRole('row').filter({ hasText: `User ${person.username}` });
    expect(await textOf(row)).toContain('25 credits');
    await context.close();
  });

  it('asks the owner for their password to create a reseller, refusing a wrong one in the dialog', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=users');
    const person = uniqueUser('rsl');
    await page.getByRole('button', { name: 'Create User' }).click();
    const create = dialog(page, 'Create User');
    await create.getByLabel('Username').fill(person.username);
    await create.getByLabel('Email').fill(person.email);
    await create.getByLabel('Password', { exact: true }).fill(person.password);
    // A plain user needs no proof; a reseller does, asked in the same dialog.
    const proof = create.getByLabel('Confirm with your password');
    expect(await proof.count()).toBe(0);
    await create.getByLabel('Role').selectOption('reseller');
    expect(await visible(create.getByRole('group', { name: 'Confirm it is you' }))).toBe(true);
    expect(await visible(proof)).toBe(true);

    await create.getByRole('button', { name: 'Create User' }).click();
    expect(await textOf(create.getByRole('alert'))).toBe('Enter your current password.');
    await proof.fill('not-the-owner-password');
    await create.getByRole('button', { name: 'Create User' }).click();
    // The server's refusal, on the field: emptied and focused for another try; nothing was created.
    expect(await textOf(create.getByRole('alert'))).toBe('Password is incorrect');
    expect(await proof.inputValue()).toBe('');
    await expect.poll(() => proof.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await proof.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'admin-users-create-reseller-refused');
    expect(await findUser(person.username)).toBeUndefined();

    // Typed from the keyboard, and sent with Enter.
    await page.keyboard.type(ownerCredentials().password);
    await page.keyboard.press('Enter');
    expect(await visible(toastWith(page, 'User created successfully'))).toBe(true);
    await create.waitFor({ state: 'detached' });
    expect(await findUser(person.username)).toMatchObject({ role: 'reseller', isActive: true });
    await context.close();

    // The new reseller signs in to their panel.
    const second = await newPage(browser);
    await signIn(second.page, person);
    expect(await visible(second.page.getByRole('link', { name: 'Resseler Panel' }))).toBe(true);
    await second.context.close();
  });

  it('deletes a user after the confirmation', async () => {
    const person = uniqueUser('gone');
    await apiCall('POST', '/api/admin/users', { ...person }, ownerToken);
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=users');
    await page.getByLabel('Search users').fill(person.username);
    await page.getByRole('button', { name: `Delete ${person.username}` }).click();
    const confirm = dialog(page, 'Delete User');
    expect(await textOf(confirm)).toContain('cannot be undone');
    await confirm.getByRole('button', { name: 'Delete User' }).click();
    expect(await visible(toastWith(page, 'User deleted successfully'))).toBe(true);
    expect(await visible(page.getByText('No users found'))).toBe(true);
    expect(await findUser(person.username)).toBeUndefined();
    await context.close();
  });

  it('saves a setting (reloading a second later) and resets to defaults after the confirmation', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=settings');
    const rate = page.getByLabel('USD to Credit Rate');
    expect(await rate.inputValue()).toBe('10');
    await rate.fill('0');
    await page.getByRole('button', { name: 'Save Settings' }).click();
    expect(await visible(page.getByText('USD to Credit Rate must be at least 1').first())).toBe(true);

    await rate.fill('15');
    await page.getByLabel('Low Balance Threshold (USD)').fill('2.5');
    const idle = page.getByLabel('Session Idle Timeout (days)');
    expect(await idle.inputValue()).toBe('7');
    await idle.fill('3');
    expect(await textOf(page.getByText('1 USD = 15 credits'))).toBe('1 USD = 15 credits');
    await screenshot(page, 'admin-settings');
    const reloaded = page.waitForEvent('load');
    const savedAt = Date.now();
    await page.getByRole('button', { name: 'Save Settings' }).click();
    expect(await visible(toastWith(page, 'Settings saved successfully'))).toBe(true);
    await reloaded;
    expect(Date.now() - savedAt).toBeGreaterThanOrEqual(900);
    expect(await page.getByLabel('USD to Credit Rate').inputValue()).toBe('15');
    expect((await apiCall('GET', '/api/settings', undefined, ownerToken)).body).toMatchObject({
      usdToCreditRate: 15,
      lowBalanceThreshold: 2.5,
      sessionIdleDays: 3,
    });

    await page.getByRole('button', { name: 'Reset to Defaults' }).click();
    const confirm = dialog(page, 'Reset to Defaults');
    expect(await textOf(confirm)).toContain('This action cannot be undone.');
    await screenshot(page, 'admin-settings-reset');
    await confirm.getByRole('button', { name: 'Reset Settings' }).click();
    expect(await visible(toastWith(page, 'Settings reset to defaults'))).toBe(true);
    expect(await page.getByLabel('USD to Credit Rate').inputValue()).toBe('10');
    expect(await page.getByLabel('Low Balance Threshold (USD)').inputValue()).toBe('10');
    expect((await apiCall('GET', '/api/settings', undefined, ownerToken)).body).toMatchObject({ usdToCreditRate: 10, sessionIdleDays: 7 });
    await context.close();
  });

  it('lays the panel out for a phone', async () => {
    const { context, page } = await newPage(browser, { mobile: true });
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=users');
    expect(await visible(page.getByRole('heading', { name: 'User Management' }))).toBe(true);
    await screenshot(page, 'admin-users-mobile');
    await page.goto('/admin?tab=settings');
    expect(await visible(page.getByLabel('USD to Credit Rate'))).toBe(true);
    await screenshot(page, 'admin-settings-mobile');
    await page.goto('/admin');
    expect(await visible(page.getByText('Total Users'))).toBe(true);
    await screenshot(page, 'admin-overview-mobile');
    // Nothing is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await context.close();
  });

  it('shows a reseller only their tabs, and the refusals of owner-only tabs', async () => {
    const reseller = uniqueUser('res');
    const proof = { currentPassword: ownerCredentials().password };
    expect((await apiCall('POST', '/api/admin/users', { ...reseller, role: 'reseller', ...proof }, ownerToken)).status).toBe(201);
    const { context, page } = await newPage(browser);
    await signIn(page, reseller);
    await page.getByRole('link', { name: 'Resseler Panel' }).click();
    await page.waitForURL('**/admin');
    expect(await visible(page.getByRole('tab', { name: 'Overview', selected: true }))).toBe(true);
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe('Reseller Panel');
    const names = await page.getByRole('tablist', { name: 'Admin sections' }).getByRole('tab').allTextContents();
    expect(names).toEqual(['Overview', 'License Keys', 'Direct Purchase']);
    expect(await visible(page.getByText('Total Users'))).toBe(true);
    await expect(page.getByRole('heading', { name: 'Recent Users' }).count()).resolves.toBe(0);
    await expect(page.getByRole('heading', { name: 'Audit Log' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Manage Users' }).count()).resolves.toBe(0);
    expect(await visible(page.getByRole('button', { name: 'View All Keys' }))).toBe(true);
    await screenshot(page, 'admin-reseller');

    await page.goto('/admin?tab=generate');
    expect(await textOf(page.getByRole('alert').filter({ hasText: 'Access Denied' }))).toBe(
      'Access Denied - Only owners can generate license keys. This feature is restricted to system administrators.',
    );
    await page.goto('/admin?tab=settings');
    expect(await visible(page.getByRole('heading', { name: 'Access denied' }))).toBe(true);
    await page.goto('/admin?tab=users');
    expect(await visible(page.getByRole('tab', { name: 'Overview', selected: true }))).toBe(true);
    await expect(page.getByRole('heading', { name: 'User Management' }).count()).resolves.toBe(0);
    await context.close();
  });

  it('sends a customer away from /admin and warns them of a low balance', async () => {
    const { context, page } = await newPage(browser);
    await register(page);
    expect(await textOf(page.getByTestId('low-balance-warning'))).toContain('your USD balance is $0.00, below $10.00');
    await page.goto('/admin');
    await page.waitForURL('**/dashboard');
    await page.goto('/user-management');
    await page.waitForURL('**/dashboard');
    await context.close();
  });

  it('shows non-owners the maintenance screen while owners keep working', async () => {
    const customer = uniqueUser('mnt');
    const { context, page } = await newPage(browser);
    await register(page, customer);
    const settings = (await apiCall('GET', '/api/settings', undefined, ownerToken)).body;
    await apiCall('PUT', '/api/settings', { ...settings, maintenanceMode: true }, ownerToken);
    try {
      await page.reload();
      expect(await visible(page.getByRole('heading', { name: 'Down for maintenance' }), 15_000)).toBe(true);
      expect(await visible(page.getByText('KeyPanel is under maintenance. Please try again later.'))).toBe(true);
      await screenshot(page, 'maintenance');

      const { context: ownerContext, page: ownerPage } = await newPage(browser);
      await signIn(ownerPage, ownerCredentials());
      expect(await visible(ownerPage.getByText('Maintenance mode is on.'))).toBe(true);
      await ownerContext.close();
    } finally {
      await apiCall('PUT', '/api/settings', { ...settings, maintenanceMode: false }, ownerToken);
    }
    // The next check finds the app open again.
    await page.getByRole('button', { name: 'Try again' }).click();
    expect(await visible(page.getByTestId('header-username'), 15_000)).toBe(true);
    await context.close();
  });
});
