// No page of the app logs a warning or an error in the browser's console (issue 47): every screen a
// guest, a customer and the owner can open, each Admin Panel tab, in English and in Arabic. A
// React warning, a failed request the app did not expect, a Permissions-Policy feature the browser
// does not know, a missing translation: each fails here with the page that logged it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, ownerCredentials, uniqueUser, visible } from './browser';
import { ADMIN_PAGES, CUSTOMER_PAGES, GUEST_PAGES } from './pages';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const OWNER_PAGES = [...CUSTOMER_PAGES, ...ADMIN_PAGES];

/** Every console warning and error, and every uncaught error, with the address that logged it. */
function watchConsole(page: Page) {
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' || message.type() === 'error') logged.push(`${message.type()} at ${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (err) => logged.push(`uncaught at ${page.url()}: ${err.message}`));
  return logged;
}

/** Opens each address and waits for the screen to settle: its requests answered, its spinner gone. */
async function visitAll(page: Page, addresses: string[]) {
  for (const address of addresses) {
    await page.goto(address);
    await page.waitForLoadState('networkidle');
    await visible(page.locator('h1, h2').first());
    await page.waitForTimeout(200);
  }
}

describe.each(['en', 'ar'])('the console in %s', (language) => {
  /** A page in this language (this browser's choice, as the picker keeps it), signed in with `token` if given. */
  async function openPage(token?: string) {
    const { context, page } = await newPage(browser);
    await context.addInitScript(
      ([lang, session]) => {
        localStorage.setItem('language', lang);
        if (session && !localStorage.getItem('token')) localStorage.setItem('token', session);
      },
      [language, token ?? ''],
    );
    return { context, page, logged: watchConsole(page) };
  }

  it('stays clean on the pages a guest opens', async () => {
    const { context, page, logged } = await openPage();
    await visitAll(page, GUEST_PAGES);
    expect(await page.evaluate(() => document.documentElement.dir)).toBe(language === 'ar' ? 'rtl' : 'ltr');
    expect(logged).toEqual([]);
    await context.close();
  });

  it("stays clean on a customer's pages", async () => {
    const owner = await apiLogin(ownerCredentials());
    const customer = uniqueUser('console');
    expect((await apiCall('POST', '/api/admin/users', { ...customer, emailVerified: true }, owner)).status).toBe(201);
    const { context, page, logged } = await openPage(await apiLogin(customer));
    await visitAll(page, CUSTOMER_PAGES);
    expect(logged).toEqual([]);
    await context.close();
  });

  it("stays clean on the owner's pages and every Admin Panel tab", async () => {
    const { context, page, logged } = await openPage(await apiLogin(ownerCredentials()));
    await visitAll(page, OWNER_PAGES);
    expect(logged).toEqual([]);
    await context.close();
  });
});
