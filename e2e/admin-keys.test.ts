import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allowDevicesPerKey,
  apiCall,
  apiLogin,
  launchBrowser,
  newPage,
  ownerCredentials,
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
  await allowDevicesPerKey(ownerToken, 2);
});
afterAll(async () => {
  await browser?.close();
});

const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true });
const dialog = (page: Page, name: string) => page.getByRole('dialog', { name });
const toastWith = (page: Page, text: string) => page.getByTestId('toast').filter({ hasText: text });
const keyCards = (page: Page) => page.locator('.admin-key-grid > li');

const tagOf = () => `E${Date.now().toString(36).toUpperCase()}`.slice(0, 10);

async function makeAccount(role: 'user' | 'reseller', credits = 0) {
  const account = uniqueUser(role === 'user' ? 'cust' : 'resl');
  // Making a reseller needs the owner's proof beyond the session (step-up).
  const proof = role === 'user' ? {} : { currentPassword: ownerCredentials().password };
  const res = await apiCall('POST', '/api/admin/users', { ...account, role, credits, balance: 0, ...proof }, ownerToken);
  expect(res.status).toBe(201);
  return { ...account, id: res.body.user._id };
}

describe('key management in the browser', () => {
  it('lets the owner create a product, generate keys, revoke one and bulk-delete others', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());

    // /manage-products opens the Products tab.
    await page.goto('/manage-products');
    await page.waitForURL('**/admin?tab=products');
    expect(await visible(page.getByRole('heading', { name: 'Product Management' }))).toBe(true);
    const tag = tagOf();
    // Starts like a spreadsheet formula, so the CSV export must neutralise it.
    const name = `=Browser Suite ${tag}`;
    await page.getByRole('button', { name: 'Create Product' }).click();
    const form = dialog(page, 'Create Product');
    expect(await form.getByLabel('Credits per day').inputValue()).toBe('10');
    expect(await form.getByLabel('Maximum days').inputValue()).toBe('365');
    await form.getByRole('button', { name: 'Create Product' }).click();
    expect(await textOf(form.getByRole('alert').first())).toBe('Name is required');
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Key tag').fill(tag.toLowerCase());
    expect(await form.getByLabel('Key tag').inputValue()).toBe(tag);
    await form.getByLabel('Description').fill('Made by the browser test');
    await form.getByLabel('Base cost (credits)').fill('50');
    await form.getByLabel('Credits per day').fill('4');
    await form.getByLabel('Max activations').fill('2');
    await form.getByLabel('Features').fill('Fast, , Offline mode, Updates, Support');
    await form.getByRole('button', { name: 'Create Product' }).click();
    expect(await visible(toastWith(page, `${name} created`))).toBe(true);
    const card = page.locator('.admin-product-grid > li').filter({ hasText: name });
    expect(await visible(card)).toBe(true);
    expect(await textOf(card.locator('.feature-list'))).toContain('+1 more');
    expect(await textOf(card.getByRole('term').filter({ hasText: 'Activations' }))).toBe('Activations');
    await page.getByLabel('Search products').fill(tag.toLowerCase());
    expect(await page.locator('.admin-product-grid > li').count()).toBe(1);
    await screenshot(page, 'admin-products');

    // Generate Keys: quick buttons up to the limit, the keys shown with copy and CSV.
    await tab(page, 'Generate Keys').click();
    await page
      .getByRole('form', { name: 'Generate keys' })
      .getByRole('combobox', { name: 'Product', exact: true })
      .selectOption({ label: `${name} (${tag}, 1-365 days)` });
    const quick = await page.getByRole('group', { name: 'Quick quantities' }).getByRole('button').allTextContents();
    expect(quick).toEqual(['1', '5', '10', '25', '50', '100']);
    await page.getByLabel('Quantity').fill('150');
    expect(await visible(page.getByText('Maximum 100 keys per generation allowed. Please adjust the quantity.').first())).toBe(true);
    expect(await page.getByLabel('Quantity').inputValue()).toBe('100');
    await page.getByRole('button', { name: '5', exact: true }).click();
    await page.getByRole('button', { name: 'Generate 5 Keys' }).click();
    expect(await visible(toastWith(page, 'Generated 5 license keys'))).toBe(true);
    const generated = page.getByRole('list', { name: 'Generated keys' }).locator('code');
    expect(await generated.count()).toBe(5);
    const keys = await generated.allTextContents();
    for (const k of keys) expect(k.startsWith(`${tag}-`)).toBe(true);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const csv = readFileSync(await (await download).path(), 'utf8');
    expect(csv.split('\r\n')[0]).toBe('key,product,keyTag,durationDays,maxActivations,status,createdAt');
    for (const k of keys) expect(csv).toContain(`${k},'${name},${tag},1,2,available,`);
    await screenshot(page, 'admin-generate');

    // License Key Management: search by tag, revoke one, bulk-delete two.
    await tab(page, 'License Keys').click();
    expect(await visible(page.getByRole('heading', { name: 'License Key Management' }))).toBe(true);
    await page.getByLabel('Search keys').fill(tag);
    await page.waitForFunction(() => document.querySelectorAll('.admin-key-grid > li').length === 5);
    await page.getByRole('button', { name: `Revoke ${keys[0]}` }).click();
    const revoke = dialog(page, 'Revoke License Key');
    await revoke.getByRole('button', { name: 'Revoke Key' }).click();
    expect(await textOf(revoke.getByRole('alert'))).toBe('Please provide a reason for revoking this key');
    await revoke.getByLabel('Reason for revoking').fill('Refunded in the browser test');
    await revoke.getByRole('button', { name: 'Revoke Key' }).click();
    expect(await visible(toastWith(page, 'License key revoked'))).toBe(true);
    const revokedCard = keyCards(page).filter({ hasText: keys[0] });
    expect(await visible(revokedCard.locator('.badge', { hasText: 'Revoked' }))).toBe(true);
    expect(await revokedCard.getByRole('button', { name: `Revoke ${keys[0]}` }).count()).toBe(0);

    expect(await page.getByRole('button', { name: /Delete Selected/ }).isDisabled()).toBe(true);
    await page.getByLabel(`Select ${keys[1]}`).check();
    await page.getByLabel(`Select ${keys[2]}`).check();
    await page.getByRole('button', { name: 'Delete Selected (2)' }).click();
    const bulk = dialog(page, 'Delete Selected Keys');
    await bulk.getByRole('button', { name: 'Delete 2 Keys' }).click();
    expect(await textOf(bulk.getByRole('alert'))).toBe('Please provide a reason for deleting these keys');
    await bulk.getByLabel('Reason for deleting').fill('Leaked in the browser test');
    await bulk.getByRole('button', { name: 'Delete 2 Keys' }).click();
    expect(await visible(toastWith(page, '2 license keys deleted'))).toBe(true);
    await page.waitForFunction(() => document.querySelectorAll('.admin-key-grid > li').length === 3);
    const left = await page.locator('.admin-key-grid code').allTextContents();
    expect(left.sort()).toEqual([keys[0], keys[3], keys[4]].sort());

    // A key sold for 3 days: the orange badge, the red days, and the owner removing its device.
    const customer = await makeAccount('user');
    const productId = (await apiCall('GET', '/api/products', undefined, ownerToken)).body.find((p) => p.keyTag === tag)!._id;
    const sold = await apiCall(
      'POST',
      `/api/admin/users/${customer.id}/purchase/${productId}`,
      { duration: 3, bypassBalance: true, useResellerCredits: false },
      ownerToken,
    );
    expect(sold.status).toBe(201);
    const soldKey = sold.body.licenseKey.key;
    const activated = await apiCall('POST', '/api/v1/licenses/activate', {
      key: soldKey,
      deviceFingerprint: 'browser-test-device-0001',
      deviceInfo: { manufacturer: 'Acme', model: 'Phone 9' },
    });
    expect(activated.body.valid).toBe(true);
    await page.getByRole('button', { name: 'Refresh Keys' }).click();
    const soldCard = keyCards(page).filter({ hasText: soldKey });
    // As shown (innerText applies the CSS), not only as written.
    expect(await visible(soldCard.locator('.badge-orange'))).toBe(true);
    expect(await soldCard.locator('.badge-orange').innerText()).toBe('3d left');
    await screenshot(page, 'admin-keys');
    await soldCard.getByRole('button', { name: `Details of ${soldKey}` }).click();
    const details = dialog(page, 'License Key Details');
    expect(await textOf(details.getByTestId('days-remaining'))).toBe('3 days');
    expect(await details.getByTestId('days-remaining').getAttribute('class')).toContain('days-red');
    expect(await textOf(details.getByRole('list', { name: 'Activated devices' }))).toContain('Acme Phone 9');
    await screenshot(page, 'admin-key-details');
    await details.getByRole('button', { name: 'Remove device browser-test-dev…' }).click();
    await details.getByRole('button', { name: 'Confirm removal' }).click();
    expect(await visible(details.getByText('No device has activated this key yet.'))).toBe(true);
    // The removed device may still work offline: its slot is held until its token expires, unless the owner releases it.
    expect(await textOf(details.getByRole('list', { name: 'Held slots' }))).toContain('browser-test-dev');
    await screenshot(page, 'admin-key-held-slot');
    await details.getByRole('button', { name: 'Release slot of browser-test-dev… now' }).click();
    await details.getByRole('button', { name: 'Confirm release' }).click();
    await details.getByRole('list', { name: 'Held slots' }).waitFor({ state: 'detached' });
    expect(
      (await apiCall('POST', '/api/v1/licenses/activate', { key: soldKey, deviceFingerprint: 'browser-test-device-0002' })).body.code,
    ).toBe('VALID');
    await page.keyboard.press('Escape');
    expect(await dialog(page, 'License Key Details').count()).toBe(0);
    await context.close();
  });

  it('lets a reseller buy a key for a customer, who then finds it in My Keys', async () => {
    const tag = tagOf();
    const product = await apiCall(
      'POST',
      '/api/products',
      {
        name: `Resale ${tag}`,
        description: 'Sold by resellers',
        keyTag: tag,
        baseCreditCost: 100,
        creditsPerDay: 10,
        minDays: 7,
        maxDays: 60,
      },
      ownerToken,
    );
    expect(product.status).toBe(201);
    const reseller = await makeAccount('reseller', 1000);
    const customer = await makeAccount('user');

    const { context, page } = await newPage(browser);
    await signIn(page, reseller);
    await page.goto('/admin?tab=purchase');
    expect(await visible(page.getByRole('heading', { name: 'Reseller Purchase' }))).toBe(true);
    await page.getByLabel('Find a user').fill(customer.username);
    const userSelect = page.getByLabel('User', { exact: true });
    await page.waitForFunction(
      (name) => Array.from(document.querySelectorAll('option')).some((o) => o.textContent?.startsWith(name)),
      customer.username,
    );
    await userSelect.selectOption({ index: 1 });
    await page.getByRole('combobox', { name: 'Product', exact: true }).selectOption({ label: `Resale ${tag} (100 + 10/day)` });
    // 7 days at the reseller price: 100 + ceil(7 x 10 x 75 / 100) = 153.
    expect(await textOf(page.getByTestId('direct-purchase-total'))).toBe('153 credits');
    expect(await page.getByLabel('Bypass balance check (free purchase)').count()).toBe(0);
    await screenshot(page, 'admin-reseller-purchase');
    await page.getByRole('button', { name: `Purchase for ${customer.username}` }).click();
    expect(await visible(page.getByRole('heading', { name: `Key purchased for ${customer.username}` }))).toBe(true);
    const key = await textOf(page.getByTestId('purchased-key'));
    expect(key.startsWith(`${tag}-`)).toBe(true);
    expect(await textOf(page.getByTestId('header-credits'))).toContain('847');

    // The reseller's own list: titled for them, select-all disabled, no owner actions.
    await tab(page, 'License Keys').click();
    expect(await visible(page.getByRole('heading', { name: 'My License Keys' }))).toBe(true);
    expect(await page.getByLabel('Select all on this page').isDisabled()).toBe(true);
    expect(await visible(keyCards(page).filter({ hasText: key }))).toBe(true);
    expect(await page.getByRole('button', { name: `Revoke ${key}` }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Delete Selected/ }).count()).toBe(0);
    await screenshot(page, 'admin-reseller-keys');
    await context.close();

    const customerPage = await newPage(browser);
    await signIn(customerPage.page, customer);
    await customerPage.page.goto('/my-keys');
    expect(await visible(customerPage.page.getByText(key))).toBe(true);
    await customerPage.context.close();
  });

  it('gives the owner a direct purchase, free with the bypass', async () => {
    const customer = await makeAccount('user');
    const { context, page } = await newPage(browser, { mobile: true });
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=purchase');
    expect(await visible(page.getByRole('heading', { name: 'Direct Purchase' }))).toBe(true);
    await page.getByLabel('Find a user').fill(customer.username);
    await page.waitForFunction(
      (name) => Array.from(document.querySelectorAll('option')).some((o) => o.textContent?.startsWith(name)),
      customer.username,
    );
    await page.getByLabel('User', { exact: true }).selectOption({ index: 1 });
    const products = await page.getByRole('combobox', { name: 'Product', exact: true }).locator('option').allTextContents();
    await page.getByRole('combobox', { name: 'Product', exact: true }).selectOption({ label: products[1] });
    // The customer has no credits: only the bypass lets the purchase through.
    expect(await page.getByRole('button', { name: `Purchase for ${customer.username}` }).isDisabled()).toBe(true);
    await page.getByLabel('Bypass balance check (free purchase)').check();
    expect(await textOf(page.getByTestId('direct-purchase-total'))).toBe('Free');
    await screenshot(page, 'admin-direct-purchase-phone');
    await page.getByRole('button', { name: `Purchase for ${customer.username}` }).click();
    expect(await visible(page.getByRole('heading', { name: `Key purchased for ${customer.username}` }))).toBe(true);
    const mine = await apiCall('GET', '/api/users/my-keys', undefined, await apiLogin(customer));
    expect(mine.body.keys).toHaveLength(1);
    expect(mine.body.keys[0].purchasePrice).toBe(0);

    await page.goto('/admin?tab=keys');
    expect(await visible(page.getByRole('heading', { name: 'License Key Management' }))).toBe(true);
    await screenshot(page, 'admin-keys-phone');
    await context.close();
  });

  it('shows the owner the system analytics as charts, with their data tables', async () => {
    for (const mobile of [false, true]) {
      const { context, page } = await newPage(browser, { mobile });
      await signIn(page, ownerCredentials());
      await page.goto('/system-analytics');
      expect(await visible(page.getByRole('heading', { name: 'System Analytics', level: 1 }))).toBe(true);
      for (const chart of ['Revenue per day', 'Keys sold per day', 'New users per day', 'Activations per day', 'Sales by product']) {
        expect(await visible(page.getByRole('img', { name: chart }))).toBe(true);
      }
      expect(await page.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed')).toBe('true');
      // Today's bars: the keys sold by the tests above.
      const soldToday = page.getByRole('figure').filter({ hasText: 'Keys sold per day' });
      await soldToday.getByText('Data table').click();
      const rows = soldToday.getByRole('row');
      expect(await rows.count()).toBe(31);
      expect(await textOf(rows.last())).toMatch(/[1-9]\d* keys?$/);
      await page.getByRole('button', { name: 'Last 7 days' }).click();
      await page.waitForURL('**/system-analytics?days=7');
      await page.waitForFunction(() => document.querySelectorAll('figure')[1]?.querySelectorAll('tbody tr').length === 7);
      await screenshot(page, mobile ? 'system-analytics-phone' : 'system-analytics');
      await context.close();
    }
  });
});
