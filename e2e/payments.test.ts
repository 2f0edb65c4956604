// Card top-ups in a real browser: from /add-balance through the Stripe stand-in's checkout page and
// back to a credited balance; a cancelled checkout; and the owner's Payments tab with a refund and a
// dispute marked.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signedStripeEvent } from '../scripts/stripe-stand-in';
import { launchBrowser, newPage, ownerCredentials, screenshot, signIn, textOf, verifiedCustomer, visible } from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Delivers a signed Stripe event to the Worker, as Stripe would. */
async function deliver(type: string, object: unknown) {
  const { body, signature } = signedStripeEvent(type, object, inject('stripeStandIn').webhookSecret);
  const res = await fetch(new URL('/api/payments/stripe/webhook', inject('baseURL')), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { outcome: string };
}

describe('card top-ups', () => {
  it('goes from /add-balance through Checkout back to a credited balance, and the owner sees refunds and disputes', async () => {
    const { context, page } = await newPage(browser);
    const user = await verifiedCustomer(page);
    await page.goto('/add-balance');
    expect(await visible(page.getByRole('heading', { name: 'Add USD by card' }))).toBe(true);
    expect(await textOf(page.getByTestId('add-balance-usd'))).toBe('$0.00');
    expect(await visible(page.getByText('No card payments yet.'))).toBe(true);

    // A custom amount outside the bounds is refused before anything is sent.
    const amount = page.getByLabel('Amount (USD)');
    await amount.fill('3');
    expect(await textOf(page.getByRole('alert').filter({ hasText: 'between' }))).toBe('A top-up must be between $5.00 and $500.00');
    await page.getByRole('group', { name: 'Quick amounts' }).getByRole('button', { name: '$25.00' }).click();
    expect(await amount.inputValue()).toBe('25.00');
    await screenshot(page, 'add-balance-card');
    await page.getByRole('button', { name: 'Pay $25.00' }).click();

    // Stripe Checkout (the stand-in): pay, and come back.
    await page.waitForURL(`${inject('stripeStandIn').url}/checkout/**`);
    expect(await visible(page.getByRole('heading', { name: 'Pay $25.00' }))).toBe(true);
    await page.getByRole('button', { name: 'Pay $25.00' }).click();
    await page.waitForURL('**/add-balance?payment=cs_test_*');
    expect(await textOf(page.getByTestId('topup-new-balance'))).toBe('$25.00');
    expect(await visible(page.getByText('$25.00 was added to your balance.', { exact: false }))).toBe(true);
    expect(await textOf(page.getByTestId('add-balance-usd'))).toBe('$25.00');
    const list = page.getByRole('table', { name: 'Your card payments' });
    expect(await textOf(list.getByRole('row').nth(1))).toContain('Paid');
    await screenshot(page, 'add-balance-credited');
    const sessionId = new URL(page.url()).searchParams.get('payment')!;
    await context.close();

    // Stripe refunds part of it and the customer disputes the charge: the owner's Payments tab shows both.
    const session = (await (
      await fetch(`${inject('stripeStandIn').url}/v1/checkout/sessions/${sessionId}`, {
        headers: { authorization: 'Bearer sk_test_stand_in' },
      })
    ).json()) as { payment_intent: string };
    expect(
      (
        await deliver('charge.refunded', {
          id: 'ch_test_e2e',
          object: 'charge',
          payment_intent: session.payment_intent,
          amount_refunded: 1000,
        })
      ).outcome,
    ).toBe('refunded');
    expect(
      (
        await deliver('charge.dispute.created', {
          id: `dp_test_${sessionId.slice(-8)}`,
          object: 'dispute',
          payment_intent: session.payment_intent,
          amount: 2500,
          reason: 'fraudulent',
        })
      ).outcome,
    ).toBe('disputed');

    const owner = await newPage(browser);
    await signIn(owner.page, ownerCredentials());
    await owner.page.goto('/admin?tab=payments');
    await owner.page.getByLabel('Customer (username)').fill(user.username);
    const table = owner.page.getByRole('table', { name: 'Card payments' });
    const row = table.getByRole('row').filter({ hasText: user.username });
    expect(await textOf(row)).toContain('Refunded $10.00');
    expect(await textOf(row)).toContain('Disputed');
    expect(await textOf(row)).toContain('Flagged');
    await screenshot(owner.page, 'admin-payments');
    await owner.context.close();
  });

  it('says the payment was cancelled when the customer leaves Checkout', async () => {
    const { context, page } = await newPage(browser, { mobile: true });
    await verifiedCustomer(page);
    await page.goto('/add-balance');
    await page.getByLabel('Amount (USD)').fill('7.50');
    await page.getByRole('button', { name: 'Pay $7.50' }).click();
    await page.waitForURL(`${inject('stripeStandIn').url}/checkout/**`);
    await page.getByRole('link', { name: 'Cancel and go back' }).click();
    await page.waitForURL('**/add-balance?cancelled=1');
    expect(await visible(page.getByText('Payment cancelled. Nothing was charged.'))).toBe(true);
    expect(await textOf(page.getByTestId('add-balance-usd'))).toBe('$0.00');
    expect(await textOf(page.getByRole('table', { name: 'Your card payments' }).getByRole('row').nth(1))).toContain('Pending');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'add-balance-cancelled-mobile');
    await context.close();
  });
});
