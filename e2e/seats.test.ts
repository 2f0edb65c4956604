// Issue 30's journey: the owner makes a floating product in the product form; a customer's key takes
// two devices, a third is refused, one device borrows its seat, another stops heartbeating and its
// seat goes to the next device once its lease ends, and the customer swaps a device from My Keys.
// The owner sees the seats with their leases in the key's details. The same product carries issue 31's
// entitlements and usage allowance, set in the form: the customer sees both, and the uses left, in My Keys.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allowDevicesPerKey,
  apiCall,
  apiLogin,
  baseURL,
  launchBrowser,
  newPage,
  ownerCredentials,
  register,
  screenshot,
  signIn,
  textOf,
  visible,
} from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const dialog = (page: Page, name: string) => page.getByRole('dialog', { name });
const toastWith = (page: Page, text: string | RegExp) => page.getByTestId('toast').filter({ hasText: text });

type Answer = { valid: boolean; code: string; leaseExpiresAt?: string | null; borrowedUntil?: string | null };
const license = async (action: string, body: Record<string, unknown>) => {
  const res = await apiCall('POST', `/api/v1/licenses/${action}`, body);
  expect(res.status).toBe(200);
  return res.body as unknown as Answer;
};

describe('floating seats in the browser', () => {
  it('takes an owner and a customer from a floating product through seats, a borrow, a stopped heartbeat and a swap', async () => {
    const ownerToken = await apiLogin(ownerCredentials());
    await allowDevicesPerKey(ownerToken, 2);
    const tag = `FS${Date.now().toString(36).toUpperCase()}`.slice(0, 10);
    const name = `Studio Seats ${tag}`;

    // The owner makes the product in the product form.
    const { context: ownerContext, page: owner } = await newPage(browser);
    await signIn(owner, ownerCredentials());
    await owner.goto('/admin?tab=products');
    await owner.getByRole('button', { name: 'Create Product' }).click();
    const form = dialog(owner, 'Create Product');
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Key tag').fill(tag);
    await form.getByLabel('Description').fill('Two seats at a time');
    await form.getByLabel('Base cost (credits)').fill('10');
    await form.getByLabel('Credits per day').fill('1');
    await form.getByLabel('License model').selectOption('floating');
    await form.getByLabel('Seats').fill('2');
    await form.getByLabel('Seat lease (minutes)').fill('1');
    await form.getByLabel('Borrow maximum (hours)').fill('24');
    await form.getByLabel('Device swaps').fill('3');
    await form.getByLabel('Swap window (days)').fill('30');
    await form.getByLabel('Entitlements').fill('pro, export-pdf');
    await form.getByLabel('Usage allowance').fill('20');
    await screenshot(owner, 'product-form-floating');
    await form.getByRole('button', { name: 'Create Product' }).click();
    expect(await visible(toastWith(owner, `${name} created`))).toBe(true);
    const product = (await apiCall('GET', '/api/products', undefined, ownerToken)).body.find((p) => p.keyTag === tag)!;
    expect(product).toMatchObject({ licenseModel: 'floating', maxActivations: 2, leaseMinutes: 1, borrowMaxHours: 24, swapLimit: 3 });
    expect(product).toMatchObject({ entitlements: ['export-pdf', 'pro'], usageAllowance: 20, usageRefillAmount: null });

    // The customer buys a key.
    const { context, page } = await newPage(browser, { mobile: true });
    await register(page);
    const token = (await page.evaluate(() => localStorage.getItem('token')))!;
    const me = (await apiCall('GET', '/api/users/profile', undefined, token)).body;
    expect((await apiCall('POST', `/api/admin/users/${me._id}/balance`, { amount: 100, type: 'credits' }, ownerToken)).status).toBe(200);
    const bought = await apiCall('POST', '/api/keys/purchase', { productId: product._id, duration: 5 }, token);
    expect(bought.status).toBe(201);
    const key = bought.body.licenseKey.key;

    // Two devices take the two seats; a third is refused. The laptop borrows its seat for a trip; the
    // desktop then stops heartbeating.
    const [laptop, desktop, tablet, newLaptop] = [
      'seat-laptop-0001-aaaa',
      'seat-desktop-002-bbbb',
      'seat-tablet-0003-cccc',
      'seat-newlap-0004-dddd',
    ];
    expect(
      (await license('activate', { key, deviceFingerprint: laptop, deviceInfo: { manufacturer: 'Acme', model: 'Laptop' } })).code,
    ).toBe('VALID');
    const desktopSeat = await license('activate', {
      key,
      deviceFingerprint: desktop,
      deviceInfo: { manufacturer: 'Acme', model: 'Tower' },
    });
    expect(desktopSeat.code).toBe('VALID');
    expect((await license('activate', { key, deviceFingerprint: tablet })).code).toBe('NO_SEAT_AVAILABLE');
    const borrowed = await license('borrow', { key, deviceFingerprint: laptop, hours: 24 });
    expect(borrowed).toMatchObject({ valid: true, code: 'VALID' });

    // The owner sees the seats in the key's details: both in use, the laptop's borrowed.
    const details = dialog(owner, 'License Key Details');
    const openDetails = async () => {
      await owner.goto('/admin?tab=keys');
      await owner.getByLabel('Search keys').fill(key);
      await owner
        .locator('.admin-key-grid > li')
        .filter({ hasText: key })
        .getByRole('button', { name: `Details of ${key}` })
        .click();
      await visible(details);
    };
    await openDetails();
    expect(await textOf(details.getByTestId('seats-in-use'))).toBe('Seats in use: 2 of 2');
    const seats = details.getByRole('list', { name: 'Seats' });
    expect(await textOf(seats.locator('li').filter({ hasText: 'Laptop' }))).toMatch(/borrowed until/);
    expect(await textOf(seats.locator('li').filter({ hasText: 'Tower' }))).toMatch(/seat held until/);
    expect(await textOf(details.getByTestId('key-uses-left'))).toMatch(/^Uses left: 20 \(allowance 20\)/);
    await screenshot(owner, 'key-details-seats');

    // The laptop's app spends 3 uses; My Keys shows the entitlements and the 17 uses left.
    const consumed = await fetch(new URL('/api/v1/licenses/consume', baseURL()), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': `e2e-${tag}` },
      body: JSON.stringify({ key, deviceFingerprint: laptop, amount: 3 }),
    });
    expect(((await consumed.json()) as Answer).code).toBe('CONSUMED');
    await page.goto('/my-keys');
    const entitlements = page.getByRole('list', { name: 'Entitlements' });
    expect(await textOf(entitlements)).toMatch(/export-pdf\s*pro/);
    expect(await textOf(page.getByTestId('uses-left'))).toBe('17');

    // From My Keys, the customer replaces the laptop: it works on until the new laptop activates.
    const devices = page.getByRole('list', { name: 'Activated devices' });
    expect(await visible(devices.getByText('seat-laptop-0001…'))).toBe(true);
    expect(await textOf(page.getByTestId('swaps-left'))).toBe('3 of 3 device swaps left in 30 days');
    await page.getByRole('button', { name: 'Replace device seat-laptop-0001…' }).click();
    await dialog(page, 'Replace this device?').getByRole('button', { name: 'Replace device' }).click();
    expect(await visible(toastWith(page, /takes this one's place\. 2 swaps left/))).toBe(true);
    expect(await visible(devices.getByText('waiting for its replacement'))).toBe(true);
    await screenshot(page, 'my-keys-replace');
    expect((await license('validate', { key, deviceFingerprint: laptop })).code).toBe('VALID');
    expect((await license('activate', { key, deviceFingerprint: newLaptop })).code).toBe('VALID');
    // Borrowed, it needs no heartbeat for the rest of the test.
    expect((await license('borrow', { key, deviceFingerprint: newLaptop, hours: 24 })).code).toBe('VALID');
    expect((await license('validate', { key, deviceFingerprint: laptop })).code).toBe('NOT_ACTIVATED');
    await page.reload();
    expect(await visible(devices.getByText('seat-newlap-0004…'))).toBe(true);
    expect(await devices.getByText('seat-laptop-0001…').count()).toBe(0);
    expect(await textOf(page.getByTestId('swaps-left'))).toBe('2 of 3 device swaps left in 30 days');

    // The desktop's last heartbeat (on a busy machine the steps above may outlast its first lease;
    // then the heartbeat takes the still free seat again): while its lease lives, the seat is not
    // the tablet's. The desktop sends no more heartbeats, and once the lease has run out it is.
    const lastBeat = await license('heartbeat', { key, deviceFingerprint: desktop });
    expect(lastBeat.code).toBe('VALID');
    expect((await license('activate', { key, deviceFingerprint: tablet })).code).toBe('NO_SEAT_AVAILABLE');
    const leaseEnds = Date.parse(lastBeat.leaseExpiresAt!);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, leaseEnds - Date.now() + 1_000)));
    expect((await license('validate', { key, deviceFingerprint: desktop })).code).toBe('LEASE_EXPIRED');
    expect((await license('activate', { key, deviceFingerprint: tablet })).code).toBe('VALID');
    expect((await license('borrow', { key, deviceFingerprint: tablet, hours: 1 })).code).toBe('VALID');
    expect((await license('heartbeat', { key, deviceFingerprint: desktop })).code).toBe('LEASE_EXPIRED');

    await openDetails();
    expect(await textOf(details.getByTestId('seats-in-use'))).toBe('Seats in use: 2 of 2');
    expect(await textOf(seats.locator('li').filter({ hasText: 'Tower' }))).toMatch(/seat free \(lease ended\)/);
    // The owner releases the tablet's seat at once.
    await seats.getByRole('button', { name: 'Release the seat of seat-tablet-0003…' }).click();
    await details.getByRole('button', { name: 'Confirm release' }).click();
    expect(await visible(toastWith(owner, 'Seat released'))).toBe(true);
    expect(await textOf(details.getByTestId('seats-in-use'))).toBe('Seats in use: 1 of 2');
    await context.close();
    await ownerContext.close();
    // The shortest lease a product may set is a minute, and the test waits for one to run out.
  }, 150_000);
});
