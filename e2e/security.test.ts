// Account security in a real browser: two-factor from setup to sign-in, recovery tokens, sessions,
// the password form, and the public password pages.
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, register, screenshot, textOf, uniqueUser, visible } from './browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** What an authenticator app shows for the secret, `offset` 30-second steps from now. */
const totp = (secret: string, offset = 0) =>
  generateHOTP(decodeBase32IgnorePadding(secret), BigInt(Math.floor(Date.now() / 30_000) + offset), 6);

async function openSecurity(page: Page) {
  await page.getByRole('link', { name: 'Security' }).click();
  await page.waitForURL('**/settings/security');
  await visible(page.getByRole('heading', { name: 'Security settings' }));
}

describe('two-factor sign-in', () => {
  it('is enabled with a code from the shown secret, and then asked for at sign-in', async () => {
    const { context, page } = await newPage(browser);
    const user = await register(page, uniqueUser('tfa'));
    await openSecurity(page);
    expect(await textOf(page.getByRole('region', { name: 'Security log entries' }))).toContain('Account created');
    await screenshot(page, 'security-desktop');

    // Step-up before any secret is shown: a wrong password is refused inline, the dialog stays.
    await page.getByRole('button', { name: 'Enable two-factor' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm it is you' });
    await visible(confirm);
    expect(await confirm.getByRole('button', { name: 'Continue' }).isDisabled()).toBe(true);
    await confirm.getByLabel('Confirm with your password').fill('not-my-password');
    await confirm.getByRole('button', { name: 'Continue' }).click();
    await visible(confirm.getByRole('alert').filter({ hasText: 'Password is incorrect' }));
    await screenshot(page, 'security-step-up');
    expect(await page.getByRole('dialog', { name: 'Set up two-factor authentication' }).count()).toBe(0);
    await confirm.getByLabel('Confirm with your password').fill(user.password);
    await confirm.getByRole('button', { name: 'Continue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set up two-factor authentication' });
    await visible(dialog);
    const qr = dialog.getByRole('img', { name: /QR code/ });
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const secret = (await textOf(dialog.getByTestId('two-factor-secret'))).replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const verify = dialog.getByRole('button', { name: 'Verify and enable' });
    const codeField = dialog.getByLabel('Verification code');
    await codeField.fill('12a4');
    expect(await codeField.inputValue()).toBe('124');
    expect(await verify.isDisabled()).toBe(true);
    await screenshot(page, 'security-2fa-setup');
    await codeField.fill(totp(secret));
    expect(await verify.isEnabled()).toBe(true);
    await verify.click();
    await visible(page.getByText('Two-factor authentication enabled').first());
    await visible(page.getByText('Enabled', { exact: true }));
    expect(await dialog.count()).toBe(0);

    // Recovery tokens: the list right after generating, then only the count.
    await page.getByRole('button', { name: 'Generate recovery tokens' }).click();
    const generate = page.getByRole('dialog', { name: 'Generate recovery tokens' });
    // Two-factor is on now: the dialog offers a code too; the password will do.
    await visible(generate.getByText('Authenticator code', { exact: true }));
    await generate.getByLabel('Confirm with your password').fill(user.password);
    await generate.getByRole('button', { name: 'Generate tokens' }).click();
    const list = page.getByRole('list', { name: 'Your recovery tokens' });
    await visible(list);
    const tokens = await list.getByRole('listitem').allTextContents();
    expect(tokens).toHaveLength(10);
    await screenshot(page, 'security-recovery-tokens');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    expect(await textOf(page.getByTestId('recovery-count'))).toBe('10 tokens left');
    expect(await page.getByText(tokens[0]).count()).toBe(0);

    // Sign out, sign in: the password step leads to the code step.
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/login/2fa');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await screenshot(page, 'login-2fa');
    const signInVerify = page.getByRole('button', { name: 'Verify' });
    expect(await signInVerify.isDisabled()).toBe(true);
    // The code that enabled two-factor was spent; the authenticator's next code works.
    await page.getByLabel('Authentication code').fill(totp(secret, 1));
    await signInVerify.click();
    // Signed in, back where the sign-out left from (the guard remembers it) or on the dashboard.
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    expect(await textOf(page.getByTestId('header-username'))).toBe(user.username);

    // A recovery token works once in place of a code.
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/login/2fa');
    await page.getByRole('button', { name: 'Use a recovery token instead' }).click();
    await page.getByLabel('Recovery token').fill(tokens[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await openSecurity(page);
    expect(await textOf(page.getByTestId('recovery-count'))).toBe('9 tokens left');

    // Turning it off needs a code or the password.
    await page.getByRole('button', { name: 'Disable two-factor' }).click();
    const off = page.getByRole('dialog', { name: 'Disable two-factor authentication' });
    await off.getByText('Password', { exact: true }).click();
    await off.getByLabel('Your password').fill(user.password);
    await off.getByRole('button', { name: 'Disable' }).click();
    await visible(page.getByText('Two-factor authentication disabled').first());
    await visible(page.getByRole('button', { name: 'Enable two-factor' }));
    await context.close();
  });

  it('shows a wrong code without leaving the step', async () => {
    const { context, page } = await newPage(browser);
    const user = await register(page, uniqueUser('tfw'));
    const token = await page.evaluate(() => localStorage.getItem('token'));
    const setup = await apiCall('POST', '/api/users/setup-2fa', { currentPassword: user.password }, token!);
    // Two-factor really is on, or the sign-in below would go to the dashboard, not to its step.
    expect((await apiCall('POST', '/api/users/verify-2fa', { code: totp(setup.body.secret) }, token!)).status).toBe(200);
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/login/2fa');
    const wrong = String((Number(totp(setup.body.secret, 1)) + 1) % 1_000_000).padStart(6, '0');
    await page.getByLabel('Authentication code').fill(wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    expect(await visible(page.getByRole('alert').filter({ hasText: 'Invalid two-factor code' }))).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/login/2fa');
    await context.close();
  });
});

describe('sessions', () => {
  it('lists the sessions and terminates another one, which is then refused', async () => {
    const { context, page } = await newPage(browser);
    const user = await register(page, uniqueUser('ses'));
    const other = await apiLogin(user);
    expect((await apiCall('GET', '/api/users/profile', undefined, other)).status).toBe(200);
    await openSecurity(page);
    const sessions = page.getByRole('list', { name: 'Active sessions' });
    await visible(sessions.getByText('This device'));
    expect(await sessions.getByRole('listitem').count()).toBe(2);
    const terminate = sessions.getByRole('button', { name: /^Terminate session/ });
    expect(await terminate.count()).toBe(1);
    await terminate.click();
    await visible(page.getByText('Session terminated').first());
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Active sessions"] li').length === 1);
    expect((await apiCall('GET', '/api/users/profile', undefined, other)).status).toBe(401);
    // This device is still signed in.
    await page.reload();
    await visible(page.getByRole('heading', { name: 'Security settings' }));
    expect(await textOf(page.getByRole('region', { name: 'Security log entries' }))).toContain('Session terminated');
    await context.close();
  });
});

describe('password', () => {
  it('checks the form, changes the password, and signs the other sessions out', async () => {
    const { context, page } = await newPage(browser);
    const user = await register(page, uniqueUser('pwd'));
    const other = await apiLogin(user);
    await openSecurity(page);
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill(user.password);
    await form.getByLabel('New password', { exact: true }).fill('NewPass123');
    await form.getByLabel('Confirm new password').fill('NewPass124');
    await form.getByRole('button', { name: 'Change password' }).click();
    await visible(form.getByText('New passwords do not match'));
    // A common password is refused as it is typed (the strength meter) and when sent.
    await form.getByLabel('New password', { exact: true }).fill('Password123');
    await form.getByLabel('Confirm new password').fill('Password123');
    expect(await visible(form.getByText(/^Strength: not allowed \(This password is one of the most common passwords/))).toBe(true);
    await form.getByRole('button', { name: 'Change password' }).click();
    await visible(form.getByRole('alert').filter({ hasText: 'This password is one of the most common passwords' }));
    // A long one with no capitals or digits is fine: the meter rates it.
    await form.getByLabel('New password', { exact: true }).fill('quiet lantern harbor meadow');
    expect(await visible(form.getByText(/^Strength: (Good|Strong)$/))).toBe(true);
    expect(await form.getByRole('meter', { name: 'Strength' }).getAttribute('value')).toMatch(/^[34]$/);
    await form.getByLabel('New password', { exact: true }).fill('NewPass123');
    await form.getByLabel('Confirm new password').fill('NewPass123');
    await form.getByRole('button', { name: 'Change password' }).click();
    await visible(page.getByText(/Password changed successfully/).first());
    expect(await form.getByLabel('Current password').inputValue()).toBe('');
    expect((await apiCall('GET', '/api/users/profile', undefined, other)).status).toBe(401);
    expect((await apiCall('POST', '/api/auth/login', { email: user.email, password: 'NewPass123' })).status).toBe(200);
    await context.close();
  });

  it('lays the page out on a phone', async () => {
    const { context, page } = await newPage(browser, { mobile: true });
    await register(page, uniqueUser('mob'));
    await page.goto('/settings/security');
    await visible(page.getByRole('heading', { name: 'Security settings' }));
    await visible(page.getByRole('list', { name: 'Active sessions' }));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'security-phone');
    await context.close();
  });

  it('offers forgot-password with the same answer for any address, and a clear reset page', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL('**/forgot-password');
    await page.getByLabel('Email').fill(`nobody-${Date.now()}@example.com`);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    expect(await textOf(page.getByRole('status').filter({ hasText: 'If an account exists' }))).toMatch(
      /^If an account exists for that email/,
    );
    await screenshot(page, 'forgot-password');
    await page.goto('/reset-password');
    await visible(page.getByText('This reset link is incomplete.'));
    // As from an email: a fresh page load; the page takes the token and clears it from the address.
    await page.goto('about:blank');
    await page.goto('/reset-password#token=not-a-real-token-but-long-enough');
    await visible(page.getByRole('heading', { name: 'Choose a new password' }));
    expect(new URL(page.url()).hash).toBe('');
    await page.getByLabel('New password', { exact: true }).fill('Another123');
    await page.getByLabel('Confirm new password').fill('Another123');
    await page.getByRole('button', { name: 'Set new password' }).click();
    expect(await visible(page.getByRole('alert').filter({ hasText: 'This reset link is invalid' }))).toBe(true);
    await screenshot(page, 'reset-password');
    await context.close();
  });

  it('says clearly that Google sign-in is not configured', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign in with Google' }).click();
    expect(await visible(page.getByRole('alert').filter({ hasText: 'Sign in with Google is not available on this server' }))).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/login');
    await context.close();
  });
});
