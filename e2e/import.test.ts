// Importing licences in the browser (issue 34): the owner chooses a Lemon Squeezy file, sees a preview
// of its first records and the dry run's counts, imports it, and finds its keys under License Keys;
// a malformed file is refused with its line. On a phone-sized screen, as the panel must work there too.
// And a big import cut off mid-way (issue 45): an answer lost after the server wrote its chunk, the
// import resumed from the position the browser kept, every key and machine there once, the report
// downloadable. And a vendor's own export (issue 45): Gumroad's dashboard sales CSV, its headers as
// Gumroad writes them, read with no refusal; the columns the import does not read are listed before
// the dry run, which skips the refunded sale with its reason.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, ownerCredentials, screenshot, signIn, textOf, visible } from './browser';

let browser: Browser;
let ownerToken: string;
beforeAll(async () => {
  browser = await launchBrowser();
  ownerToken = await apiLogin(ownerCredentials());
});
afterAll(async () => {
  await browser?.close();
});

/** A product to import into, named for the test, with a key tag of its own (returned). */
async function productFor(letter: string, name: string, description: string): Promise<string> {
  const tag = `${letter}${Date.now().toString(36).toUpperCase()}`.slice(0, 10);
  const product = await apiCall(
    'POST',
    '/api/products',
    { name: `${name} ${tag}`, description, keyTag: tag, baseCreditCost: 10, creditsPerDay: 1 },
    ownerToken,
  );
  expect(product.status).toBe(201);
  return tag;
}

/** The owner's import section on the Admin Panel's Generate tab, its format and product chosen. */
async function openImport(format: string, tag: string, options: { mobile?: boolean } = {}) {
  const { context, page } = await newPage(browser, options);
  await signIn(page, ownerCredentials());
  await page.goto('/admin?tab=generate');
  const section = page.getByRole('region', { name: 'Import licences' });
  expect(await visible(section)).toBe(true);
  await section.getByLabel('Format').selectOption(format);
  await section.getByLabel('Product').selectOption(tag);
  return { context, page, section };
}

