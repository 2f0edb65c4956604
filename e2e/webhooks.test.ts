// The owner's Webhooks view: add an endpoint (secret shown once), send a test event to a local
// receiver that fails at first, watch the retry land in the deliveries with both attempts kept,
// redeliver, disable.
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, ownerCredentials, screenshot, signIn, textOf, visible } from './browser';

let browser: Browser;
let server: Server;
let receiverUrl: string;
const received: Array<{ headers: Record<string, string>; body: string }> = [];

beforeAll(async () => {
  browser = await launchBrowser();
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body });
      // The first request fails, so the deliveries show a retry.
      if (received.length === 1) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy, try later');
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('Admin → Webhooks', () => {
  it('adds an endpoint, tests it, shows the failed attempt and its retry, redelivers and disables it', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=webhooks');
    await visible(page.getByRole('tab', { name: 'Webhooks', selected: true }));

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('dialog', { name: 'Add endpoint' });
    await form.getByLabel('URL').fill('http://example.com/hooks');
    // Events go where the URL points: adding an endpoint needs the owner's password (step-up),
    // asked before anything is sent; a wrong one is refused in the dialog, the field emptied.
    const proof = form.getByLabel('Confirm with your password');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await textOf(form.getByRole('alert'))).toBe('Enter your current password.');
    await proof.fill('not-the-password');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await textOf(form.getByRole('alert'))).toBe('Password is incorrect');
    expect(await proof.inputValue()).toBe('');
    // With the proof, the server judges the address.
    await proof.fill(ownerCredentials().password);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await visible(form.getByText('URL must use https'));
    await form.getByLabel('URL').fill(receiverUrl);
    await form.getByLabel('Description').fill('Local CRM');
    await form.getByLabel('key.revoked').check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const secretDialog = page.getByRole('dialog', { name: 'Signing secret' });
    const secret = await textOf(secretDialog.getByLabel('Signing secret'));
    expect(secret).toMatch(/^whsec_/);
    await visible(secretDialog.getByRole('button', { name: 'Copy secret' }));
    await screenshot(page, 'webhooks-secret-desktop');
    await secretDialog.getByRole('button', { name: 'I have saved it' }).click();

    const item = page.getByRole('listitem').filter({ hasText: receiverUrl });
    await visible(item.getByText('Healthy'));
    expect(await textOf(item)).toContain('key.purchased, key.revoked');
    await item.getByRole('button', { name: 'Send test' }).click();
    await visible(page.getByText('Test event queued'));
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    expect(new Webhook(secret).verify(received[0].body, received[0].headers)).toMatchObject({ type: 'webhook.test' });

    await item.getByRole('button', { name: 'Deliveries' }).click();
    const deliveries = page.getByRole('dialog', { name: `Deliveries to ${receiverUrl}` });
    const row = deliveries.getByRole('row', { name: /webhook\.test/ });
    await visible(row.getByText('pending'));
    expect(await textOf(row)).toContain('503');
    // The queue retries 5 seconds later; the view refreshes itself.
    await visible(row.getByText('delivered'), 30_000);
    expect(await textOf(row.getByRole('cell').nth(3))).toMatch(/^200/);
    expect(received[1].headers['webhook-id']).toBe(received[0].headers['webhook-id']);
    // Both attempts are kept, the keyboard opens them: the 503 with its answer, then the 200.
    const attempts = row.locator('summary').filter({ hasText: 'attempts' });
    expect(await textOf(attempts)).toBe('2 attempts');
    await attempts.focus();
    await page.keyboard.press('Enter');
    const log = row.getByRole('list', { name: /^Attempts of webhook\.test msg_/ });
    await visible(log);
    const tries = log.getByRole('listitem');
    expect(await tries.count()).toBe(2);
    expect(await textOf(tries.nth(0))).toMatch(/^Attempt 1.*HTTP 503\s*\d+ ms\s*busy, try later$/s);
    expect(await textOf(tries.nth(1))).toMatch(/^Attempt 2.*HTTP 200\s*\d+ ms\s*ok$/s);
    await screenshot(page, 'webhooks-deliveries-desktop');

    await row.getByRole('button', { name: /^Redeliver webhook\.test/ }).click();
    await visible(page.getByText('Delivery queued again'));
    await expect.poll(() => received.length, { timeout: 15_000 }).toBe(3);
    // The redelivery adds its attempt to the two kept.
    await expect.poll(() => textOf(attempts), { timeout: 15_000 }).toBe('3 attempts');
    expect(await tries.count()).toBe(3);
    await page.keyboard.press('Escape');
    expect(await deliveries.count()).toBe(0);

    await item.getByRole('button', { name: 'Disable' }).click();
    await visible(item.getByText('Disabled'));
    expect(await item.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(true);
    await item.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete endpoint' }).click();
    await visible(page.getByText('Endpoint deleted'));
    expect(await item.count()).toBe(0);
    await context.close();
  });

  it('fits a phone', async () => {
    const { context, page } = await newPage(browser, { mobile: true });
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=webhooks');
    await visible(page.getByRole('button', { name: 'Add endpoint' }));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'webhooks-phone');
    await context.close();
  });
});
