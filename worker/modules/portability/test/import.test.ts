/// <reference types="vite/client" />
// Imports (issue 34): a file of each format (fixtures written from each vendor's documented licence
// fields), a dry run, a repeat, malformed files refused whole with their lines, two identical imports
// at once, and the round trip: a seeded shop's export imported into an empty one gives the same keys,
// balances and ledger. On IMPORT_DB (and IMPORT_TARGET_DB), emptied before each test, so counts are exact.
import { env } from 'cloudflare:test';
import { count, eq, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { activations, auditLog, ledger, licenseKeys, products, users } from '../../../platform/db/schema';
import { DAY_MS } from '../../../platform/vocabulary';
import { newId } from '../../../platform/ids';
import { readOutbox } from '../../../platform/mail';
import { purchaseKey } from '../../keys/purchase';
import { activateLicense } from '../../licensing/licensing';
import { createProduct } from '../../catalog/products';
import { productInputSchema } from '../../catalog/schemas';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { uniqueTag } from '../../../test/shop-helpers';
import { TEST_PASSWORD } from '../../../test/helpers';
import { sandbox, type Sandbox } from '../../../test/sandbox';
import {
  addToTally,
  chunkRecords,
  inFileFor,
  emptyImportTally,
  IMPORT_LISTED,
  readImportFile,
  type ImportFormat,
  type ImportRecord,
} from '../schemas';
import keygenFile from './fixtures/keygen.json?raw';
import lemonFile from './fixtures/lemonsqueezy.csv?raw';
import gumroadFile from './fixtures/gumroad.csv?raw';
import keypanelFile from './fixtures/keypanel.csv?raw';

let box: Sandbox;
let owner: Awaited<ReturnType<Sandbox['signedInUser']>>;
beforeEach(async () => {
  box = await sandbox({ isolatedDb: env.IMPORT_DB });
  owner = await box.signedInUser('owner');
});

const tableCount = async (db: Sandbox['db'], table: SQLiteTable) => (await db.select({ n: count() }).from(table).get())!.n;

async function product(
  target: Sandbox = box,
  fields: {
    maxActivations?: number;
    minDays?: number;
    entitlements?: string[];
    usageAllowance?: number;
    usageRefillAmount?: number;
    usageRefillDays?: number;
  } = {},
) {
  return createProduct(
    target.db,
    productInputSchema.parse({
      name: `Product ${uniqueTag()}`,
      description: 'A product to import into',
      keyTag: uniqueTag(),
      baseCreditCost: 10,
      creditsPerDay: 1,
      minDays: fields.minDays ?? 30,
      maxDays: 365,
      maxActivations: fields.maxActivations ?? 1,
      entitlements: fields.entitlements,
      usageAllowance: fields.usageAllowance,
      usageRefillAmount: fields.usageRefillAmount,
      usageRefillDays: fields.usageRefillDays,
    }),
  );
}

type Options = {
  dryRun?: boolean;
  product?: string;
  days?: number;
  devices?: number;
  token?: string;
  target?: Sandbox;
  chunkBytes?: number;
  /** The owner's proof, which keeps resellers and verified addresses. */
  currentPassword?: string;
};
/** Posts one chunk of records, as a client sends it. */
const post = (format: ImportFormat, rows: ImportRecord[], options: Options & { inFile?: ReturnType<typeof inFileFor>[number] } = {}) => {
  const { token = owner.token, target = box, chunkBytes: _chunkBytes, ...rest } = options;
  return target.api('POST', '/api/admin/import', { token, body: { format, rows, ...rest } });
};
/** Reads a file as the clients do and imports it chunk by chunk; the summed counts. */
async function importFile(format: ImportFormat, text: string, options: Options = {}) {
  const file = readImportFile(text);
  expect(file.problems).toEqual([]);
  const totals = { create: 0, match: 0, skip: 0 };
  const outcomes: { line: number; action: string; reason: string }[] = [];
  const chunks = chunkRecords(file.records, options.chunkBytes);
  const inFile = inFileFor(format, chunks, options.devices);
  for (const [i, chunk] of chunks.entries()) {
    // A dry run of a later chunk is told what the earlier ones make, as the clients tell it.
    const res = await post(format, chunk, { ...options, ...(options.dryRun ? { inFile: inFile[i] } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const action of ['create', 'match', 'skip'] as const) totals[action] += res.body.counts[action];
    outcomes.push(...res.body.outcomes);
  }
  return { totals, outcomes, records: file.records.length, chunks: chunks.length };
}
const keyRow = (key: string, db = box.db) => db.select().from(licenseKeys).where(eq(licenseKeys.key, key)).get();
const emailOf = async (id: string | null, db = box.db) =>
  id ? (await db.select({ email: users.email }).from(users).where(eq(users.id, id)).get())?.email : null;

describe("each system's file", () => {
  it("Keygen's licenses (JSON:API, the user's email from included): a dry run writes nothing, then the import, then a repeat changes nothing", async () => {
    const made = await product(box, { maxActivations: 2, minDays: 90 });
    const before = { keys: await tableCount(box.db, licenseKeys), users: await tableCount(box.db, users) };

    const dry = await importFile('keygen', keygenFile, { dryRun: true, product: made.keyTag });
    expect(dry.totals).toEqual({ create: 3, match: 0, skip: 0 });
    expect(await tableCount(box.db, licenseKeys)).toBe(before.keys);
    expect(await tableCount(box.db, users)).toBe(before.users);

    const first = await importFile('keygen', keygenFile, { product: made.keyTag });
    expect(first.totals).toEqual({ create: 3, match: 0, skip: 0 });
    const active = (await keyRow('KG-C1D2-E3F4-0001'))!;
    expect(active).toMatchObject({ status: 'used', maxActivations: 3, productId: made.id, productKeyTag: made.keyTag });
    expect(active.expiresAt!.toISOString()).toBe('2031-01-15T00:00:00.000Z');
    expect(active.importedAt).not.toBeNull();
    expect(await emailOf(active.purchasedBy)).toBe('ada.keygen@example.com');
    expect(active.expiryModel).toBe('time-limited');
    // No expiry in Keygen: a perpetual key, whose first activation starts no clock; no machine limit:
    // the product's device limit.
    expect(await keyRow('KG-C1D2-E3F4-0002')).toMatchObject({
      status: 'available',
      expiresAt: null,
      expiryModel: 'perpetual',
      maxActivations: 2,
      purchasedBy: null,
    });
    const perpetual = await box.api('POST', '/api/v1/licenses/activate', {
      body: { key: 'KG-C1D2-E3F4-0002', deviceFingerprint: 'keygen-perpetual-desk' },
    });
    expect(perpetual.body).toMatchObject({ valid: true, license: { expiresAt: null, expiryModel: 'perpetual' } });
    expect(await keyRow('KG-C1D2-E3F4-0002')).toMatchObject({ status: 'used', expiresAt: null });
    expect(await keyRow('KG-C1D2-E3F4-0003')).toMatchObject({ status: 'revoked', revokeReason: 'Imported as revoked' });
    // The accounts have no password and were told how to sign in.
    const ada = (await box.db.select().from(users).where(eq(users.email, 'ada.keygen@example.com')).get())!;
    expect(ada.passwordHash).toBeNull();
    // The invitation goes by the mail queue, after the answer.
    await expect.poll(async () => (await readOutbox(env.KV, 'ada.keygen@example.com')).at(-1)?.text ?? '').toContain('/forgot-password');

    const repeat = await importFile('keygen', keygenFile, { product: made.keyTag });
    expect(repeat.totals).toEqual({ create: 0, match: 3, skip: 0 });
    expect(await tableCount(box.db, licenseKeys)).toBe(before.keys + 3);
    expect(await tableCount(box.db, users)).toBe(before.users + 2);
  });

  it("Lemon Squeezy's license keys (CSV): status, limit and expiry mapped, one account per customer", async () => {
    const made = await product(box, { maxActivations: 4 });
    const { totals } = await importFile('lemonsqueezy', lemonFile, { product: made.keyTag });
    expect(totals).toEqual({ create: 4, match: 0, skip: 0 });
    expect(await keyRow('80E15DB5-C796-436B-850C-8F9C98A48ABE')).toMatchObject({ status: 'used', maxActivations: 5 });
    // Stored in capitals, as the licensing API reads keys: the customer's app, sending it as Lemon Squeezy wrote it, activates.
    const activated = await box.api('POST', '/api/v1/licenses/activate', {
      body: { key: '80e15db5-c796-436b-850c-8f9c98a48abe', deviceFingerprint: 'lemon-laptop' },
    });
    expect(activated.body.code).toBe('VALID');
    expect(await keyRow('91F26EC6-D807-547C-961C-9A0D09B59BCF')).toMatchObject({ status: 'available', maxActivations: 4 });
    expect(await keyRow('A2037FD7-E918-658D-A72D-AB1E1AC6ACD0')).toMatchObject({ status: 'revoked' });
    const expired = (await keyRow('B3148AE8-FA29-769E-B83E-BC2F2BD7BDE1'))!;
    expect(expired.status).toBe('expired');
    expect(expired.expiresAt!.toISOString()).toBe('2025-08-01T00:00:00.000Z');
    const luke = await box.db.select().from(users).where(eq(users.email, 'luke.lemon@example.com')).all();
    expect(luke).toHaveLength(1);
    const lukes = await box.db.select().from(licenseKeys).where(eq(licenseKeys.purchasedBy, luke[0].id)).all();
    expect(lukes).toHaveLength(2);
  });

  it("Gumroad's licenses (CSV): the request's days and devices, a refund skipped with its reason, an ended subscription expired", async () => {
    const made = await product(box);
    const { totals, outcomes } = await importFile('gumroad', gumroadFile, { product: made.keyTag, days: 365, devices: 2 });
    expect(totals).toEqual({ create: 2, match: 0, skip: 1 });
    expect(outcomes.filter((o) => o.action !== 'create')).toMatchObject([
      { line: 3, type: 'key', action: 'skip', reason: 'refunded in Gumroad' },
    ]);
    expect(await keyRow('85DB562A-C11D4B06-A2335A6B-8C079166')).toMatchObject({ status: 'available', duration: 365, maxActivations: 2 });
    expect(await keyRow('A7FD784C-E33F6D28-C4557C8D-AE29B388')).toMatchObject({ status: 'expired' });
    expect(await keyRow('96EC673B-D22E5C17-B3446B7C-9D18A277')).toBeUndefined();
  });

  it("KeyPanel's own key rows: known devices become activations, an email matched whatever its case, a taken username made unique", async () => {
    const made = await product(box, { maxActivations: 2 });
    // Another account already has the username the email's local part would give.
    await box.db.insert(users).values({ id: newId(), username: 'Kim.KeyPanel', email: 'someone.else@example.com', createdAt: new Date() });
    const file = keypanelFile.replaceAll('KP-IMPORT', `${made.keyTag}-IMPORT`);
    const { totals } = await importFile('keypanel', file, { product: made.keyTag });
    expect(totals).toEqual({ create: 3, match: 0, skip: 0 });
    const used = (await keyRow(`${made.keyTag}-IMPORT-0001`))!;
    const devices = await box.db.select().from(activations).where(eq(activations.keyId, used.id)).all();
    expect(devices.map((d) => d.deviceFingerprint).sort()).toEqual(['desktop-kim', 'laptop-kim']);
    expect(used.expiresAt!.toISOString()).toBe('2031-03-01T00:00:00.000Z');
    const kims = await box.db.select().from(users).where(eq(users.email, 'kim.keypanel@example.com')).all();
    expect(kims).toHaveLength(1);
    expect(kims[0].username).toMatch(/^kim\.keypanel-[a-z0-9]{1,4}$/);
    expect((await keyRow(`${made.keyTag}-IMPORT-0003`))!.purchasedBy).toBe(kims[0].id);
  });
});

describe('what the CLI and the web app add up from the chunks', () => {
  it('sums the counts and new accounts, and keeps the first IMPORT_LISTED outcomes in order', () => {
    const outcome = (line: number) => ({ line, type: 'key' as const, action: 'skip' as const, reason: `line ${line}` });
    const tally = emptyImportTally();
    addToTally(tally, {
      counts: { create: 3, match: 1, skip: 15 },
      accountsCreated: 2,
      outcomes: Array.from({ length: 15 }, (_, i) => outcome(i + 1)),
    });
    addToTally(tally, {
      counts: { create: 0, match: 4, skip: 10 },
      accountsCreated: 1,
      outcomes: Array.from({ length: 10 }, (_, i) => outcome(i + 16)),
    });
    addToTally(tally, { counts: { create: 1, match: 0, skip: 1 }, accountsCreated: 0, outcomes: [outcome(26)] });
    expect(tally.counts).toEqual({ create: 4, match: 5, skip: 26 });
    expect(tally.accounts).toBe(3);
    expect(IMPORT_LISTED).toBe(20);
    expect(tally.outcomes.map((o) => o.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe('refusals', () => {
  it('refuses a malformed file whole, each problem with its line, and writes none of its good rows', async () => {
    const made = await product(box);
    const text = [
      'key,product,email,status,expiresAt',
      `${made.keyTag}-GOOD-0001,${made.keyTag},good@example.com,,`,
      `${made.keyTag}-BAD-0002,${made.keyTag},not-an-email,,`,
      `"${made.keyTag}-GOOD-0003",${made.keyTag},,available,`,
      `${made.keyTag}-BAD-0004,${made.keyTag},,used,next tuesday`,
      `${made.keyTag}-BAD-0005,${made.keyTag},,sold,`,
    ].join('\n');
    const file = readImportFile(text);
    expect(file.problems).toEqual([]);
    const res = await post('keypanel', file.records);
    expect(res.status).toBe(400);
    const refusal = res.body as unknown as { code: string; message: string; details: { problems: { line: number; message: string }[] } };
    expect(refusal.code).toBe('VALIDATION_ERROR');
    expect(refusal.message).toMatch(/^3 records are not valid \(line 3: email: /);
    expect(refusal.details.problems.map((p) => p.line)).toEqual([3, 5, 6]);
    expect(refusal.details.problems[1].message).toBe('expiresAt must be a date (ISO 8601)');
    expect(await keyRow(`${made.keyTag}-GOOD-0001`)).toBeUndefined();
    expect(await box.db.select().from(users).where(eq(users.email, 'good@example.com')).get()).toBeUndefined();
  });

  it('refuses an unknown product and devices over the limit by line; a broken CSV and JSON by the reader', async () => {
    const made = await product(box, { maxActivations: 1 });
    const rows = [
      { line: 2, record: { key: `${made.keyTag}-OK-0001` } },
      { line: 3, record: { key: 'NOPE-0001', product: 'NOSUCH' } },
      { line: 4, record: { key: `${made.keyTag}-DEV-0001`, devices: ['device-aaaa', 'device-bbbb'] } },
    ];
    const res = await post('keypanel', rows, { product: made.keyTag });
    expect(res.status).toBe(400);
    expect((res.body as unknown as { details: { problems: unknown[] } }).details.problems).toEqual([
      { line: 3, message: 'no product with key tag NOSUCH: add it first' },
      { line: 4, message: "2 devices, over the key's device limit of 1" },
    ]);
    expect(await keyRow(`${made.keyTag}-OK-0001`)).toBeUndefined();

    expect(readImportFile('key,email\nA-1,"never closed\n').problems).toEqual([{ line: 2, message: 'a quoted cell is never closed' }]);
    expect(readImportFile('key,email\nA-1,a@example.com,extra\n').problems).toEqual([
      { line: 2, message: '3 cells where the header has 2' },
    ]);
    expect(readImportFile('{"table":"keys","row":{}}\n{broken\n').problems).toEqual([{ line: 2, message: 'not valid JSON' }]);
    // A pretty-printed JSON array: each record's line is where it starts.
    expect(readImportFile('[\n  {"key": "A"},\n  {\n    "key": "B"\n  }\n]').records.map((r) => r.line)).toEqual([2, 3]);
  });

  it('is for the owner only', async () => {
    const customer = await box.signedInUser('user');
    const res = await post('keypanel', [{ line: 2, record: { key: 'ABCD-0001' } }], { token: customer.token });
    expect(res.status).toBe(403);
  });
});

describe('power needs proof', () => {
  /** A users line of KeyPanel's JSON lines export. */
  const userLine = (line: number, row: Record<string, unknown>) => ({
    line,
    record: { table: 'users', row: { isActive: true, createdAt: new Date().toISOString(), ...row } as Record<string, unknown> },
  });
  const resellerRow = (line: number) =>
    userLine(line, {
      id: `keygen-${newId()}`,
      email: `imported-reseller-${newId()}@example.com`,
      username: `impres${line}`,
      role: 'reseller',
      emailVerifiedAt: new Date().toISOString(),
    });
  const emailOfLine = (row: ReturnType<typeof userLine>) => row.record.row.email as string;

  it('makes a reseller or a verified address, without proof, an unverified customer, and says so in the dry run and the import', async () => {
    const dry = await post('keypanel', [resellerRow(2)], { dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.outcomes).toMatchObject([{ line: 2, action: 'create' }]);
    expect(dry.body.outcomes[0].reason).toContain('made a customer');
    const row = resellerRow(3);
    const res = await post('keypanel', [row]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.outcomes).toMatchObject([{ line: 3, action: 'create' }]);
    expect(res.body.outcomes[0].reason).toContain('needs your password');
    const made = (await box.db
      .select()
      .from(users)
      .where(eq(users.email, emailOfLine(row)))
      .get())!;
    expect(made).toMatchObject({ role: 'user', emailVerifiedAt: null, resellerId: null });
  });

  it('refuses the proof from an API token, with the code a proofless token gets elsewhere, and writes nothing', async () => {
    const made = await box.api('POST', '/api/users/api-tokens', {
      token: owner.token,
      body: { name: 'import', role: 'owner', currentPassword: TEST_PASSWORD },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = made.body.token;
    const row = resellerRow(2);
    const res = await post('keypanel', [row], { token, currentPassword: TEST_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect(
      await box.db
        .select()
        .from(users)
        .where(eq(users.email, emailOfLine(row)))
        .get(),
    ).toBeUndefined();
  });

  it("keeps the role with proof; every account it makes has an id the routes accept, is no one's own reseller, and has its own audit row", async () => {
    const resellerAccount = resellerRow(2);
    const customer = userLine(3, {
      id: 'not-a-keypanel-id',
      email: `own-${newId()}@example.com`,
      username: 'selfsold',
      role: 'user',
      resellerId: 'not-a-keypanel-id',
    });
    const sold = userLine(4, {
      id: newId(),
      email: `sold-${newId()}@example.com`,
      username: 'soldto',
      role: 'user',
      resellerId: resellerAccount.record.row.id,
    });
    const res = await post('keypanel', [resellerAccount, customer, sold], { currentPassword: TEST_PASSWORD });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byEmail = async (email: string) => (await box.db.select().from(users).where(eq(users.email, email)).get())!;
    const reseller = await byEmail(emailOfLine(resellerAccount));
    expect(reseller.role).toBe('reseller');
    expect(reseller.emailVerifiedAt).not.toBeNull();
    const self = await byEmail(emailOfLine(customer));
    expect(self.resellerId).toBeNull();
    expect((await byEmail(emailOfLine(sold))).resellerId).toBe(reseller.id);
    for (const account of [reseller, self]) {
      expect(account.id).toMatch(/^[0-9a-f]{24}$/);
      expect((await box.api('GET', `/api/admin/users/${account.id}`, { token: owner.token })).status).toBe(200);
      expect((await box.api('PUT', `/api/admin/users/${account.id}`, { token: owner.token, body: { isActive: false } })).status).toBe(200);
      const audits = await box.db.select().from(auditLog).where(eq(auditLog.targetId, account.id)).all();
      expect(audits.filter((a) => a.action === 'user.import')).toHaveLength(1);
    }
    expect((await box.api('DELETE', `/api/admin/users/${self.id}`, { token: owner.token })).status).toBe(200);
  });
});

describe('concurrency', () => {
  it('makes each key and account once when the same file is imported twice at once', async () => {
    const made = await product(box);
    const records = Array.from({ length: 120 }, (_, i) => ({
      line: i + 2,
      record: { key: `${made.keyTag}-RACE-${String(i).padStart(4, '0')}`, email: `racer${i % 10}@example.com` },
    }));
    const [a, b] = await Promise.all([
      post('keypanel', records, { product: made.keyTag }),
      post('keypanel', records, { product: made.keyTag }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.counts.create + b.body.counts.create).toBe(120);
    expect(a.body.counts.match + b.body.counts.match).toBe(120);
    expect(await tableCount(box.db, licenseKeys)).toBe(120);
    const racers = await box.db.select().from(users).all();
    expect(racers.filter((u) => u.email.startsWith('racer'))).toHaveLength(10);
  });
});

describe('the round trip', () => {
  it('an export imported into an empty shop gives the same keys, balances and ledger; importing it again changes nothing', async () => {
    // The source: a product with entitlements and metered uses, two customers who bought keys with
    // credits (a device, a granted entitlement and uses spent on one), an adjustment.
    const made = await product(box, {
      maxActivations: 3,
      entitlements: ['pro'],
      usageAllowance: 20,
      usageRefillAmount: 10,
      usageRefillDays: 30,
    });
    const customers = [
      await box.signedInUser('user', { credits: 1000 }),
      await box.signedInUser('user', { credits: 400, balanceCents: 2500 }),
    ];
    for (const [i, customer] of customers.entries()) {
      const { licenseKey } = await purchaseKey(box.db, {
        productId: made.id,
        days: 30 + i,
        buyerId: customer.user.id,
        payerId: customer.user.id,
        actorId: customer.user.id,
        generationMethod: 'purchase',
      });
      if (i === 0) {
        await activateLicense(box.d1, DEFAULT_SETTINGS, { key: licenseKey.key, deviceFingerprint: `device-${newId()}` });
        await box.db
          .update(licenseKeys)
          .set({ entitlements: ['beta'], usageRemaining: 7, usagePeriodStart: Date.now() - 5 * DAY_MS })
          .where(eq(licenseKeys.id, licenseKey._id));
      }
    }
    await box.db.batch([
      box.db.insert(ledger).values({
        id: newId(),
        userId: customers[1].user.id,
        actorId: owner.user.id,
        kind: 'admin_adjustment',
        creditsDelta: 25,
        createdAt: new Date(),
      }),
      box.db
        .update(users)
        .set({ credits: sql`${users.credits} + 25` })
        .where(eq(users.id, customers[1].user.id)),
    ]);
    const exported = await box.api('GET', '/api/admin/export', { token: owner.token });
    expect(exported.status).toBe(200);

    const target = await sandbox({ isolatedDb: env.IMPORT_TARGET_DB });
    const targetOwner = await target.signedInUser('owner');
    // In small chunks, the dry run of each later chunk counts what earlier ones bring as created, as the real run does.
    const dry = await importFile('keypanel', exported.body, { token: targetOwner.token, target, dryRun: true, chunkBytes: 1500 });
    expect(dry.chunks).toBeGreaterThan(5);
    expect(await tableCount(target.db, licenseKeys)).toBe(0);
    const first = await importFile('keypanel', exported.body, { token: targetOwner.token, target, chunkBytes: 1500 });
    expect(first.totals.create).toBeGreaterThan(0);
    expect(dry.totals).toEqual(first.totals);

    const snapshot = async (db: Sandbox['db']) => {
      const keys = await db.select().from(licenseKeys).orderBy(licenseKeys.key).all();
      const accounts = await db.select().from(users).all();
      const email = new Map(accounts.map((u) => [u.id, u.email]));
      const customerEmails = new Set(customers.map((c) => c.email));
      return {
        keys: await Promise.all(
          keys.map(async (k) => ({
            key: k.key,
            status: k.status,
            product: k.productKeyTag,
            expiresAt: k.expiresAt?.getTime() ?? null,
            duration: k.duration,
            maxActivations: k.maxActivations,
            buyer: email.get(k.purchasedBy!) ?? null,
            payer: email.get(k.paidBy!) ?? null,
            method: k.generationMethod,
            price: k.purchasePrice,
            entitlements: k.entitlements,
            usage: [k.usageRemaining, k.usagePeriodStart],
            productTerms: await db
              .select({
                entitlements: products.entitlements,
                allowance: products.usageAllowance,
                refillAmount: products.usageRefillAmount,
                refillDays: products.usageRefillDays,
              })
              .from(products)
              .where(eq(products.keyTag, k.productKeyTag))
              .get(),
            devices: (await db.select().from(activations).where(eq(activations.keyId, k.id)).all()).map((a) => a.deviceFingerprint),
          })),
        ),
        balances: accounts
          .filter((u) => customerEmails.has(u.email))
          .map((u) => ({ email: u.email, credits: u.credits, cents: u.balanceCents }))
          .sort((a, b) => a.email.localeCompare(b.email)),
        ledger: (await db.select().from(ledger).orderBy(ledger.id).all())
          .filter((row) => customerEmails.has(email.get(row.userId) ?? ''))
          .map((row) => ({
            ...row,
            userId: email.get(row.userId),
            actorId: row.actorId ? (customerEmails.has(email.get(row.actorId) ?? '') ? email.get(row.actorId) : 'another') : null,
          })),
      };
    };
    const source = await snapshot(box.db);
    expect(source.keys).toHaveLength(2);
    expect(source.keys.flatMap((k) => k.devices)).toHaveLength(1);
    expect(source.keys.map((k) => k.entitlements).flat()).toEqual(['beta']);
    expect(source.keys[0].productTerms).toEqual({ entitlements: ['pro'], allowance: 20, refillAmount: 10, refillDays: 30 });
    expect(source.ledger.length).toBeGreaterThanOrEqual(5);
    const imported = await snapshot(target.db);
    expect(imported.keys).toEqual(source.keys);
    expect(imported.balances).toEqual(source.balances);
    expect(imported.ledger).toEqual(source.ledger);
    // Each balance is the sum of its ledger, as in any shop.
    for (const balance of imported.balances) {
      const rows = imported.ledger.filter((row) => row.userId === balance.email);
      expect(rows.reduce((sum, row) => sum + row.creditsDelta, 0)).toBe(balance.credits);
      expect(rows.reduce((sum, row) => sum + row.usdCentsDelta, 0)).toBe(balance.cents);
    }

    const again = await importFile('keypanel', exported.body, { token: targetOwner.token, target });
    expect(again.totals.create).toBe(0);
    expect(await snapshot(target.db)).toEqual(imported);
  });
});
