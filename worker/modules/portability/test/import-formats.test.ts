/// <reference types="vite/client" />
// Issue 45, the formats: files in each vendor's published shapes (fixtures written from Keygen's,
// Lemon Squeezy's, Gumroad's and Polar's documented objects and exports), with perpetual, expired,
// suspended or refunded keys and machines, imported; then the customer's software, sending what it
// always sent, validates: a perpetual key a year later, an activated key on its known machine with
// no new activation, a long signed Keygen key as its app sends it. And KeyPanel's own CSVs (the
// CLI's `keys export`, the admin export's tables) import back with no error.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { activations, licenseKeys } from '../../../platform/db/schema';
import { DAY_MS } from '../../../platform/vocabulary';
import { validateLicense } from '../../licensing/licensing';
import { expireKeys } from '../../keys/key-lifecycle';
import { createProduct } from '../../catalog/products';
import { productInputSchema } from '../../catalog/schemas';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { uniqueTag } from '../../../test/shop-helpers';
import { sandbox, type Sandbox } from '../../../test/sandbox';
import { csvRow } from '../../../platform/schemas/csv';
import type { Schemas } from '../../../platform/api-client';
import {
  chunkRecords,
  earlierInFile,
  readImportFile,
  readImportFiles,
  sourceOf,
  unknownFields,
  type ImportFormat,
  type ImportRecord,
} from '../schemas';
import keygenPage1 from './fixtures/keygen-pages/licenses-1.json?raw';
import keygenPage2 from './fixtures/keygen-pages/licenses-2.json?raw';
import keygenMachines from './fixtures/keygen-pages/machines-1.json?raw';
import lemonApi from './fixtures/lemonsqueezy-api-pages.txt?raw';
import gumroadSales from './fixtures/gumroad-sales.csv?raw';
import polarKeys from './fixtures/polar.json?raw';

let box: Sandbox;
let owner: Awaited<ReturnType<Sandbox['signedInUser']>>;
beforeEach(async () => {
  box = await sandbox({ isolatedDb: env.IMPORT_DB });
  owner = await box.signedInUser('owner');
});

async function product(target: Sandbox = box, maxActivations = 1, keyTag = uniqueTag()) {
  return createProduct(
    target.db,
    productInputSchema.parse({
      name: `Product ${keyTag}`,
      description: 'A product to import into',
      keyTag,
      baseCreditCost: 10,
      creditsPerDay: 1,
      minDays: 1,
      maxDays: 365,
      maxActivations,
    }),
  );
}