describe('importing licences in the browser', () => {
  it('previews a file, counts a dry run, imports it and shows its keys; refuses a malformed file by line', async () => {
    const tag = await productFor('I', 'Imported', 'Moved in from Lemon Squeezy');
    const keys = [1, 2, 3].map((i) => `${tag}-LEMON-000${i}`);
    const csv = [
      'id,user_name,user_email,key,activation_limit,instances_count,disabled,status,expires_at',
      `1,Luke Lemon,luke.${tag.toLowerCase()}@example.com,${keys[0]},1,0,false,active,2031-09-30T00:00:00.000000Z`,
      `2,Lena Lemon,lena.${tag.toLowerCase()}@example.com,${keys[1]},,0,false,inactive,`,
      `3,Leo Lemon,leo.${tag.toLowerCase()}@example.com,${keys[2]},1,0,true,disabled,`,
    ].join('\n');

    const { context, page, section } = await openImport('lemonsqueezy', tag, { mobile: true });

    // A malformed file: refused with its line, before any request.
    await section.getByLabel('File (CSV, JSON or JSON lines)').setInputFiles({
      name: 'broken.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('key,user_email\nA-1,"never closed\n'),
    });
    expect(await textOf(section.getByRole('alert'))).toContain('Line 2: a quoted cell is never closed');
    expect(await section.getByRole('button', { name: 'Check (dry run)' }).isDisabled()).toBe(true);

    await section
      .getByLabel('File (CSV, JSON or JSON lines)')
      .setInputFiles({ name: 'license-keys.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const preview = section.getByRole('table');
    expect(await textOf(preview.locator('caption'))).toBe('The first 3 of 3 records');
    expect(await textOf(preview)).toContain(keys[0]);
    expect(await section.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);

    await section.getByRole('button', { name: 'Check (dry run)' }).click();
    const status = section.getByRole('status');
    expect(await textOf(status)).toContain('Dry run: 3 would be created, 0 matched, 0 skipped. Nothing was written.');
    await screenshot(page, 'admin-import-dry-run');

    await section.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('.import-section [role="status"]')?.textContent?.startsWith('Imported'));
    expect(await textOf(section.getByRole('status'))).toContain('Imported: 3 created, 0 matched, 0 skipped; 3 new accounts.');

    // The keys are the shop's now.
    await page.getByRole('tab', { name: 'License Keys', exact: true }).click();
    await page.getByLabel('Search keys').fill(tag);
    await page.waitForFunction(() => document.querySelectorAll('.admin-key-grid > li').length === 3);
    for (const key of keys) expect(await visible(page.locator('.admin-key-grid > li').filter({ hasText: key }))).toBe(true);
    await context.close();
  });

  it('resumes an import cut off mid-way from the position the browser kept: every key and machine once, a report to download', async () => {
    const tag = await productFor('R', 'Resumed', 'A big file, cut off');
    const total = 1500;
    const csv = [
      'key,expiresAt,devices',
      ...Array.from(
        { length: total },
        (_, i) =>
          `${tag}-${String(i).padStart(5, '0')}-WEB,2031-01-01T00:00:00Z,machine-${String(i).padStart(5, '0')}-${tag.toLowerCase()}`,
      ),
    ].join('\n');

    const { context, page, section } = await openImport('keypanel', tag);
    const choose = () =>
      section
        .getByLabel('File (CSV, JSON or JSON lines)')
        .setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await choose();
    await section.getByRole('button', { name: 'Check (dry run)' }).click();
    expect(await textOf(section.getByRole('status'))).toContain(
      `Dry run: ${total.toLocaleString('en-US')} would be created, 0 matched, 0 skipped.`,
    );
    expect(await textOf(section.getByRole('status'))).toContain(`With the keys: ${total.toLocaleString('en-US')} devices`);

    // The third part of the real run reaches the server, which writes it, but its answer is lost.
    let sent = 0;
    await page.route('**/api/admin/import', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}') as { dryRun?: boolean };
      if (body.dryRun || ++sent !== 3) return route.continue();
      await route.fetch();
      return route.abort('connectionreset');
    });
    await section.getByRole('button', { name: 'Import', exact: true }).click();
    expect(await textOf(section.getByRole('alert'))).toContain('import the same file again to resume');
    await page.unroute('**/api/admin/import');

    // The same file again (the page reloaded): the browser kept where the import stood.
    await page.reload();
    await section.getByLabel('Format').selectOption('keypanel');
    await section.getByLabel('Product').selectOption(tag);
    await choose();
    expect(await textOf(section.getByRole('note'))).toMatch(/An import of this file stopped after 2 of \d+ parts/);
    await section.getByRole('button', { name: 'Resume import' }).click();
    await page.waitForFunction(() => document.querySelector('.import-section [role="status"]')?.textContent?.startsWith('Imported'));
    const summary = await textOf(section.getByRole('status'));
    // The part whose answer was lost went in once: sent again, it matched.
    // Counts are written as the reader's language writes numbers (1,500 in English).
    const [, created, matched] = /Imported: ([\d,]+) created, ([\d,]+) matched, 0 skipped/.exec(summary) ?? [];
    const count = (text: string | undefined) => Number(text?.replace(/,/g, ''));
    expect(count(created) + count(matched)).toBe(total);
    expect(count(matched)).toBeGreaterThan(0);
    const products = await apiCall('GET', '/api/products', undefined, ownerToken);
    const stats = (products.body as { keyTag: string; stats: { totalGenerated: number; totalActivations: number } }[]).find(
      (p) => p.keyTag === tag,
    )?.stats;
    expect(stats).toMatchObject({ totalGenerated: total, totalActivations: total });
    // The report of the resumed run downloads as CSV.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: 'Download the report (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('import-report.csv');
    await context.close();
  });

  it("reads Gumroad's dashboard sales CSV, lists the columns it does not import, and skips a refund in the dry run", async () => {
    const tag = await productFor('G', 'Gumroad', 'Moved in from Gumroad');
    const csv = [
      'Purchase ID,Item Name,Purchase Email,Refunded?,Fully Refunded?,Disputed?,Dispute Won?,License Key',
      `A1,Pixel Pack,gina.${tag.toLowerCase()}@example.com,0,0,0,0,${tag}-GUM-0001`,
      `A2,Pixel Pack,gus.${tag.toLowerCase()}@example.com,1,1,0,0,${tag}-GUM-0002`,
    ].join('\n');

    const { context, section } = await openImport('gumroad', tag, { mobile: true });
    await section
      .getByLabel('File (CSV, JSON or JSON lines)')
      .setInputFiles({ name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    expect(await textOf(section.getByLabel('Fields not imported'))).toBe(
      "Not imported (not read from Gumroad's records): Purchase ID, Item Name",
    );

    await section.getByRole('button', { name: 'Check (dry run)' }).click();
    const status = section.getByRole('status');
    expect(await textOf(status)).toContain('Dry run: 1 would be created, 0 matched, 1 skipped. Nothing was written.');
    expect(await textOf(status)).toContain('Line 3: skip key: refunded in Gumroad');
    await context.close();
  });
});
