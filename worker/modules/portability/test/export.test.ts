// The exports (issue 34): the whole shop as JSON lines, a table as CSV, the ledger and the audit
// log for a date range, a customer's own data; every table read page by page as the reader asks.
// In a sandbox over ISOLATED_DB, emptied before each test, so the counts are exact.
import { env } from 'cloudflare:test';
import { count, eq } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { activations, auditLog, ledger, licenseKeys, payments, products, securityLog, users } from '../../../platform/db/schema';
import { newId } from '../../../platform/ids';
import { createDb } from '../../../platform/db/client';
import { purchaseKey } from '../../keys/purchase';
import { activateLicense } from '../../licensing/licensing';
import { createProduct } from '../../catalog/products';
import { productInputSchema } from '../../catalog/schemas';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { interceptedD1, TEST_PASSWORD } from '../../../test/helpers';
import { uniqueTag } from '../../../test/shop-helpers';
import { sandbox, type Sandbox } from '../../../test/sandbox';
import { EXPORT_PAGE_ROWS, exportShop, SECURITY_LOG_NEEDS_SESSION } from '../export';
import { SHOP_TABLES } from '../schemas';

type Line = { table: string; row: Record<string, unknown> };

let box: Sandbox;
/** Every statement prepared through `countingDb` since the test began. */
let prepared: string[] = [];
const countingDb = createDb(interceptedD1(env.ISOLATED_DB, { prepare: (sql) => prepared.push(sql) }));
beforeEach(async () => {
  box = await sandbox({ isolatedDb: true });
  prepared = [];
});

const SECRETS = ['passwordHash', 'twoFactorSecret', 'twoFactorPendingSecret', 'twoFactorLastStep', 'googleId', 'credentialEpoch'];

async function product() {
  return createProduct(
    box.db,
    productInputSchema.parse({
      name: `Product ${uniqueTag()}`,
      description: 'A product to export',
      keyTag: uniqueTag(),
      baseCreditCost: 10,
      creditsPerDay: 1,
      maxActivations: 3,
    }),
  );
}

/** A customer with a bought key on one device, a payment and a security log line. */
async function customerWithData(productId: string) {
  const customer = await box.signedInUser('user', { credits: 1000 });
  const { licenseKey } = await purchaseKey(box.db, {
    productId,
    days: 1,
    buyerId: customer.user.id,
    payerId: customer.user.id,
    actorId: customer.user.id,
    generationMethod: 'purchase',
  });
  const device = `device-${newId()}`;
  const activated = await activateLicense(box.d1, DEFAULT_SETTINGS, { key: licenseKey.key, deviceFingerprint: device });
  expect(activated.valid).toBe(true);
  await box.db
    .insert(payments)
    .values({ id: newId(), userId: customer.user.id, amountCents: 500, status: 'pending', createdAt: new Date() });
  return { ...customer, key: licenseKey.key, device };
}

const lines = (text: string): Line[] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);

async function download(path: string, token: string) {
  const res = await box.api('GET', path, { token });
  return {
    status: res.status,
    text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body),
    headers: res.headers,
    body: res.body,
  };
}

const tableCount = async (table: SQLiteTable) => (await box.db.select({ n: count() }).from(table).get())!.n;