/** Imports records as the clients do (a dry run of every chunk, then the chunks); the summed counts and outcomes. */
async function importRecords(
  format: ImportFormat,
  records: ImportRecord[],
  body: Record<string, unknown>,
  target = box,
  token = owner.token,
) {
  const chunks = chunkRecords(records, 1500);
  const inFile = earlierInFile(chunks);
  const run = async (dryRun: boolean) => {
    const totals = { create: 0, match: 0, skip: 0 };
    const outcomes: { line: number; type: string; action: string; reason: string }[] = [];
    for (const [i, rows] of chunks.entries()) {
      const res = await target.api('POST', '/api/admin/import', {
        token,
        body: { format, rows, dryRun, inFile: dryRun ? inFile[i] : undefined, ...body },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (const action of ['create', 'match', 'skip'] as const) totals[action] += res.body.counts[action];
      outcomes.push(...res.body.outcomes);
    }
    return { totals, outcomes };
  };
  const dry = await run(true);
  const real = await run(false);
  expect(dry.totals).toEqual(real.totals);
  return real;
}

const keyRow = (key: string, db = box.db) => db.select().from(licenseKeys).where(eq(licenseKeys.key, key.toUpperCase())).get();
const devicesOf = async (key: string, db = box.db) =>
  (
    await db
      .select()
      .from(activations)
      .where(eq(activations.keyId, (await keyRow(key, db))!.id))
      .all()
  )
    .map((a) => a.deviceFingerprint)
    .sort();
/** What the customer's app asks, exactly as it sends it. */
const validate = (key: string, deviceFingerprint: string, now?: number) =>
  validateLicense(box.d1, DEFAULT_SETTINGS, { key: key.trim().toUpperCase(), deviceFingerprint }, now);
const validateByApi = (key: string, deviceFingerprint: string) =>
  box.api('POST', '/api/v1/licenses/validate', { body: { key, deviceFingerprint } });

const signedKey = (JSON.parse(keygenPage2) as { data: { attributes: { key: string } }[] }).data[0].attributes.key;

describe("Keygen's paginated API dump, with its machines", () => {
  const pages = [
    { name: 'licenses-1.json', text: keygenPage1 },
    { name: 'licenses-2.json', text: keygenPage2 },
    { name: 'machines-1.json', text: keygenMachines },
  ];

  it('reads a directory of pages and the same pages concatenated into one file alike', () => {
    const dir = readImportFiles(pages);
    const one = readImportFile(pages.map((p) => p.text).join('\n'));
    expect(dir.problems).toEqual([]);
    expect(one.problems).toEqual([]);
    const shape = (records: ImportRecord[]) =>
      records.map((r) => [r.record.type, r.record.key ?? r.record.fingerprint, r.record.licenseKey ?? null]);
    expect(shape(dir.records)).toEqual(shape(one.records));
    // 5 licences, the machine page 1 includes and the 4 of the machines page.
    expect(dir.records).toHaveLength(5 + 1 + 4);
    // A line of the directory's numbering names its file and line.
    expect(dir.sources.map((s) => s.name)).toEqual(pages.map((p) => p.name));
    const sue = dir.records.find((r) => r.record.fingerprint === 'sue-offline-laptop-7d41')!;
    expect(sourceOf(dir.sources, sue.line)).toEqual({ name: 'machines-1.json', line: 27 });
    expect(sue.record.licenseKey).toBe(signedKey);
    // A machine a page includes is on the line it starts on there.
    const lars = dir.records.find((r) => r.record.fingerprint === '4f:2a:9c:11:d0:7e:lars-workstation')!;
    expect(sourceOf(dir.sources, lars.line)).toEqual({ name: 'licenses-1.json', line: 81 });
  });

  it('imports perpetual, dated, expired and suspended licences and their machines; each customer validates on their machine with no new activation', async () => {
    const made = await product(box, 1);
    const { records } = readImportFiles(pages);
    const { totals, outcomes } = await importRecords('keygen', records, { product: made.keyTag });
    // 5 licences and 3 machines created; a machine of a licence not in the file and one whose fingerprint no app can send, skipped.
    expect(totals).toEqual({ create: 8, match: 0, skip: 2 });
    expect(outcomes.filter((o) => o.action === 'skip').map((o) => o.reason)).toEqual([
      expect.stringContaining('8 to 256 printable characters'),
      expect.stringContaining('99999999-0000-4000-8000-000000000099'),
    ]);

    // A dated licence keeps exactly its expiry, and its duration is its term (a year), not a day.
    const yearly = (await keyRow('STUDIO-8C1A-44F0-9D2B-0001'))!;
    expect(yearly).toMatchObject({ status: 'used', maxActivations: 2, duration: 365, expiryModel: 'time-limited' });
    expect(yearly.expiresAt!.toISOString()).toBe('2027-03-01T00:00:00.000Z');
    // Perpetual in Keygen (expiry null), with a machine: perpetual and in use here.
    expect(await keyRow('STUDIO-8C1A-44F0-9D2B-0002')).toMatchObject({ status: 'used', expiresAt: null, expiryModel: 'perpetual' });
    expect(await keyRow('STUDIO-8C1A-44F0-9D2B-0003')).toMatchObject({ status: 'expired' });
    expect(await keyRow('STUDIO-8C1A-44F0-9D2B-0005')).toMatchObject({ status: 'revoked' });

    // The machines are the keys' devices, by the fingerprint the app sends.
    expect(await devicesOf('STUDIO-8C1A-44F0-9D2B-0001')).toEqual(['C0FFEE00-1234-5678-9ABC-yara-macbook']);
    expect(await devicesOf('STUDIO-8C1A-44F0-9D2B-0002')).toEqual(['4f:2a:9c:11:d0:7e:lars-workstation']);
    const device = (await box.db
      .select()
      .from(activations)
      .where(eq(activations.deviceFingerprint, '4f:2a:9c:11:d0:7e:lars-workstation'))
      .get())!;
    expect(device.deviceInfo).toMatchObject({ manufacturer: 'Windows', model: "Lars's workstation" });
    expect(device.activatedAt.toISOString()).toBe('2025-06-02T09:00:00.000Z');

    const before = (await box.db.select().from(activations).all()).length;
    expect((await validateByApi('STUDIO-8C1A-44F0-9D2B-0001', 'C0FFEE00-1234-5678-9ABC-yara-macbook')).body).toMatchObject({
      valid: true,
      code: 'VALID',
    });
    // The perpetual key, a year later (the clock moved, and the expiry cron ran): still valid on its machine.
    const yearLater = Date.now() + 365 * DAY_MS;
    await expireKeys(box.db, DEFAULT_SETTINGS, yearLater);
    expect(await validate('STUDIO-8C1A-44F0-9D2B-0002', '4f:2a:9c:11:d0:7e:lars-workstation', yearLater)).toMatchObject({
      valid: true,
      code: 'VALID',
    });
    expect((await keyRow('STUDIO-8C1A-44F0-9D2B-0002'))!.status).toBe('used');
    // The dated key, a year later, has ended.
    expect(await validate('STUDIO-8C1A-44F0-9D2B-0001', 'C0FFEE00-1234-5678-9ABC-yara-macbook', yearLater + 30 * DAY_MS)).toMatchObject({
      valid: false,
      code: 'EXPIRED',
    });
    // The long signed key, exactly as Keygen issued it and its app sends it (lower case and all).
    expect(signedKey.length).toBeGreaterThan(500);
    expect((await validateByApi(signedKey, 'sue-offline-laptop-7d41')).body).toMatchObject({ valid: true, code: 'VALID' });
    expect(await keyRow(signedKey)).toMatchObject({ expiryModel: 'perpetual', expiresAt: null });
    // No validation made a new activation.
    expect((await box.db.select().from(activations).all()).length).toBe(before);

    // The same dump again changes nothing.
    const again = await importRecords('keygen', readImportFiles(pages).records, { product: made.keyTag });
    expect(again.totals).toEqual({ create: 0, match: 8, skip: 2 });
  });

  it('lists the fields it does not import, and refuses no record for them', () => {
    const { records } = readImportFiles(pages);
    const unknown = unknownFields(
      'keygen',
      records.map((r) => r.record),
    );
    expect(unknown).toEqual(expect.arrayContaining(['name', 'scheme', 'hostname', 'cores']));
    expect(unknown).not.toContain('key');
    expect(unknown).not.toContain('fingerprint');
  });
});

describe("Lemon Squeezy's API pages: license keys, then their instances", () => {
  it('imports the keys and makes each instance a device, validated by the instance id the app keeps', async () => {
    const made = await product(box, 3);
    const file = readImportFile(lemonApi);
    expect(file.problems).toEqual([]);
    const { totals } = await importRecords('lemonsqueezy', file.records, { product: made.keyTag });
    expect(totals).toEqual({ create: 4, match: 0, skip: 0 });
    expect(await keyRow('c3248ae8-fa29-469e-b83e-cc2f2bd7bd11')).toMatchObject({
      status: 'used',
      expiryModel: 'perpetual',
      expiresAt: null,
      maxActivations: 2,
    });
    const yearly = (await keyRow('d4359bf9-0b3a-47af-894f-dd3a3ce8ce12'))!;
    expect(yearly).toMatchObject({ status: 'used', duration: 365 });
    expect(yearly.expiresAt!.toISOString()).toBe('2027-05-24T00:00:00.000Z');
    expect(await keyRow('e546ac0a-1c4b-48b0-9a50-ee4b4df9df13')).toMatchObject({ status: 'revoked' });
    expect(await devicesOf('c3248ae8-fa29-469e-b83e-cc2f2bd7bd11')).toEqual(['f70a79fa-6054-433e-9c1b-6075344292e4']);
    const answer = await validateByApi('c3248ae8-fa29-469e-b83e-cc2f2bd7bd11', 'f70a79fa-6054-433e-9c1b-6075344292e4');
    expect(answer.body).toMatchObject({ valid: true, code: 'VALID' });
  });
});

describe("Gumroad's dashboard sales CSV", () => {
  it('reads its headers whatever their case and punctuation: keys perpetual, a full refund and a lost dispute skipped, a partial refund kept', async () => {
    const made = await product(box, 2);
    const file = readImportFile(gumroadSales);
    expect(file.problems).toEqual([]);
    expect(
      unknownFields(
        'gumroad',
        file.records.map((r) => r.record),
      ),
    ).toEqual(expect.arrayContaining(['Purchase ID', 'Item Name', 'Partial Refund ($)']));
    const { totals, outcomes } = await importRecords('gumroad', file.records, { product: made.keyTag });
    expect(totals).toEqual({ create: 2, match: 0, skip: 2 });
    // Every record has its outcome; the two refused ones say why.
    expect(outcomes.filter((o) => o.action === 'skip')).toEqual([
      expect.objectContaining({ line: 3, type: 'key', action: 'skip', reason: 'refunded in Gumroad' }),
      expect.objectContaining({ line: 5, type: 'key', action: 'skip', reason: 'charged back in Gumroad' }),
    ]);
    const gina = (await keyRow('B85DB562-C11D4B06-A2335A6B-8C079166'))!;
    expect(gina).toMatchObject({ status: 'available', expiryModel: 'perpetual', expiresAt: null });
    expect(await keyRow('BA7FD784-E33F6D28-C4557C8D-AE29B388')).toMatchObject({ status: 'available' });
    // Activated now, it never expires: a year on, after the cron, it still validates.
    const activated = await box.api('POST', '/api/v1/licenses/activate', { body: { key: gina.key, deviceFingerprint: 'gina-desktop-01' } });
    expect(activated.body).toMatchObject({ valid: true, license: { expiresAt: null } });
    const yearLater = Date.now() + 366 * DAY_MS;
    await expireKeys(box.db, DEFAULT_SETTINGS, yearLater);
    expect(await validate(gina.key, 'gina-desktop-01', yearLater)).toMatchObject({ valid: true, code: 'VALID' });
  });
});

describe("Polar's license keys", () => {
  it('imports a granted key with its activation (validated by the activation id) and a revoked one', async () => {
    const made = await product(box, 1);
    const file = readImportFile(polarKeys);
    expect(file.problems).toEqual([]);
    const { totals } = await importRecords('polar', file.records, { product: made.keyTag });
    expect(totals).toEqual({ create: 3, match: 0, skip: 0 });
    expect(await keyRow('POLAR-6F2C1E0A-9B3D-4A7E-8C5F-0D1E2F3A4B5C')).toMatchObject({
      status: 'used',
      expiryModel: 'perpetual',
      maxActivations: 3,
    });
    expect(await keyRow('POLAR-1A2B3C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D')).toMatchObject({ status: 'revoked' });
    const answer = await validateByApi('POLAR-6F2C1E0A-9B3D-4A7E-8C5F-0D1E2F3A4B5C', 'a1c2e3f4-0000-4a5b-8c6d-000000000101');
    expect(answer.body).toMatchObject({ valid: true, code: 'VALID' });
  });
});

describe('keys as the vendor made them', () => {
  it('takes a key up to 1024 characters in an import and the licensing API, and refuses one longer by its line', async () => {
    const made = await product(box, 1);
    const long = `key/${'A1b2'.repeat(255)}`; // 1024 characters
    const res = await importRecords('keypanel', [{ line: 2, record: { key: long, product: made.keyTag } }], {});
    expect(res.totals.create).toBe(1);
    const activated = await box.api('POST', '/api/v1/licenses/activate', { body: { key: long, deviceFingerprint: 'long-key-device' } });
    expect(activated.body).toMatchObject({ valid: true });
    const refused = await box.api('POST', '/api/admin/import', {
      token: owner.token,
      body: { format: 'keypanel', rows: [{ line: 7, record: { key: `${long}x`, product: made.keyTag } }] },
    });
    expect(refused.status).toBe(400);
    expect((refused.body as unknown as { details: { problems: unknown[] } }).details.problems).toEqual([
      { line: 7, message: 'key must be at most 1024 characters' },
    ]);
    const tooLong = await box.api('POST', '/api/v1/licenses/validate', { body: { key: `${long}x`, deviceFingerprint: 'long-key-device' } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toBe('key must be at most 1024 characters');
  });
});

describe("KeyPanel's own CSVs import back", () => {
  /** A shop with three keys: one activated on a device, one revoked, one unused. */
  async function shopWithKeys() {
    const made = await product(box, 3);
    const generated = await box.api('POST', '/api/keys/generate', { token: owner.token, body: { productId: made.id, quantity: 3 } });
    expect(generated.status, JSON.stringify(generated.body)).toBe(201);
    const [first, second] = generated.body.keys as { key: string; _id: string }[];
    const activated = await box.api('POST', '/api/v1/licenses/activate', {
      body: { key: first.key, deviceFingerprint: 'export-device-1' },
    });
    expect(activated.body).toMatchObject({ valid: true });
    const revoked = await box.api('PUT', `/api/keys/${second._id}/revoke`, { token: owner.token, body: { reason: 'refunded' } });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    return { made, first };
  }
  const sameKeys = async (target: Sandbox) => {
    const source = await box.db.select().from(licenseKeys).all();
    expect(source).toHaveLength(3);
    for (const k of source) {
      const copy = (await keyRow(k.key, target.db))!;
      const facts = (r: typeof k) => ({
        status: r.status,
        tag: r.productKeyTag,
        duration: r.duration,
        max: r.maxActivations,
        expiresAt: r.expiresAt?.getTime() ?? null,
        model: r.expiryModel,
      });
      expect(facts(copy)).toEqual(facts(k));
    }
  };

  it("`keypanel keys export`'s CSV (its columns, as the CLI writes them) into another shop, with no error", async () => {
    const { made } = await shopWithKeys();
    const listed = await box.api('GET', '/api/admin/keys?limit=100', { token: owner.token });
    expect(listed.status).toBe(200);
    // The columns of cli/commands/keys.ts's keyColumns, each as it writes its value.
    const columns: [string, (k: Schemas['LicenseKey']) => unknown][] = [
      ['id', (k) => k._id],
      ['key', (k) => k.key],
      ['status', (k) => k.status],
      ['keyTag', (k) => k.product.keyTag],
      ['product', (k) => k.product.name],
      ['duration', (k) => k.duration],
      ['activations', (k) => `${k.activations.length}/${k.maxActivations}`],
      ['purchasedBy', (k) => k.purchasedBy?.username ?? ''],
      ['createdBy', (k) => k.createdBy?.username ?? ''],
      ['createdAt', (k) => k.createdAt],
      ['expiresAt', (k) => k.expiresAt],
      ['revokeReason', (k) => k.revokeReason ?? ''],
    ];
    const csv =
      csvRow(columns.map(([header]) => header)) +
      listed.body.keys.map((k) => csvRow(columns.map(([, value]) => value(k) as string))).join('');
    const file = readImportFile(csv);
    expect(file.problems).toEqual([]);

    const target = await sandbox({ isolatedDb: env.IMPORT_TARGET_DB });
    const targetOwner = await target.signedInUser('owner');
    await product(target, 3, made.keyTag);
    const { totals } = await importRecords('keypanel', file.records, {}, target, targetOwner.token);
    expect(totals).toEqual({ create: 3, match: 0, skip: 0 });
    await sameKeys(target);
  });

  it("`keypanel keys export --format json` (the API's keys) into another shop: its devices come along and validate", async () => {
    const { made, first } = await shopWithKeys();
    const listed = await box.api('GET', '/api/admin/keys?limit=100', { token: owner.token });
    const file = readImportFile(JSON.stringify(listed.body.keys, null, 2));
    expect(file.problems).toEqual([]);
    const target = await sandbox({ isolatedDb: env.IMPORT_TARGET_DB });
    const targetOwner = await target.signedInUser('owner');
    await product(target, 3, made.keyTag);
    const { totals } = await importRecords('keypanel', file.records, {}, target, targetOwner.token);
    expect(totals).toEqual({ create: 3, match: 0, skip: 0 });
    await sameKeys(target);
    expect(await devicesOf(first.key, target.db)).toEqual(['export-device-1']);
    const answer = await target.api('POST', '/api/v1/licenses/validate', {
      body: { key: first.key, deviceFingerprint: 'export-device-1' },
    });
    expect(answer.body).toMatchObject({ valid: true, code: 'VALID' });
  });

  it("the admin export's CSV tables (products, keys, devices), as a directory, into an empty shop: the device validates with no new activation", async () => {
    const { first } = await shopWithKeys();
    const table = async (name: string) => {
      const res = await box.api('GET', `/api/admin/export?format=csv&table=${name}`, { token: owner.token });
      expect(res.status).toBe(200);
      return { name: `${name}.csv`, text: res.body as unknown as string };
    };
    const files = [await table('products'), await table('keys'), await table('devices')];
    const read = readImportFiles(files);
    expect(read.problems).toEqual([]);

    const target = await sandbox({ isolatedDb: env.IMPORT_TARGET_DB });
    const targetOwner = await target.signedInUser('owner');
    const { totals } = await importRecords('keypanel', read.records, {}, target, targetOwner.token);
    expect(totals).toEqual({ create: 1 + 3 + 1, match: 0, skip: 0 });
    await sameKeys(target);
    const answer = await target.api('POST', '/api/v1/licenses/validate', {
      body: { key: first.key, deviceFingerprint: 'export-device-1' },
    });
    expect(answer.body).toMatchObject({ valid: true, code: 'VALID' });
  });
});
