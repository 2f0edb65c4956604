// Debian's Chromium driven by playwright-core, as a person would use the app.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { checkAnswer } from '../scripts/api-contract';
import type { TestAnswerBody } from '../worker/platform/api-client';
import { watchContext } from './evidence';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.join(import.meta.dirname, 'screenshots');

export const baseURL = () => inject('baseURL');
export const ownerCredentials = () => inject('owner');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export async function newPage(browser: Browser, options: { mobile?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: baseURL(),
    viewport: options.mobile ? { width: 390, height: 844 } : { width: 1280, height: 860 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  checkApiAnswers(context);
  watchContext(context);
  const page = await context.newPage();
  // Waits for actions (a click, a fill) as long as `visible` below does, for the same reason.
  page.setDefaultTimeout(20_000);
  // A navigation waits on wrangler dev, which shares CI's two cores with the Worker tests and the
  // size budgets' builds: a first page load there once took over 15 s (a CI run failed on it).
  page.setDefaultNavigationTimeout(45_000);
  return { context, page };
}

/**
 * Checks every /api answer the app receives against the OpenAPI document (scripts/api-contract.ts);
 * closing the context fails the test with what did not match.
 */
function checkApiAnswers(context: BrowserContext) {
  const checks: Promise<void>[] = [];
  const mismatches: string[] = [];
  context.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== new URL(baseURL()).origin || !url.pathname.startsWith('/api/')) return;
    const answer = { method: response.request().method(), path: url.pathname + url.search, status: response.status() };
    const contentType = response.headers()['content-type'] ?? null;
    const check = async () => {
      // A redirect has no body to read; a body the browser already dropped (the page moved on) is not checked.
      const text = answer.status >= 300 && answer.status < 400 ? '' : await response.text().catch(() => null);
      if (text === null) return;
      // wrangler dev's own proxy answers this when it restarted the Worker under a request (it retries
      // GETs itself): not an answer of KeyPanel's, so not one its document speaks for. A test that
      // needed that answer still fails on what it expected.
      if (answer.status === 503 && text.startsWith('Your worker restarted mid-request')) return;
      try {
        checkAnswer({ ...answer, contentType, text });
      } catch (err) {
        mismatches.push(String(err));
      }
    };
    checks.push(check());
  });
  const close = context.close.bind(context);
  context.close = async (options) => {
    await Promise.all(checks);
    await close(options);
    if (mismatches.length) throw new Error(mismatches.join('\n\n'));
  };
}

/** Keeps a picture of each screen the tests visit, for a person to look at (the viewport only, for a very long page). */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

let counter = 0;
export const uniqueUser = (prefix = 'e2e') => {
  const username = `${prefix}${Date.now().toString(36)}${counter++}`;
  return { username, email: `${username}@example.com`, password: 'Quiet-Lantern-42' };
};

export async function register(page: Page, user = uniqueUser()) {
  await page.goto('/register');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByLabel('Confirm password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/dashboard');
  return user;
}

/**
 * A customer whose address the owner vouched for (card top-ups need a verified address, and the
 * browser cannot read the verification mail), signed in through the sign-in page.
 */
export async function verifiedCustomer(page: Page, user = uniqueUser()) {
  const owner = await apiLogin(ownerCredentials());
  const made = await apiCall('POST', '/api/admin/users', { ...user, emailVerified: true }, owner);
  if (made.status !== 201) throw new Error(`create user failed: ${JSON.stringify(made.body)}`);
  await signIn(page, user);
  return user;
}

export async function signIn(page: Page, credentials: { email: string; password: string }) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(credentials.email);
  await page.getByLabel('Password', { exact: true }).fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL('**/dashboard');
}

/** Calls the running API directly (for setup the browser test is not about). */
export async function apiCall<M extends string, P extends string>(
  method: M,
  pathname: P,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: TestAnswerBody<M, P> }> {
  const res = await fetch(new URL(pathname, baseURL()), {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  checkAnswer({ method, path: pathname, status: res.status, contentType: res.headers.get('content-type'), text });
  return { status: res.status, body: (text ? JSON.parse(text) : null) as TestAnswerBody<M, P> };
}

export async function apiLogin(credentials: { email: string; password: string }): Promise<string> {
  const res = await apiCall('POST', '/api/auth/login', credentials);
  if (res.status !== 200 || !res.body.token) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return res.body.token;
}

/**
 * Waits until the element is visible (a test fails on the timeout when it never is). 20 s: in CI
 * the browser tests share two cores with the Worker tests and the size budgets' builds, and a first
 * visit to a lazily loaded screen has taken over 10 s there.
 */
export async function visible(locator: import('playwright-core').Locator, timeout = 20_000): Promise<true> {
  await locator.first().waitFor({ state: 'visible', timeout });
  return true;
}

/** The visible text of an element, once it shows. */
export async function textOf(locator: import('playwright-core').Locator): Promise<string> {
  await visible(locator);
  return (await locator.first().textContent())?.trim() ?? '';
}

/**
 * A customer registered through the register page, given 100 credits by the owner, who buys a key of
 * `productId` for 5 days through the API: the customer, their session token and the key.
 */
export async function customerWithKey(page: Page, ownerToken: string, productId: string) {
  const user = await register(page);
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  const me = (await apiCall('GET', '/api/users/profile', undefined, token)).body;
  const funded = await apiCall('POST', `/api/admin/users/${me._id}/balance`, { amount: 100, type: 'credits' }, ownerToken);
  if (funded.status !== 200) throw new Error(`credits not added: ${JSON.stringify(funded.body)}`);
  const bought = await apiCall('POST', '/api/keys/purchase', { productId, duration: 5 }, token);
  if (bought.status !== 201) throw new Error(`purchase failed: ${JSON.stringify(bought.body)}`);
  return { user, token, key: bought.body.licenseKey.key };
}

/** Raises the settings' devices-per-key bound (default 1) so a test can make multi-device products. */
export async function allowDevicesPerKey(ownerToken: string, devices: number) {
  const settings = (await apiCall('GET', '/api/settings', undefined, ownerToken)).body;
  if (settings.maxActivationsPerKey >= devices) return;
  const saved = await apiCall('PUT', '/api/settings', { ...settings, maxActivationsPerKey: devices }, ownerToken);
  if (saved.status !== 200) throw new Error(`settings not saved: ${JSON.stringify(saved.body)}`);
}
