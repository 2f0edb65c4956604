// Resellers who earn, in the browser: the owner creates a tier and puts a reseller in it; the reseller
// sees their price before buying and shares their referral link; a customer registers through it and
// buys a key; the reseller sees the commission in their statistics.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, ownerCredentials, screenshot, signIn, textOf, uniqueUser, visible } from './browser';

let browser: Browser;
let ownerToken: string;
beforeAll(async () => {
  browser = await launchBrowser();
  ownerToken = await apiLogin(ownerCredentials());
});
afterAll(async () => {
  await browser?.close();
});

describe('resellers who earn', () => {
  it('a tier, a referral link, a referred customer’s purchase and the commission in the reseller’s statistics', async () => {
    const tag = `R${Date.now().toString(36).toUpperCase()}`.slice(0, 10);
    const product = await apiCall(
      'POST',
      '/api/products',
      { name: `Referral ${tag}`, description: 'Sold through resellers', keyTag: tag, baseCreditCost: 100, creditsPerDay: 10 },
      ownerToken,
    );
    expect(product.status).toBe(201);
    const reseller = uniqueUser('tierres');
    const made = await apiCall(
      'POST',
      '/api/admin/users',
      { ...reseller, role: 'reseller', credits: 1000, balance: 0, currentPassword: ownerCredentials().password },
      ownerToken,
    );
    expect(made.status).toBe(201);
    const tierName = `Gold ${tag}`;

    // The owner creates a tier and puts the reseller in it.
    const owner = await newPage(browser);
    await signIn(owner.page, ownerCredentials());
    await owner.page.goto('/admin?tab=resellers');
    await owner.page.getByRole('button', { name: 'New Tier' }).click();
    const form = owner.page.getByRole('dialog', { name: 'Create Tier' });
    await form.getByLabel('Tier name').fill(tierName);
    await form.getByLabel('Wholesale discount (%)').fill('20');
    await form.getByLabel('Commission (%)').fill('10');
    await form.getByRole('button', { name: 'Create Tier' }).click();
    const tiers = owner.page.getByRole('table', { name: 'Reseller tiers' });
    expect(await visible(tiers.getByRole('row').filter({ hasText: tierName }))).toBe(true);
    await owner.page.getByLabel(`Tier of ${reseller.username}`).selectOption({ label: tierName });
    expect(await visible(owner.page.getByTestId('toast').filter({ hasText: `${reseller.username} moved` }))).toBe(true);
    await screenshot(owner.page, 'resellers-owner');

    // The reseller sees their tier's price before buying, and their referral link.
    const res = await newPage(browser);
    await signIn(res.page, reseller);
    await res.page.goto('/admin?tab=purchase');
    expect(await textOf(res.page.getByTestId('reseller-tier'))).toContain(`${tierName}, 20% off the list price`);
    await res.page.getByRole('combobox', { name: 'Product', exact: true }).selectOption({ label: `Referral ${tag} (100 + 10/day)` });
    // 1 day: 110 list, less 20% (22): 88.
    expect(await textOf(res.page.getByTestId('direct-purchase-total'))).toBe('88 credits');
    await res.page.getByRole('link', { name: 'Resseler Panel' }).click();
    await res.page.getByRole('tab', { name: 'Overview', selected: true }).waitFor();
    expect(await visible(res.page.getByRole('heading', { name: 'My Statistics' }))).toBe(true);
    const link = await textOf(res.page.getByTestId('referral-link'));
    expect(link).toMatch(/\/register\?ref=[0-9A-F]{10}$/);
    await res.page.getByRole('button', { name: 'Copy referral link' }).click();
    expect(await visible(res.page.getByTestId('toast').filter({ hasText: 'Referral link copied' }))).toBe(true);

    // A customer registers through the link, is given credits, and buys a key in the shop.
    const customer = uniqueUser('refcust');
    const shopper = await newPage(browser);
    await shopper.page.goto(new URL(link).pathname + new URL(link).search);
    expect(await shopper.page.getByLabel('Referral code (optional)').inputValue()).toBe(new URL(link).searchParams.get('ref'));
    await shopper.page.getByLabel('Username').fill(customer.username);
    await shopper.page.getByLabel('Email').fill(customer.email);
    await shopper.page.getByLabel('Password', { exact: true }).fill(customer.password);
    await shopper.page.getByLabel('Confirm password').fill(customer.password);
    await shopper.page.getByRole('button', { name: 'Create account' }).click();
    await shopper.page.waitForURL('**/dashboard');
    const found = await apiCall('GET', `/api/admin/users?search=${customer.username}`, undefined, ownerToken);
    const customerId = found.body.users.find((u: { username: string }) => u.username === customer.username)!._id;
    expect((await apiCall('POST', `/api/admin/users/${customerId}/balance`, { amount: 500, type: 'credits' }, ownerToken)).status).toBe(
      200,
    );
    await shopper.page.goto('/purchase');
    await shopper.page.getByLabel('Product', { exact: true }).selectOption({ label: `Referral ${tag} (100 + 10/day)` });
    await shopper.page.getByRole('button', { name: 'Purchase for 110 credits' }).click();
    expect(await visible(shopper.page.getByRole('heading', { name: 'Purchase successful!' }))).toBe(true);

    // The reseller sees the commission (10% of 110: 11) and the customer in their statistics.
    await res.page.reload();
    const figures = res.page.getByRole('region', { name: 'Reseller figures' });
    expect(await textOf(figures.getByText('Credits Earned').locator('..'))).toContain('11');
    const customers = res.page.getByRole('table', { name: 'Customers' });
    const row = customers.getByRole('row').filter({ hasText: customer.username });
    expect(await visible(row)).toBe(true);
    expect(await textOf(row)).toContain('11 credits');
    expect(await visible(res.page.getByRole('img', { name: 'Credits earned per day' }))).toBe(true);
    await screenshot(res.page, 'resellers-statistics');

    // The owner compares: the reseller's figures in the Resellers tab.
    await owner.page.reload();
    const compared = owner.page.getByRole('table', { name: 'Resellers compared' }).getByRole('row').filter({ hasText: reseller.username });
    expect(await textOf(compared)).toContain('11 credits');
    for (const { context } of [owner, res, shopper]) await context.close();
  });
});
