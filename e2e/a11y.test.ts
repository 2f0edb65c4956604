// Accessibility and layout in the browser (issue 47), in English and in Arabic:
// - axe-core (WCAG 2.2 A and AA rules, and its best practices) finds nothing serious or critical on
//   any page a guest, a customer, a reseller or the owner opens, nor with any kind of dialog open;
// - My Keys, Purchase, the Admin Overview and the Reseller Panel at 390 px and 1366 px: a picture
//   of each (e2e/screenshots/, not committed), and no element out of the screen or cut off by its box;
// - the dark sidebar spans the whole height of a long page, and an analytics chart reads from the right in Arabic;
// - keyboard only: register, buy, My Keys, renew (the dialog holding focus and giving it back) and
//   sign out, each outcome said in a live region.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import IntlMessageFormat from 'intl-messageformat';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, ownerCredentials, screenshot, uniqueUser, visible } from './browser';
import { ADMIN_PAGES, CUSTOMER_PAGES, GUEST_PAGES } from './pages';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CATALOGS = path.join(import.meta.dirname, '../web/src/lib/i18n/messages');
/** A language's messages of every area (lib/i18n/catalogs.ts): the core, the signed-in screens', the Admin Panel's. */
const catalog = (language: string) =>
  Object.assign(
    {},
    ...['', 'account', 'admin'].map(
      (area) => JSON.parse(readFileSync(path.join(CATALOGS, area, `${language}.json`), 'utf8')) as Record<string, string>,
    ),
  ) as Record<string, string>;
const ENGLISH = catalog('en');
const LANGUAGES = ['en', 'ar'] as const;
type Language = (typeof LANGUAGES)[number];
const TRANSLATED: Record<Language, Record<string, string>> = { en: ENGLISH, ar: catalog('ar') };

/**
 * What the app shows for an English text in `language`: the translation of every catalog message
 * whose English is that text (several: any of them), or the text itself where no catalog has it yet.
 * So the tests find a control by what a reader of that language sees.
 */
function say(language: Language, english: string, values: Record<string, string | number> = {}): string | RegExp {
  const format = (message: string) => String(new IntlMessageFormat(message, language).format(values));
  const ids = Object.keys(ENGLISH).filter((id) => ENGLISH[id] === english);
  const shown = [...new Set((ids.length ? ids.map((id) => TRANSLATED[language][id] ?? english) : [english]).map(format))];
  if (shown.length === 1) return shown[0];
  return new RegExp(`^(${shown.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
}

let browser: Browser;
let ownerToken: string;
/** A customer with credits and a key, and a reseller: made through the API (the tests are not about that). */
let customer: ReturnType<typeof uniqueUser>;
let reseller: ReturnType<typeof uniqueUser>;
let productName: string;
let key: string;

beforeAll(async () => {
  browser = await launchBrowser();
  ownerToken = await apiLogin(ownerCredentials());
  const tag = `AX${Date.now().toString(36).toUpperCase().slice(-6)}`;
  productName = `Access App ${tag}`;
  const product = await apiCall(
    'POST',
    '/api/products',
    { name: productName, description: 'Sold by the day', keyTag: tag, baseCreditCost: 10, creditsPerDay: 2, minDays: 1, maxDays: 90 },
    ownerToken,
  );
  expect(product.status).toBe(201);
  // A long address, as real ones can be: the Overview's Recent Users must wrap it on a phone.
  const made = uniqueUser('axe');
  customer = { ...made, email: `${made.username}readeroflongaddresses@accessibilityexample.com` };
  expect((await apiCall('POST', '/api/admin/users', { ...customer, emailVerified: true, credits: 500 }, ownerToken)).status).toBe(201);
  const bought = await apiCall('POST', '/api/keys/purchase', { productId: product.body._id, duration: 5 }, await apiLogin(customer));
  expect(bought.status).toBe(201);
  key = bought.body.licenseKey.key;
  reseller = uniqueUser('axeres');
  const madeReseller = await apiCall(
    'POST',
    '/api/admin/users',
    { ...reseller, role: 'reseller', credits: 300, emailVerified: true, currentPassword: ownerCredentials().password },
    ownerToken,
  );
  expect(madeReseller.status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
});

type AxeResult = {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] }[];
};

/** axe-core's serious and critical findings on what the page shows now, each with where it was. */
async function axeFindings(page: Page, where: string): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the app's Content-Security-Policy does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<unknown> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    }),
  )) as AxeResult;
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${n.target.join(' ')}: ${n.failureSummary ?? ''}`));
}

