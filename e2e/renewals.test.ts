// After the sale (issue 43): a customer renews an expiring key from My Keys, seeing the price first,
// pays once, and the same key value validates with the later expiry on the same device; then switches
// auto-renewal on. The owner chooses the perpetual-fallback licence model in the product form, and
// the product's keys say it in their signed answers and offline tokens.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, ownerCredentials, register, screenshot, signIn, textOf, visible } from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const DAY = 86_400_000;
const toastWith = (page: Page, text: string | RegExp) => page.getByTestId('toast').filter({ hasText: text });

describe('renewing a key in My Keys', () => {
  it('shows the price, debits once, keeps the key value and device, and switches auto-renewal on', async () => {
    const ownerToken = await apiLogin(ownerCredentials());
    const keyTag = `RN${Date.now().toString(36).toUpperCase().slice(-6)}`;
    const product = await apiCall(
      'POST',
      '/api/products',
      {
        name: `Renew App ${keyTag}`,
        description: 'Sold by the day',
        keyTag,
        baseCreditCost: 10,
        creditsPerDay: 2,
        minDays: 1,
        maxDays: 90,
      },
      ownerToken,
    );
    expect(product.status).toBe(201);

    const { context, page } = await newPage(browser);
    await register(page);
    const token = (await page.evaluate(() => localStorage.getItem('token')))!;
    const me = (await apiCall('GET', '/api/users/profile', undefined, token)).body;
    expect((await apiCall('POST', `/api/admin/users/${me._id}/balance`, { amount: 200, type: 'credits' }, ownerToken)).status).toBe(200);
    // A key bought for 3 days: it expires soon.
    const bought = await apiCall('POST', '/api/keys/purchase', { productId: product.body._id, duration: 3 }, token);
    expect(bought.status).toBe(201);
    const { key, expiryDate } = bought.body.licenseKey;
    const device = 'renew-desktop-fingerprint-01';
    expect((await apiCall('POST', '/api/v1/licenses/activate', { key, deviceFingerprint: device })).body.code).toBe('VALID');

    await page.goto('/my-keys');
    expect(await visible(page.getByText('Expires in 3 days'))).toBe(true);
    await page.getByRole('button', { name: `Renew license key ${key}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Renew this license key' });
    expect(await visible(dialog)).toBe(true);
    // The price before confirming: 10 + 30 x 2 for 30 days, against 184 credits (200 - 16).
    await dialog.getByLabel('Number of days').fill('30');
    expect(await textOf(dialog.getByTestId('purchase-total'))).toBe('70 credits');
    expect(await textOf(dialog.getByTestId('credits-after'))).toBe('114 credits');
    const newExpiry = Date.parse(expiryDate!) + 30 * DAY;
    await screenshot(page, 'renew-key');
    await dialog.getByRole('button', { name: 'Renew' }).click();
    expect(await visible(toastWith(page, `Renewed ${key}`))).toBe(true);
    // Debited once.
    expect((await apiCall('GET', '/api/users/profile', undefined, token)).body.credits).toBe(114);
    // The card no longer warns of the expiry: it is 33 days away now.
    await page.getByText('Expires in 3 days').waitFor({ state: 'detached', timeout: 20_000 });

    // The same key value validates on the same device with the later expiry.
    const valid = await apiCall('POST', '/api/v1/licenses/validate', { key, deviceFingerprint: device });
    expect(valid.body).toMatchObject({ valid: true, code: 'VALID', license: { key, expiresAt: new Date(newExpiry).toISOString() } });
    // The key's activity says so.
    await page.getByRole('button', { name: 'Show activity' }).click();
    expect(await visible(page.getByText('Renewed', { exact: true }))).toBe(true);

    // Auto-renewal on, 10 days at a time.
    await page.getByLabel('Days per automatic renewal').fill('10');
    await page.getByLabel('Renew automatically from my credits').check();
    expect(await visible(toastWith(page, 'Auto-renewal is on'))).toBe(true);
    expect(await page.getByLabel('Renew automatically from my credits').isChecked()).toBe(true);
    const mine = await apiCall('GET', '/api/users/my-keys', undefined, token);
    expect(mine.body.keys[0]).toMatchObject({ key, autoRenewDays: 10 });
    await screenshot(page, 'auto-renew-on');
    await context.close();
  });
});

describe('the licence model in the product form', () => {
  it('lets the owner choose perpetual fallback, and its keys carry the model in their signed answers', async () => {
    const ownerToken = await apiLogin(ownerCredentials());
    const tag = `PF${Date.now().toString(36).toUpperCase()}`.slice(0, 10);
    const name = `Desktop Suite ${tag}`;
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=products');
    await page.getByRole('button', { name: 'Create Product' }).click();
    const form = page.getByRole('dialog', { name: 'Create Product' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Key tag').fill(tag);
    await form.getByLabel('Description').fill('Yours forever, with a year of updates');
    await form.getByLabel('Base cost (credits)').fill('10');
    await form.getByLabel('Credits per day').fill('1');
    await form.getByLabel('How keys end').selectOption('perpetual-fallback');
    expect(await visible(form.getByText('app releases dated before the expiry keep working'))).toBe(true);
    await screenshot(page, 'product-form-perpetual-fallback');
    await form.getByRole('button', { name: 'Create Product' }).click();
    expect(await visible(toastWith(page, `${name} created`))).toBe(true);
    const product = (await apiCall('GET', '/api/products', undefined, ownerToken)).body.find((p) => p.keyTag === tag)!;
    expect(product.expiryModel).toBe('perpetual-fallback');

    // Editing it again shows the model chosen.
    await page
      .getByRole('button', { name: new RegExp(`Edit ${name}`) })
      .first()
      .click();
    const edit = page.getByRole('dialog', { name: `Edit ${name}` });
    expect(await edit.getByLabel('How keys end').inputValue()).toBe('perpetual-fallback');
    await edit.getByRole('button', { name: 'Cancel' }).click();

    // A key of it answers with its model, which the signed answer and the offline token carry; a
    // release dated before the key's expiry keeps validating once it has passed (worker tests hold that).
    const generated = await apiCall('POST', '/api/keys/generate', { productId: product._id, quantity: 1, duration: 1 }, ownerToken);
    expect(generated.status).toBe(201);
    const key = generated.body.keys[0].key;
    const device = 'fallback-workstation-0001';
    const activated = await apiCall('POST', '/api/v1/licenses/activate', { key, deviceFingerprint: device });
    expect(activated.body).toMatchObject({ valid: true, code: 'VALID', license: { expiryModel: 'perpetual-fallback' } });
    const token = activated.body.license!.token!;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(claims.model).toBe('perpetual-fallback');
    await context.close();
  });
});