describe('the whole shop, as JSON lines', () => {
  it('has every row of every table once, users without their secrets, and a first line saying what it holds', async () => {
    const owner = await box.signedInUser('owner');
    const made = await product();
    const alice = await customerWithData(made.id);
    const bob = await customerWithData(made.id);

    const res = await download('/api/admin/export', owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="keypanel-shop-\d{4}-\d{2}-\d{2}\.jsonl"$/);
    const all = lines(res.text);
    expect(all[0]).toMatchObject({ table: 'export', row: { format: 'keypanel', version: 1, tables: [...SHOP_TABLES] } });

    const rowsOf = (table: string) => all.filter((line) => line.table === table).map((line) => line.row);
    const expected = {
      users: await tableCount(users),
      products: await tableCount(products),
      keys: await tableCount(licenseKeys),
      devices: await tableCount(activations),
      ledger: await tableCount(ledger),
      payments: await tableCount(payments),
      audit: await tableCount(auditLog),
    };
    expect(expected.users).toBe(3);
    expect(expected.keys).toBe(2);
    expect(expected.ledger).toBeGreaterThanOrEqual(2);
    for (const table of SHOP_TABLES) expect(rowsOf(table), table).toHaveLength(expected[table]);
    // Tables come in the order the first line names, each whole before the next.
    const order = all.slice(1).map((line) => line.table);
    expect(order).toEqual([...order].sort((a, b) => SHOP_TABLES.indexOf(a as never) - SHOP_TABLES.indexOf(b as never)));

    for (const user of rowsOf('users')) for (const secret of SECRETS) expect(user).not.toHaveProperty(secret);
    // Nor anywhere else in the file: no password hash of any account.
    const hashes = await box.db.select({ hash: users.passwordHash }).from(users).all();
    for (const { hash } of hashes) expect(res.text).not.toContain(hash!);
    expect(
      rowsOf('keys')
        .map((k) => k.key)
        .sort(),
    ).toEqual([alice.key, bob.key].sort());
    expect(
      rowsOf('devices')
        .map((d) => d.deviceFingerprint)
        .sort(),
    ).toEqual([alice.device, bob.device].sort());
    const aliceRow = rowsOf('users').find((u) => u.id === alice.user.id)!;
    const aliceNow = (await box.db.select().from(users).where(eq(users.id, alice.user.id)).get())!;
    expect(aliceNow.credits).toBeLessThan(1000);
    expect(aliceRow).toMatchObject({ email: alice.email, credits: aliceNow.credits, role: 'user' });
    expect(typeof aliceRow.createdAt).toBe('string');
  });

  it('writes a table of several pages whole, each row once', async () => {
    const owner = await box.signedInUser('owner');
    const made = await product();
    const total = EXPORT_PAGE_ROWS * 2 + 7;
    const now = Date.now();
    const rows = Array.from({ length: total }, (_, i) => ({
      id: newId(now + i),
      key: `${made.keyTag}-${String(i).padStart(5, '0')}-PAGE`,
      status: 'available' as const,
      productId: made.id,
      productName: made.name,
      productKeyTag: made.keyTag,
      productType: made.productType,
      duration: 30,
      maxActivations: 1,
      createdAt: new Date(now),
    }));
    // Drizzle binds every column (about 25): 3 rows a statement stays under D1's 100 bound values.
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const statements = [];
      for (let j = 0; j < chunk.length; j += 3) statements.push(box.db.insert(licenseKeys).values(chunk.slice(j, j + 3)));
      await box.db.batch(statements as [never, ...never[]]);
    }

    const res = await box.api('GET', '/api/admin/export?format=csv&table=keys', { token: owner.token });
    expect(res.status).toBe(200);
    const text = res.body as string;
    const records = text.trimEnd().split('\r\n');
    expect(records[0].split(',')).toContain('key');
    const keyColumn = records[0].split(',').indexOf('key');
    const exported = records.slice(1).map((record) => record.split(',')[keyColumn]);
    expect(exported).toHaveLength(total);
    expect(new Set(exported).size).toBe(total);
    expect(exported.sort()).toEqual(rows.map((r) => r.key).sort());
  });

  it('holds one page at a time: the next is read only when the reader asks for it', async () => {
    const made = await product();
    const now = Date.now();
    const rows = Array.from({ length: EXPORT_PAGE_ROWS + 1 }, (_, i) => ({
      id: newId(now + i),
      key: `${made.keyTag}-${String(i).padStart(5, '0')}-LAZY`,
      status: 'available' as const,
      productId: made.id,
      productName: made.name,
      productKeyTag: made.keyTag,
      productType: made.productType,
      duration: 30,
      maxActivations: 1,
      createdAt: new Date(now),
    }));
    const statements = [];
    for (let j = 0; j < rows.length; j += 3) statements.push(box.db.insert(licenseKeys).values(rows.slice(j, j + 3)));
    await box.db.batch(statements as [never, ...never[]]);

    prepared = [];
    const stream = await exportShop(countingDb, { format: 'jsonl', table: 'keys' });
    const pagesRead = () => prepared.filter((sql) => /from "license_keys"/i.test(sql)).length;
    expect(pagesRead()).toBe(1);
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(pagesRead()).toBe(1);
    let text = decoder.decode(first.value);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    expect(pagesRead()).toBe(2);
    // The first line says what the file holds; then every key.
    expect(text.trimEnd().split('\n')).toHaveLength(EXPORT_PAGE_ROWS + 2);
  });
});

