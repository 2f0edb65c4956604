// The API reference as an integrator meets it: opened from the admin panel, rendered from the
// OpenAPI document, a "try it" request answered by this same origin, all within the page's
// Content-Security-Policy and without one request to another origin.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseURL, launchBrowser, newPage, ownerCredentials, screenshot, signIn, visible } from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

type Violation = { directive: string; blocked: string; source: string };

/**
 * zod, inside Scalar's bundle, probes once whether it may compile validators with `new Function`; the
 * policy refuses (no 'unsafe-eval') and zod validates without it. That refusal is the policy working.
 */
const isZodEvalProbe = (v: Violation) =>
  v.directive === 'script-src' && v.blocked === 'eval' && v.source.endsWith('/vendor/scalar-api-reference.js');

/** Opens a GET operation's "try it" client, pastes the bearer token if given, sends, and returns the answer. */
async function tryIt(docs: Page, path: string, token?: string) {
  await docs.getByRole('button', { name: `Test Request (get ${path})` }).click();
  const client = docs.getByRole('dialog');
  if (token) await client.getByPlaceholder('Token').fill(token);
  const [answer] = await Promise.all([
    docs.waitForResponse((res) => new URL(res.url()).pathname === path),
    client.getByRole('button', { name: /^Send get request to / }).click(),
  ]);
  // Answered by this same origin, and shown in the client.
  expect(new URL(answer.url()).origin).toBe(baseURL());
  expect(await visible(client.getByText(`${answer.status()} OK`))).toBe(true);
  return answer;
}

describe('the API reference at /api/docs', () => {
  it('opens from the admin panel by keyboard, renders the document and runs public and signed-in requests against this origin', async () => {
    const { context, page } = await newPage(browser);
    await context.addInitScript(() => {
      const seen: Violation[] = [];
      (window as unknown as { cspViolations: Violation[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) =>
        seen.push({ directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile }),
      );
    });
    // The page validates the document as it loads it and warns of each fault (issue 47 saw twelve
    // "Expected union value"); scripts/test/openapi-document.test.ts runs the same validator in Node.
    const warned: string[] = [];
    context.on('console', (message) => {
      if (message.type() === 'warning' && message.text().includes('document validation errors')) warned.push(message.text());
    });
    const otherOrigins: string[] = [];
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol.startsWith('http') && url.origin !== baseURL()) otherOrigins.push(request.url());
    });

    await signIn(page, ownerCredentials());
    await page.goto('/admin');
    const link = page.getByRole('link', { name: 'API reference (opens in a new tab)' });
    expect(await link.getAttribute('href')).toBe('/api/docs');
    await link.focus();
    const [docs] = await Promise.all([context.waitForEvent('page'), page.keyboard.press('Enter')]);
    await docs.waitForURL('**/api/docs');

    // Rendered from the document: its title and its operations, each with its "try it".
    expect(await visible(docs.getByRole('heading', { name: 'KeyPanel', exact: true }))).toBe(true);

    // A public call.
    await docs.goto('/api/docs#tag/meta/GET/api/health');
    const health = await tryIt(docs, '/api/health');
    expect(health.status()).toBe(200);
    expect(await visible(docs.getByRole('dialog').getByText('"ok": true'))).toBe(true);
    await docs.keyboard.press('Escape');

    // A signed-in call, with the session token the person pastes in (the app keeps it in localStorage).
    const token = await page.evaluate(() => localStorage.getItem('token'));
    expect(token).toBeTruthy();
    await docs.goto('/api/docs#tag/account/GET/api/users/profile');
    const profile = await tryIt(docs, '/api/users/profile', token!);
    expect(profile.status()).toBe(200);
    expect(profile.request().headers().authorization).toBe(`Bearer ${token}`);
    expect(((await profile.json()) as { email: string }).email).toBe(ownerCredentials().email);
    await screenshot(docs, 'api-docs-try-it', { fullPage: false });

    const violations = await docs.evaluate(() => (window as unknown as { cspViolations: Violation[] }).cspViolations);
    expect(violations.filter((v) => !isZodEvalProbe(v))).toEqual([]);
    expect(otherOrigins).toEqual([]);
    expect(warned).toEqual([]);
    await context.close();
  });

  it("serves Scalar's bundle from this origin, and the app keeps its strict policy", async () => {
    const bundle = await fetch(new URL('/vendor/scalar-api-reference.js', baseURL()));
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(1_000_000);
    const app = await fetch(new URL('/login', baseURL()));
    expect(app.headers.get('content-security-policy')).toMatch(/script-src 'self'; style-src 'self';/);
  });
});