/** The colours [r, g, b] of a PNG's pixels at [x, y]: the browser decodes it, on a blank page of its own. */
async function pixels(png: Buffer, at: [number, number][]): Promise<number[][]> {
  const { context, page } = await newPage(browser);
  const found = await page.evaluate(
    async ([data, points]) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const drawn = canvas.getContext('2d')!;
      drawn.drawImage(image, 0, 0);
      return points.map(([x, y]) => Array.from(drawn.getImageData(x, y, 1, 1).data.slice(0, 3)));
    },
    [png.toString('base64'), at] as const,
  );
  await context.close();
  return found;
}

/** Waits for a screen to settle: its requests answered, its heading shown. */
async function settle(page: Page) {
  await page.waitForLoadState('networkidle');
  await visible(page.locator('h1, h2').first());
  await page.waitForTimeout(150);
}

/**
 * Every element that leaves the screen sideways, or is cut off by a box that hides its overflow
 * (a box that scrolls, like a wide table's, is fine), and whether the page scrolls sideways at all.
 */
function overflowing(page: Page) {
  return page.evaluate(() => {
    const found: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width) found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const element of Array.from(document.body.querySelectorAll<HTMLElement>('*'))) {
      if (!element.checkVisibility({ visibilityProperty: true })) continue;
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      if (element.closest('.visually-hidden, .skip-link')) continue;
      let box: { left: number; right: number } = { left: 0, right: width };
      let scrolls = false;
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const overflow = getComputedStyle(parent).overflowX;
        if (overflow === 'visible') continue;
        scrolls = overflow === 'auto' || overflow === 'scroll';
        box = parent.getBoundingClientRect();
        break;
      }
      if (scrolls) continue;
      if (rect.left < box.left - 1 || rect.right > box.right + 1) {
        const name = `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.trim().split(/\s+/).join('.')}` : ''}`;
        found.push(
          `${name} "${(element.textContent ?? '').trim().slice(0, 40)}" spans ${Math.round(rect.left)}..${Math.round(rect.right)} in ${Math.round(box.left)}..${Math.round(box.right)}`,
        );
      }
    }
    return found;
  });
}

const RESELLER_PAGES = ['/admin', '/admin?tab=users', '/admin?tab=keys', '/admin?tab=purchase'];

describe.each(LANGUAGES)('in %s', (language) => {
  /** A page in this language (this browser's choice, as the picker keeps it), signed in as `who` if given. */
  async function openPage(who?: { email: string; password: string }, viewport?: { width: number; height: number }) {
    const session = who ? await apiLogin(who) : '';
    const { context, page } = await newPage(browser, { mobile: (viewport?.width ?? 1280) < 500 });
    if (viewport) await page.setViewportSize(viewport);
    await context.addInitScript(
      ([lang, token]) => {
        localStorage.setItem('language', lang);
        if (token && !localStorage.getItem('token')) localStorage.setItem('token', token);
      },
      [language, session],
    );
    return { context, page };
  }

  it('axe finds nothing serious or critical on any page', async () => {
    const findings: string[] = [];
    for (const [who, addresses] of [
      [undefined, GUEST_PAGES],
      [customer, CUSTOMER_PAGES],
      [reseller, RESELLER_PAGES],
      [ownerCredentials(), ADMIN_PAGES],
    ] as const) {
      const { context, page } = await openPage(who);
      for (const address of addresses) {
        await page.goto(address);
        await settle(page);
        expect(await page.evaluate(() => document.documentElement.dir)).toBe(language === 'ar' ? 'rtl' : 'ltr');
        findings.push(...(await axeFindings(page, `${address} (${who ? who.email : 'guest'})`)));
      }
      await context.close();
    }
    expect(findings).toEqual([]);
  });

  it('axe finds nothing serious or critical with a dialog open', async () => {
    const findings: string[] = [];
    /** Each dialog: the page, and the button that opens it. */
    const dialogs: [{ email: string; password: string }, string, Locator | ((page: Page) => Locator)][] = [];
    const button = (name: string | RegExp) => (page: Page) => page.getByRole('button', { name, exact: true }).first();
    const sayIt = (english: string, values?: Record<string, string>) => say(language, english, values);
    dialogs.push(
      [customer, '/products', button(sayIt('Purchase License'))],
      [customer, '/my-keys', button(sayIt('Renew license key {key}', { key }))],
      [customer, '/my-keys', button(sayIt('Regenerate license key {key}', { key }))],
      [customer, '/settings/security', button(sayIt('Enable two-factor'))],
      [ownerCredentials(), '/admin?tab=users', button(sayIt('Create User'))],
      [ownerCredentials(), '/admin?tab=products', button(sayIt('Create Product'))],
      [ownerCredentials(), '/admin?tab=keys', button(sayIt('Details of {key}', { key }))],
      [ownerCredentials(), '/admin?tab=resellers', button(sayIt('New Tier'))],
      [ownerCredentials(), '/admin?tab=webhooks', button(sayIt('Add endpoint'))],
    );
    const pages = new Map<string, Page>();
    const contexts: { close: () => Promise<void> }[] = [];
    for (const [who, address, opener] of dialogs) {
      let page = pages.get(who.email);
      if (!page) {
        const opened = await openPage(who);
        contexts.push(opened.context);
        page = opened.page;
        pages.set(who.email, page);
      }
      await page.goto(address);
      await settle(page);
      const trigger = typeof opener === 'function' ? opener(page) : opener;
      await trigger.click();
      const dialog = page.getByRole('dialog');
      await visible(dialog);
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(150);
      const title = (await dialog.getAttribute('aria-labelledby')) ?? '';
      findings.push(...(await axeFindings(page, `${address}, dialog ${await page.locator(`[id="${title}"]`).textContent()}`)));
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
    for (const context of contexts) await context.close();
    expect(findings).toEqual([]);
  });

  it('shows My Keys, Purchase, the Admin Overview and the Reseller Panel whole at 390 px and at 1366 px', async () => {
    const screens: [string, { email: string; password: string }, string][] = [
      ['my-keys', customer, '/my-keys'],
      ['purchase', customer, '/purchase'],
      ['admin-overview', ownerCredentials(), '/admin?tab=overview'],
      ['reseller-panel', reseller, '/admin'],
    ];
    const problems: string[] = [];
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1366, height: 768 },
    ]) {
      for (const [name, who, address] of screens) {
        const { context, page } = await openPage(who, viewport);
        await page.goto(address);
        await settle(page);
        await screenshot(page, `a11y-${name}-${language}-${viewport.width}`);
        problems.push(...(await overflowing(page)).map((p) => `${name} at ${viewport.width} px: ${p}`));
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps the dark sidebar beside the whole of a long page, and draws the days of a chart from the reading side', async () => {
    const { context, page } = await openPage(ownerCredentials(), { width: 1366, height: 768 });
    await page.goto('/system-analytics');
    await settle(page);
    const sidebar = page.locator('#sidebar');
    // A long page, scrolled to its end: the sidebar still runs from the top of the screen to its foot.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeGreaterThan(768 * 1.5);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForTimeout(100);
    const box = (await sidebar.boundingBox())!;
    expect(box.y).toBeLessThanOrEqual(0);
    expect(box.y + box.height).toBeGreaterThanOrEqual(768);
    // On the reading side: the left in English, the right in Arabic.
    if (language === 'ar') expect(box.x + box.width).toBeGreaterThanOrEqual(1366 - 1);
    else expect(box.x).toBeLessThanOrEqual(0);
    // The whole page in one picture (as issue 47 saw it): dark from the top of that column to its foot.
    await page.evaluate(() => window.scrollTo(0, 0));
    const picture = await page.screenshot({ fullPage: true });
    const column = language === 'ar' ? 1366 - 20 : 20;
    const colours = await pixels(picture, [
      [column, Math.round(height / 2)],
      [column, height - 10],
    ]);
    for (const [r, g, b] of colours) expect(r + g + b, `the sidebar's column at ${column} px, ${colours.join(' ')}`).toBeLessThan(150);

    // The first day's bar is at the start of the line: left in English, right in Arabic.
    const chart = page.locator('svg.chart-svg').first();
    await visible(chart);
    const starts = await chart.locator('rect.chart-bar').evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().x));
    expect(starts.length).toBeGreaterThan(1);
    if (language === 'ar') expect(starts[0]).toBeGreaterThan(starts[starts.length - 1]);
    else expect(starts[0]).toBeLessThan(starts[starts.length - 1]);
    await context.close();
  });
});

