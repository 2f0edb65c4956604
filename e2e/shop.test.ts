// The shop in a real browser: exchange USD for credits, buy keys on both screens, find them in My Keys.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, ownerCredentials, register, screenshot, textOf, visible } from './browser';

let browser: Browser;
let ownerToken: string;
let rate: number;

type ProductBody = {
  name: string;
  description: string;
  keyTag: string;
  baseCreditCost: number;
  creditsPerDay: number;
  minDays?: number;
  maxDays?: number;
  features?: string[];
  productType?: string;
};
type CreatedProduct = ProductBody & { _id: string; minDays: number; maxDays: number };

const tag = () => `E${Date.now().toString(36).toUpperCase().slice(-6)}${Math.floor(Math.random() * 1000)}`.slice(0, 10);

async function createProduct(body: Omit<ProductBody, 'keyTag' | 'description'> & { description?: string }): Promise<CreatedProduct> {
  const res = await apiCall('POST', '/api/products', { description: 'Made by the shop test', keyTag: tag(), ...body }, ownerToken);
  if (res.status !== 201) throw new Error(`product not created: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The signed-in browser user's token and id. */
async function whoAmI(page: Page) {
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  const profile = await apiCall('GET', '/api/users/profile', undefined, token);
  return { token, id: profile.body._id };
}

async function fund(userId: string, amounts: { usd?: number; credits?: number }) {
  if (amounts.usd)
    expect((await apiCall('POST', `/api/admin/users/${userId}/balance`, { amount: amounts.usd, type: 'balance' }, ownerToken)).status).toBe(
      200,
    );
  if (amounts.credits)
    expect(
      (await apiCall('POST', `/api/admin/users/${userId}/balance`, { amount: amounts.credits, type: 'credits' }, ownerToken)).status,
    ).toBe(200);
}

/** A registered customer with these balances, on the given page, seeing them in the header. */
async function customer(page: Page, amounts: { usd?: number; credits?: number } = {}) {
  const user = await register(page);
  const me = await whoAmI(page);
  await fund(me.id, amounts);
  await page.reload();
  return { ...user, ...me };
}

const toastWith = (page: Page, text: string | RegExp) => page.getByTestId('toast').filter({ hasText: text });

let office: CreatedProduct;
let premium: CreatedProduct;
beforeAll(async () => {
  browser = await launchBrowser();
  ownerToken = await apiLogin(ownerCredentials());
  rate = (await apiCall('GET', '/api/credits/exchange-rate', undefined, ownerToken)).body.rate;
  office = await createProduct({
    name: `Office Suite ${tag()}`,
    baseCreditCost: 100,
    creditsPerDay: 10,
    minDays: 1,
    maxDays: 90,
    features: ['Word processor', 'Spreadsheets', 'Slides', 'Cloud sync', 'Mail', 'Calendar'],
  });
  premium = await createProduct({
    name: `Studio Max ${tag()}`,
    baseCreditCost: 5000,
    creditsPerDay: 50,
    minDays: 7,
    maxDays: 365,
    productType: 'game',
    features: ['Everything'],
  });
});
afterAll(async () => {
  await browser?.close();
});

describe('the exchange', () => {
  it('turns USD into credits with the preview, summary and quick amounts', async () => {
    const { context, page } = await newPage(browser);
    await customer(page, { usd: 20 });
    await page.goto('/exchange');
    expect(await textOf(page.getByTestId('exchange-rate'))).toBe(`1 USD = ${rate} credits`);
    expect(await textOf(page.getByTestId('exchange-usd'))).toBe('$20.00');
    const quick = page.getByRole('group', { name: 'Quick amounts' });
    expect(await quick.getByRole('button', { name: '$25' }).isDisabled()).toBe(true);
    expect(await quick.getByRole('button', { name: '$10' }).isEnabled()).toBe(true);
    const submit = page.getByRole('button', { name: 'Exchange', exact: true });
    expect(await submit.isDisabled()).toBe(true);

    const expected = Math.floor((555 * rate) / 100);
    await page.getByLabel('USD amount').fill('5.55');
    expect(await page.getByLabel('Credits to receive').inputValue()).toBe(expected.toLocaleString('en-US'));
    expect(await textOf(page.getByTestId('new-usd'))).toBe('$14.45');
    expect(await textOf(page.getByTestId('new-credits'))).toBe(expected.toLocaleString('en-US'));
    await screenshot(page, 'exchange');
    await submit.click();
    expect(await visible(toastWith(page, `Exchanged $5.55 for ${expected} credits`))).toBe(true);
    expect(await textOf(page.getByTestId('header-credits'))).toBe(expected.toLocaleString('en-US'));
    expect(await textOf(page.getByTestId('header-balance'))).toBe('$14.45');
    expect(await page.getByLabel('USD amount').inputValue()).toBe('');

    await page.getByLabel('USD amount').fill('100');
    expect(await visible(page.getByText('Insufficient USD balance'))).toBe(true);
    expect(await submit.isDisabled()).toBe(true);
    await page.getByLabel('USD amount').fill('-3');
    expect(await visible(page.getByText('Please enter a valid USD amount'))).toBe(true);
    expect(await submit.isDisabled()).toBe(true);
    await quick.getByRole('button', { name: '$10' }).click();
    expect(await page.getByLabel('USD amount').inputValue()).toBe('10.00');
    expect(await submit.isEnabled()).toBe(true);
    await context.close();
  });

  it('explains on /add-balance how USD arrives when card top-ups are off, and links to the exchange', async () => {
    const settings = (await apiCall('GET', '/api/settings', undefined, ownerToken)).body;
    expect(
      (await apiCall('PUT', '/api/settings', { ...settings, payments: { ...settings.payments, cardTopUpsEnabled: false } }, ownerToken))
        .status,
    ).toBe(200);
    const { context, page } = await newPage(browser);
    try {
      const user = await customer(page, { usd: 3.5 });
      await page.goto('/add-balance');
      expect(await visible(page.getByRole('heading', { name: 'Add Balance' }))).toBe(true);
      expect(await textOf(page.getByTestId('add-balance-usd'))).toBe('$3.50');
      expect(await visible(page.getByText(user.username, { exact: true }).first())).toBe(true);
      expect(await page.getByRole('button', { name: /^Pay/ }).count()).toBe(0);
      await screenshot(page, 'add-balance');
      await page.getByRole('link', { name: 'Go to Exchange' }).click();
      await page.waitForURL('**/exchange');
    } finally {
      await apiCall('PUT', '/api/settings', settings, ownerToken);
      await context.close();
    }
  });
});

describe('buying keys', () => {
  it('buys through the product card’s modal and finds the key in My Keys', async () => {
    const { context, page } = await newPage(browser);
    await customer(page, { credits: 1000 });
    await page.goto('/products');
    const card = page.getByRole('article', { name: office.name });
    expect(await visible(card)).toBe(true);
    expect(await visible(card.getByText('+2 more'))).toBe(true);
    expect(await visible(card.getByText(office.keyTag))).toBe(true);
    expect(await visible(card.getByText('1-90 days'))).toBe(true);
    // 90 days cost 1,000, the 1-day key 110: affordable; 'n/a' never shows for durations in range.
    const samples = card.getByRole('list', { name: 'Sample costs' });
    expect(await samples.locator('.sample-unaffordable').count()).toBe(0);
    const dear = page.getByRole('article', { name: premium.name });
    expect(await dear.getByRole('button', { name: 'Insufficient Credits' }).isDisabled()).toBe(true);
    expect(await dear.locator('.sample-unaffordable').count()).toBeGreaterThan(0);
    await screenshot(page, 'products');

    await card.getByRole('button', { name: 'Purchase License' }).click();
    const dialog = page.getByRole('dialog', { name: 'Purchase License' });
    expect(await visible(dialog)).toBe(true);
    expect(await textOf(dialog.getByTestId('purchase-total'))).toBe('110 credits');
    await dialog.getByLabel('Duration (days)').fill('30');
    expect(await textOf(dialog.getByTestId('purchase-total'))).toBe('400 credits');
    expect(await textOf(dialog.getByTestId('credits-after'))).toBe('600 credits');
    await screenshot(page, 'purchase-modal');
    await dialog.getByRole('button', { name: 'Purchase', exact: true }).click();
    expect(await visible(toastWith(page, 'License key purchased'))).toBe(true);
    await dialog.waitFor({ state: 'detached' });
    expect(await textOf(page.getByTestId('header-credits'))).toBe('600');
    expect(await textOf(page.getByTestId('panel-credits'))).toBe('600');
    // Opened again, the dialog starts at the product's minimum.
    await card.getByRole('button', { name: 'Purchase License' }).click();
    expect(await page.getByRole('dialog').getByLabel('Duration (days)').inputValue()).toBe('1');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'My Keys', exact: true }).click();
    await page.waitForURL('**/my-keys');
    const key = page.getByRole('article', { name: office.name });
    expect(await visible(key)).toBe(true);
    expect(await visible(key.getByText('Active', { exact: true }))).toBe(true);
    expect(await textOf(key.locator('.key-box code'))).toMatch(new RegExp(`^${office.keyTag}-`));
    expect(await visible(key.getByText('30 days'))).toBe(true);
    expect(await visible(key.getByText('400 credits'))).toBe(true);
    await context.close();
  });

  it('buys on /purchase, copies the key, and My Keys shows it', async () => {
    const { context, page } = await newPage(browser);
    await customer(page, { credits: 500 });
    await page.goto('/purchase');
    const submit = page.getByRole('button', { name: /^Purchase/ });
    expect(await submit.isDisabled()).toBe(true);
    await page.getByLabel('Product', { exact: true }).selectOption({ label: `${office.name} (100 + 10/day)` });
    expect(await page.getByLabel('Duration (days)').inputValue()).toBe('1');
    await page.getByLabel('Number of days').fill('7');
    await page.getByLabel('Number of days').blur();
    expect(await textOf(page.getByTestId('purchase-total'))).toBe('170 credits');
    const side = page.getByRole('complementary');
    expect(await visible(side.getByRole('button', { name: new RegExp(office.name) }).getByText('7d: 170'))).toBe(true);
    // Choosing another product resets the duration to its minimum.
    await page.getByLabel('Product', { exact: true }).selectOption({ label: `${premium.name} (5,000 + 50/day)` });
    expect(await page.getByLabel('Duration (days)').inputValue()).toBe('7');
    expect(await visible(page.getByText('You need', { exact: false }))).toBe(true);
    expect(await submit.isDisabled()).toBe(true);
    await page.getByLabel('Product', { exact: true }).selectOption({ label: `${office.name} (100 + 10/day)` });
    await page.getByLabel('Number of days').fill('7');
    await page.getByLabel('Number of days').blur();
    await screenshot(page, 'purchase');
    // The purchase's answer carries its D1 bookmark; every call after it sends that bookmark (or a newer one) back.
    const purchaseAnswer = page.waitForResponse((r) => r.url().endsWith('/api/keys/purchase') && r.request().method() === 'POST');
    const sentAfter: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/users/my-keys') sentAfter.push(r.headers()['x-d1-bookmark'] ?? '');
    });
    await page.getByRole('button', { name: 'Purchase for 170 credits' }).click();
    const purchaseBookmark = (await (await purchaseAnswer).allHeaders())['x-d1-bookmark'];
    expect(purchaseBookmark).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/);

    expect(await visible(page.getByRole('heading', { name: 'Purchase successful!' }))).toBe(true);
    const key = await textOf(page.getByTestId('purchased-key'));
    expect(key).toMatch(new RegExp(`^${office.keyTag}(-[23456789A-Z]{5}){4}$`));
    expect(await visible(page.getByText('7 days'))).toBe(true);
    expect(await visible(page.getByText('170 credits', { exact: true }))).toBe(true);
    expect(await textOf(page.getByTestId('header-credits'))).toBe('330');
    // What the app writes to the clipboard, seen on its way: the page may write it, not read it back
    // (its Permissions-Policy allows clipboard-write and denies clipboard-read).
    await page.evaluate(() => {
      const clipboard = navigator.clipboard;
      const write = clipboard.writeText.bind(clipboard);
      const copied: string[] = [];
      Object.assign(window, { copied });
      clipboard.writeText = (text: string) => {
        copied.push(text);
        return write(text);
      };
    });
    await page.getByRole('button', { name: 'Copy license key' }).click();
    expect(await visible(toastWith(page, 'License key copied to clipboard'))).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { copied: string[] }).copied)).toEqual([key]);
    expect(
      await page.evaluate(() =>
        navigator.clipboard.readText().then(
          () => 'read',
          (err: Error) => err.name,
        ),
      ),
    ).toBe('NotAllowedError');
    await screenshot(page, 'purchase-success');

    await page.getByRole('link', { name: 'My Keys', exact: true }).last().click();
    await page.waitForURL('**/my-keys');
    await page.getByLabel('Search keys').fill(key.slice(-5));
    expect(await visible(page.locator('.key-box code').filter({ hasText: key }))).toBe(true);
    expect(await page.getByRole('article').count()).toBe(1);
    expect(sentAfter.length).toBeGreaterThan(0);
    for (const sent of sentAfter) expect(sent >= purchaseBookmark).toBe(true);

    // A purchase in the products page's modal invalidates My Keys through the query client: back on
    // My Keys (no reload), the new key is there. Without the invalidation the list, fetched just now
    // and fresh for 30 s, would be shown from the cache without it.
    await page.getByRole('button', { name: 'Clear Filters' }).first().click();
    expect(await page.getByRole('article').count()).toBe(1);
    // A mark on this document: a reload would lose it.
    await page.evaluate(() => Object.assign(window, { samePage: true }));
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Products', exact: true }).click();
    await page.waitForURL('**/products');
    await page.getByRole('article', { name: office.name }).getByRole('button', { name: 'Purchase License' }).click();
    const dialog = page.getByRole('dialog', { name: 'Purchase License' });
    await dialog.getByLabel('Duration (days)').fill('2');
    const modalAnswer = page.waitForResponse((r) => r.url().endsWith('/api/keys/purchase') && r.request().method() === 'POST');
    await dialog.getByRole('button', { name: 'Purchase', exact: true }).click();
    const bought = (await (await modalAnswer).json()) as { licenseKey: { key: string } };
    await dialog.waitFor({ state: 'detached' });
    await nav.getByRole('link', { name: 'My Keys', exact: true }).click();
    await page.waitForURL('**/my-keys');
    expect(await visible(page.locator('.key-box code').filter({ hasText: bought.licenseKey.key }))).toBe(true);
    expect(await page.getByRole('article').count()).toBe(2);
    expect(await page.evaluate(() => 'samePage' in window)).toBe(true);
    await screenshot(page, 'my-keys');
    await context.close();
  });

  it('shows the insufficient-credits states and the server’s breakdown', async () => {
    const { context, page } = await newPage(browser);
    const me = await customer(page, { credits: 150 });
    await page.goto('/products');
    const card = page.getByRole('article', { name: office.name });
    expect(await visible(card)).toBe(true);
    // 150 credits: 1 day (110) is affordable, 7 days (170) and beyond are red with a cross.
    const samples = card.getByRole('list', { name: 'Sample costs' });
    expect(await samples.locator('.sample-unaffordable').count()).toBe(3);
    expect(await visible(samples.getByLabel('unaffordable'))).toBe(true);
    await card.getByRole('button', { name: 'Purchase License' }).click();
    const dialog = page.getByRole('dialog', { name: 'Purchase License' });
    await dialog.getByLabel('Duration (days)').fill('10');
    expect(await textOf(dialog.getByTestId('credits-after'))).toBe('50 credits short');
    expect(await dialog.getByRole('button', { name: 'Purchase', exact: true }).isDisabled()).toBe(true);
    await screenshot(page, 'purchase-modal-short');
    await dialog.getByLabel('Duration (days)').fill('1');

    // The credits are spent elsewhere before the screen knows: the server refuses with the breakdown.
    expect((await apiCall('POST', '/api/keys/purchase', { productId: office._id, duration: 5 }, me.token)).status).toBe(201);
    await dialog.getByRole('button', { name: 'Purchase', exact: true }).click();
    const refusal = toastWith(page, 'Insufficient credits');
    expect(await visible(refusal)).toBe(true);
    const text = await textOf(refusal);
    expect(text).toContain('Required credits: 110');
    expect(text).toContain('Available credits: 0');
    expect(text).toContain('Base cost: 100');
    expect(text).toContain('Duration cost: 10 (1 day)');
    expect(await visible(dialog)).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    expect(await visible(toastWith(page, 'Balance refreshed successfully!'))).toBe(true);
    expect(await card.getByRole('button', { name: 'Insufficient Credits' }).isDisabled()).toBe(true);
    await context.close();
  });
});

describe('My Keys', () => {
  it('shows the empty state with its links, and filters with Clear Filters', async () => {
    const { context, page } = await newPage(browser);
    await customer(page, { credits: 200 });
    await page.goto('/my-keys');
    expect(await visible(page.getByRole('heading', { name: 'No license keys yet' }))).toBe(true);
    expect(await visible(page.getByRole('link', { name: 'Browse Products' }))).toBe(true);
    expect(await visible(page.getByRole('link', { name: 'Purchase Keys' }))).toBe(true);
    await screenshot(page, 'my-keys-empty');
    const status = page.getByLabel('Status');
    expect(await status.locator('option').allTextContents()).toEqual(['All statuses', 'Active', 'Available', 'Expired', 'Revoked']);

    const { token } = await whoAmI(page);
    const bought = await apiCall('POST', '/api/keys/purchase', { productId: office._id, duration: 3 }, token);
    await page.getByRole('button', { name: 'Refresh Keys' }).click();
    const card = page.getByRole('article', { name: office.name });
    expect(await visible(card)).toBe(true);
    expect(await visible(card.getByText('Expires in 3 days'))).toBe(true);
    expect(await visible(card.getByText(bought.body.licenseKey.key))).toBe(true);
    await status.selectOption('expired');
    expect(await visible(page.getByRole('heading', { name: 'No keys match your filters' }))).toBe(true);
    await page.getByRole('button', { name: 'Clear Filters' }).last().click();
    expect(await visible(card)).toBe(true);
    expect(await status.inputValue()).toBe('');
    await context.close();
  });
});

describe('on a phone', () => {
  it('lays out the shop screens in one column', async () => {
    const { context, page } = await newPage(browser, { mobile: true });
    await customer(page, { usd: 12, credits: 300 });
    const { token } = await whoAmI(page);
    await apiCall('POST', '/api/keys/purchase', { productId: office._id, duration: 5 }, token);
    for (const [path, name, heading] of [
      ['/products', 'products-mobile', 'Available Products'],
      ['/purchase', 'purchase-mobile', 'Purchase License Keys'],
      ['/my-keys', 'my-keys-mobile', 'My License Keys'],
      ['/exchange', 'exchange-mobile', 'Exchange USD for Credits'],
      ['/add-balance', 'add-balance-mobile', 'Add Balance'],
    ] as const) {
      await page.goto(path);
      expect(await visible(page.getByRole('heading', { name: heading, level: 1 }))).toBe(true);
      await page.waitForLoadState('networkidle');
      // Nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(page, name);
    }
    await context.close();
  });
});