describe('one table, and a date range', () => {
  it('writes a CSV table with its header row, and refuses a CSV of several tables or a range on a table without one', async () => {
    const owner = await box.signedInUser('owner');
    await product();
    const csv = await download('/api/admin/export?format=csv&table=products', owner.token);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const [header, ...records] = csv.text.trimEnd().split('\r\n');
    expect(header.split(',')).toEqual(expect.arrayContaining(['id', 'name', 'keyTag', 'maxActivations', 'features', 'createdAt']));
    expect(records).toHaveLength(1);

    const refusals = [
      ['/api/admin/export?format=csv', 'A CSV export holds one table'],
      ['/api/admin/export?table=keys&from=2026-01-01', 'from and to cut only'],
      ['/api/admin/export?table=ledger&from=2026-02-01&to=2026-01-01', 'from must be before to'],
      ['/api/admin/export?table=ledger&from=yesterday', 'from must be a date'],
      ['/api/admin/export?table=secrets', 'table must be one of'],
      ['/api/admin/export?format=xml', 'format must be jsonl or csv'],
    ] as const;
    for (const [path, message] of refusals) {
      const res = await box.api('GET', path, { token: owner.token });
      expect(res.status, path).toBe(400);
      expect((res.body as { message: string }).message, path).toContain(message);
    }
  });

  it('cuts the ledger and the audit log to [from, to), by when each row was written', async () => {
    const owner = await box.signedInUser('owner');
    const at = (day: string) => new Date(`${day}T12:00:00.000Z`);
    const days = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'];
    for (const day of days) {
      await box.db
        .insert(ledger)
        .values({ id: newId(), userId: owner.user.id, kind: 'note', creditsDelta: 0, note: day, createdAt: at(day) });
      await box.db
        .insert(auditLog)
        .values({ id: newId(), actorId: owner.user.id, action: 'settings.update', details: { day }, createdAt: at(day) });
    }
    const ledgerRange = lines((await download('/api/admin/export?table=ledger&from=2026-03-02&to=2026-03-04', owner.token)).text);
    expect(ledgerRange.slice(1).map((line) => line.row.note)).toEqual(['2026-03-02', '2026-03-03']);
    const auditFrom = lines((await download('/api/admin/export?table=audit&from=2026-03-03', owner.token)).text).slice(1);
    expect(
      auditFrom.filter((line) => line.row.action === 'settings.update').map((line) => (line.row.details as { day: string }).day),
    ).toEqual(['2026-03-03', '2026-03-04']);
    const csv = await download('/api/admin/export?format=csv&table=ledger&to=2026-03-02', owner.token);
    expect(csv.text.trimEnd().split('\r\n')).toHaveLength(2);
    expect(csv.headers.get('content-disposition')).toMatch(/filename="keypanel-ledger-/);
  });
});

describe("a customer's own data", () => {
  it("holds their account, keys, devices, payments and security log, and nobody else's", async () => {
    const made = await product();
    const alice = await customerWithData(made.id);
    const bob = await customerWithData(made.id);
    await box.db.insert(securityLog).values({ id: newId(), userId: bob.user.id, event: 'login', createdAt: new Date() });

    const res = await download('/api/users/my-data', alice.token);
    expect(res.status).toBe(200);
    const all = lines(res.text);
    expect(all[0].row.tables).toEqual(['account', 'keys', 'devices', 'payments', 'security']);
    const rowsOf = (table: string) => all.filter((line) => line.table === table).map((line) => line.row);
    expect(rowsOf('account')).toEqual([expect.objectContaining({ id: alice.user.id, email: alice.email })]);
    for (const secret of SECRETS) expect(rowsOf('account')[0]).not.toHaveProperty(secret);
    expect(rowsOf('keys').map((k) => k.key)).toEqual([alice.key]);
    expect(rowsOf('devices').map((d) => d.deviceFingerprint)).toEqual([alice.device]);
    expect(rowsOf('payments').map((p) => p.userId)).toEqual([alice.user.id]);
    const mySecurity = await box.db.select().from(securityLog).where(eq(securityLog.userId, alice.user.id)).all();
    expect(
      rowsOf('security')
        .map((s) => s.id)
        .sort(),
    ).toEqual(mySecurity.map((s) => s.id).sort());
    expect(res.text).not.toContain(bob.user.id);
    expect(res.text).not.toContain(bob.key);

    const keysCsv = await download('/api/users/my-data?format=csv&table=keys', alice.token);
    expect(keysCsv.text.trimEnd().split('\r\n')).toHaveLength(2);
    expect(keysCsv.text).toContain(alice.key);
  });

  it('gives an API token no more of the security log than the security-log page does (none)', async () => {
    const owner = await box.signedInUser('owner');
    await box.db.insert(securityLog).values({ id: newId(), userId: owner.user.id, event: 'login', createdAt: new Date() });
    const tokens = [];
    for (const readOnly of [false, true]) {
      const made = await box.api('POST', '/api/users/api-tokens', {
        token: owner.token,
        body: { name: `my-data ${String(readOnly)}`, role: 'owner', readOnly, currentPassword: TEST_PASSWORD },
      });
      expect(made.status).toBe(201);
      tokens.push(made.body.token);
    }
    for (const token of tokens) {
      // The page itself takes a session only.
      expect((await box.api('GET', '/api/users/security-log', { token })).status).toBe(403);
      for (const format of ['jsonl', 'csv']) {
        const refused = await box.api('GET', `/api/users/my-data?format=${format}&table=security`, { token });
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ code: 'FORBIDDEN', message: SECURITY_LOG_NEEDS_SESSION });
      }
      const whole = await download('/api/users/my-data', token);
      expect(whole.status).toBe(200);
      const all = lines(whole.text);
      expect(all[0].row.tables).toEqual(['account', 'keys', 'devices', 'payments']);
      expect(all.filter((line) => line.table === 'security')).toEqual([]);
    }
    // The session reads it, both ways.
    const mine = await download('/api/users/my-data?table=security', owner.token);
    const logged = await box.db.select().from(securityLog).where(eq(securityLog.userId, owner.user.id)).all();
    expect(lines(mine.text).filter((line) => line.table === 'security')).toHaveLength(logged.length);
    expect((await box.api('GET', '/api/users/security-log', { token: owner.token })).status).toBe(200);
  });

  it('is refused the shop export, as a reseller is; a guest gets neither', async () => {
    const made = await product();
    const alice = await customerWithData(made.id);
    const reseller = await box.signedInUser('reseller');
    expect((await box.api('GET', '/api/admin/export', { token: alice.token })).status).toBe(403);
    expect((await box.api('GET', '/api/admin/export?table=ledger', { token: reseller.token })).status).toBe(403);
    expect((await box.api('GET', '/api/admin/export?table=audit', { token: reseller.token })).status).toBe(403);
    expect((await box.api('GET', '/api/admin/export')).status).toBe(401);
    expect((await box.api('GET', '/api/users/my-data')).status).toBe(401);
  });
});
