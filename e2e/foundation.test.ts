import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, ownerCredentials, register, screenshot, signIn, textOf, visible } from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('the app shell', () => {
  it('sends a guest to /login and back where they were going after sign-in', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/exchange');
    await page.waitForURL('**/login');
    expect(await visible(page.getByRole('heading', { name: 'Sign in' }))).toBe(true);
    await screenshot(page, 'login');
    await page.getByRole('link', { name: 'Create one' }).click();
    const user = await register(page);
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL('**/login');
    await page.goto('/exchange');
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/exchange');
    await context.close();
  });

  it('registers a customer who lands on the dashboard with the user line', async () => {
    const { context, page } = await newPage(browser);
    const user = await register(page);
    expect(await visible(page.getByRole('heading', { name: `Welcome, ${user.username}!` }))).toBe(true);
    expect(await textOf(page.getByTestId('role-line'))).toBe('Ready to purchase some license keys?');
    expect(await visible(page.getByText('Purchased Keys'))).toBe(true);
    await expect(page.getByText('Available Keys').count()).resolves.toBe(0);
    expect(await textOf(page.getByTestId('header-balance'))).toBe('$0.00');
    expect(await textOf(page.getByTestId('header-credits'))).toBe('0');
    await expect(page.getByRole('link', { name: 'Admin Panel' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Resseler Panel' }).count()).resolves.toBe(0);
    await screenshot(page, 'dashboard-user');
    // The admin route is not for customers: back to the dashboard.
    await page.goto('/admin');
    await page.waitForURL('**/dashboard');
    await context.close();
  });

  it('shows registration errors inline and keeps the user on the page', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/register');
    await page.getByLabel('Username').fill('ab');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password', { exact: true }).fill('12345');
    await page.getByLabel('Confirm password').fill('54321');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await visible(page.getByText('Username must be at least 3 characters'))).toBe(true);
    expect(await visible(page.getByText('Please enter a valid email address'))).toBe(true);
    expect(await visible(page.getByText('Password must be at least 10 characters'))).toBe(true);
    expect(await visible(page.getByText('Passwords do not match'))).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/register');
    await context.close();
  });

  it('signs the owner in with the Admin Panel entry and the owner line', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    expect(await textOf(page.getByTestId('role-line'))).toBe('Manage your platform and oversee operations.');
    expect(await visible(page.getByRole('link', { name: 'Admin Panel' }))).toBe(true);
    expect(await visible(page.getByText('Available Keys'))).toBe(true);
    expect(await visible(page.getByText('Used Keys'))).toBe(true);
    expect(await visible(page.getByRole('link', { name: /System Analytics/ }))).toBe(true);
    await screenshot(page, 'dashboard-owner');
    await context.close();
  });

  it('rejects a wrong password with a toast and a token pasted as the email', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password', { exact: true }).fill('wrong-pass');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(await visible(page.getByRole('alert').filter({ hasText: 'Invalid email or password' }))).toBe(true);
    await page.getByLabel('Email').fill('eyJhbGciOi.abc.def');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(await visible(page.getByText('Invalid email format. Please enter a valid email address.').first())).toBe(true);
    await context.close();
  });

  it('logs out, clearing the token, and an expired session goes to /login?expired=true', async () => {
    const { context, page } = await newPage(browser);
    await register(page);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toMatch(/^eyJ/);
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

    await register(page);
    // The server forgets the session (as after a terminate elsewhere); the next call is a 401.
    const token = await page.evaluate(() => localStorage.getItem('token'));
    await fetch(new URL('/api/auth/logout', page.url()), { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    // Any call now answers 401. The button is disabled while a refresh is in flight (slow on a busy
    // machine), so the click waits for it; the page may also be leaving already because of another
    // call, and then the click is not waited for.
    const expired = page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('expired') === 'true');
    await Promise.race([
      expired,
      page
        .getByRole('button', { name: 'Refresh balance' })
        .click({ timeout: 15_000 })
        .catch(() => undefined),
    ]);
    await expired;
    expect(await visible(page.getByText('Your session has expired'))).toBe(true);
    await context.close();
  });

  it('collapses the sidebar on a phone and closes it on navigation', async () => {
    const { context, page } = await newPage(browser, { mobile: true });
    await register(page);
    const sidebar = page.locator('#sidebar');
    // Closed, it has slid off the screen and is hidden (no box: out of sight and out of the Tab order).
    const inView = async () => ((await sidebar.boundingBox())?.x ?? -1) >= 0;
    expect(await inView()).toBe(false);
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.waitForTimeout(300);
    expect(await inView()).toBe(true);
    await screenshot(page, 'mobile-menu');
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'My Keys', exact: true }).click();
    await page.waitForURL('**/my-keys');
    await page.waitForTimeout(300);
    expect(await inView()).toBe(false);
    await context.close();
  });

  it('shows a not-found page inside the app layout for an unknown route', async () => {
    const { context, page } = await newPage(browser);
    await register(page);
    await page.goto('/no-such-page');
    expect(await visible(page.getByRole('heading', { name: 'Page not found' }))).toBe(true);
    // Inside the layout: the navigation is there, and no error screen.
    expect(await visible(page.getByRole('navigation', { name: 'Main navigation' }))).toBe(true);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    await context.close();
  });
});
