// Importing a vendor's own export in the browser (issue 45): Gumroad's dashboard sales CSV, its
// headers as Gumroad writes them ("License Key", "Purchase Email", "Fully Refunded?"), read with no
// refusal; the columns the import does not read are listed before the dry run, and the dry run
// skips the refunded sale with its reason.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiLogin, launchBrowser, newPage, ownerCredentials, signIn, textOf, visible } from './browser';

let browser: Browser;
let ownerToken: string;
beforeAll(async () => {
  browser = await launchBrowser();
  ownerToken = await apiLogin(ownerCredentials());
});
afterAll(async () => {
  await browser?.close();
});

describe("a vendor's own export in the browser", () => {
  it("reads Gumroad's dashboard sales CSV, lists the columns it does not import, and skips a refund in the dry run", async () => {
    const tag = `G${Date.now().toString(36).toUpperCase()}`.slice(0, 10);
    const product = await apiCall(
      'POST',
      '/api/products',
      { name: `Gumroad ${tag}`, description: 'Moved in from Gumroad', keyTag: tag, baseCreditCost: 10, creditsPerDay: 1 },
      ownerToken,
    );
    expect(product.status).toBe(201);
    const csv = [
      'Purchase ID,Item Name,Purchase Email,Refunded?,Fully Refunded?,Disputed?,Dispute Won?,License Key',
      `A1,Pixel Pack,gina.${tag.toLowerCase()}@example.com,0,0,0,0,${tag}-GUM-0001`,
      `A2,Pixel Pack,gus.${tag.toLowerCase()}@example.com,1,1,0,0,${tag}-GUM-0002`,
    ].join('\n');

    const { context, page } = await newPage(browser, { mobile: true });
    await signIn(page, ownerCredentials());
    await page.goto('/admin?tab=generate');
    const section = page.getByRole('region', { name: 'Import licences' });
    expect(await visible(section)).toBe(true);
    await section.getByLabel('Format').selectOption('gumroad');
    await section.getByLabel('Product').selectOption(tag);
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