describe('keyboard only', () => {
  /** Presses Tab (Shift+Tab with `back`) until `target` has focus, and holds that focus is shown. */
  async function tabTo(page: Page, target: Locator, { back = false, most = 60 } = {}) {
    const trail: string[] = [];
    for (let i = 0; i < most; i++) {
      if (await target.evaluate((el) => el === document.activeElement)) {
        // The focus is seen: :focus-visible holds and draws an outline or a ring.
        const shown = await target.evaluate((el) => {
          const style = getComputedStyle(el);
          return el.matches(':focus-visible') && (style.outlineStyle !== 'none' || style.boxShadow !== 'none');
        });
        expect(shown, `focus shown on ${await target.evaluate((el) => el.outerHTML.slice(0, 80))}`).toBe(true);
        return;
      }
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      trail.push(await focused(page));
    }
    throw new Error(`Tab never reached ${String(target)}; focus went to:\n${trail.slice(-12).join('\n')}`);
  }
  const sidebarLink = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name, exact: true });
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120) ?? '');
  /** A message shown in a live region (a toast, a status), so a screen reader says it. */
  const announced = (page: Page, text: string | RegExp) =>
    visible(page.locator('[aria-live] , [role="status"], [role="alert"]').filter({ hasText: text }));

  it('registers, buys a key, opens My Keys, renews it and signs out', async () => {
    const { context, page } = await newPage(browser);
    const person = uniqueUser('keys');
    await page.goto('/register');
    await settle(page);
    await tabTo(page, page.getByLabel('Username'));
    await page.keyboard.type(person.username);
    await tabTo(page, page.getByLabel('Email'));
    await page.keyboard.type(person.email);
    await tabTo(page, page.getByLabel('Password', { exact: true }));
    await page.keyboard.type(person.password);
    await tabTo(page, page.getByLabel('Confirm password'));
    await page.keyboard.type(person.password);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard');

    // Credits from the owner (not the keyboard's business), then Purchase from the sidebar.
    const me = (await apiCall('GET', `/api/admin/users?search=${person.username}`, undefined, ownerToken)).body.users[0];
    expect((await apiCall('POST', `/api/admin/users/${me._id}/balance`, { amount: 200, type: 'credits' }, ownerToken)).status).toBe(200);
    await page.reload();
    await settle(page);
    await tabTo(page, sidebarLink(page, 'Purchase'));
    await page.keyboard.press('Enter');
    await page.waitForURL('**/purchase');
    const product = page.getByLabel('Product', { exact: true });
    await visible(product);
    await tabTo(page, product);
    // A select moves through its options with the arrow keys.
    for (
      let i = 0;
      i < 200 && !((await product.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.text)) ?? '').startsWith(productName);
      i++
    )
      await page.keyboard.press('ArrowDown');
    expect(await product.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.text)).toContain(productName);
    await tabTo(page, page.getByRole('button', { name: /^Purchase for / }));
    await page.keyboard.press('Enter');
    expect(await announced(page, 'License key purchased successfully!')).toBe(true);

    // My Keys, and Renew: the dialog takes focus, holds it, and gives it back when closed.
    await tabTo(page, sidebarLink(page, 'My Keys'), { back: true });
    await page.keyboard.press('Enter');
    await page.waitForURL('**/my-keys');
    const renew = page.getByRole('button', { name: /^Renew license key / });
    await visible(renew);
    await tabTo(page, renew);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Renew this license key' });
    await visible(dialog);
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    for (let i = 0; i < 15; i++) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement)), await focused(page)).toBe(true);
    }
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement)), await focused(page)).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await renew.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await visible(dialog);
    await tabTo(page, dialog.getByRole('button', { name: 'Renew', exact: true }));
    await page.keyboard.press('Enter');
    expect(await announced(page, /Renewed /)).toBe(true);
    await dialog.waitFor({ state: 'detached' });
    expect(await renew.evaluate((el) => el === document.activeElement)).toBe(true);

    // Sign out.
    await tabTo(page, page.getByRole('button', { name: 'Logout' }), { back: true });
    await page.keyboard.press('Enter');
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await context.close();
  });
});
