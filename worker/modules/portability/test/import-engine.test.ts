// The import engine (issue 45): nothing an import writes can hurt the shop. Each bound, fed a value
// just past it, is a 400 naming the line (never a 500, never a stored value the panel cannot show);
// device rows become activations within their key's device limit (in the plan, and in the insert
// under concurrent imports) and validate with no re-activation; a value a regeneration retired stays
// retired; the dry run's outcomes are the import's, line by line; the audit row says what moved;
// and the client's side: what a dry run of a later chunk is told, the report, and a 100,000-key file
// chunked, sent, cut off and resumed with every record once.
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { activations, auditLog, licenseKeys, users } from '../../../platform/db/schema';
import { newId } from '../../../platform/ids';
import { MAX_BALANCE_USD, MAX_CREDITS } from '../../accounts/schemas/admin-users';
import { MAX_PRODUCT_ACTIVATIONS } from '../../catalog/schemas';
import { createProduct } from '../../catalog/products';
import { productInputSchema } from '../../catalog/schemas';
import { uniqueTag } from '../../../test/shop-helpers';
import { sandbox, type Sandbox } from '../../../test/sandbox';
import {
  IMPORT_LATEST,
  chunkRecords,
  inFileFor,
  readImportFile,
  reportHeader,
  reportRows,
  sendChunks,
  startPosition,
  type ImportFormat,
  type ImportRecord,
  type ImportResult,
} from '../schemas';

let box: Sandbox;
let owner: Awaited<ReturnType<Sandbox['signedInUser']>>;
beforeAll(async () => {
  box = await sandbox();
  owner = await box.signedInUser('owner');
});

async function product(fields: { maxActivations?: number } = {}) {
  return createProduct(
    box.db,
    productInputSchema.parse({
      name: `Product ${uniqueTag()}`,
      description: 'A product to import into',
      keyTag: uniqueTag(),
      baseCreditCost: 10,
      creditsPerDay: 1,
      minDays: 30,
      maxDays: 365,
      maxActivations: fields.maxActivations ?? 1,
    }),
  );
}

type Refusal = { code: string; message: string; details: { problems: { line: number; message: string }[] } };
const post = (format: ImportFormat, rows: ImportRecord[], extra: Record<string, unknown> = {}) =>
  box.api('POST', '/api/admin/import', { token: owner.token, body: { format, rows, ...extra } });
/** A line of KeyPanel's JSON lines export. */
const line = (n: number, table: string, row: Record<string, unknown>): ImportRecord => ({ line: n, record: { table, row } });
const userRow = (fields: Record<string, unknown> = {}) => ({
  id: newId(),
  email: `imp-${newId()}@example.com`,
  username: `imp${uniqueTag().toLowerCase()}`,
  role: 'user',
  isActive: true,
  createdAt: '2024-01-01T00:00:00Z',
  ...fields,
});
const productRow = (fields: Record<string, unknown> = {}) => ({
  id: newId(),
  name: 'Imported product',
  productType: 'software',
  keyTag: uniqueTag(),
  baseCreditCost: 5,
  creditsPerDay: 1,
  minDays: 1,
  maxDays: 365,
  maxActivations: 1,
  isActive: true,
  createdAt: '2024-01-01T00:00:00Z',
  ...fields,
});
const keyRow = (tag: string, fields: Record<string, unknown> = {}) => ({
  id: newId(),
  key: `${tag}-${newId().slice(-12).toUpperCase()}`,
  status: 'available',
  productName: 'Imported product',
  productKeyTag: tag,
  productType: 'software',
  duration: 30,
  maxActivations: 1,
  createdAt: '2024-01-01T00:00:00Z',
  ...fields,
});
const deviceRow = (key: string, fingerprint: string, fields: Record<string, unknown> = {}) => ({
  id: newId(),
  keyId: newId(),
  key,
  deviceFingerprint: fingerprint,
  activatedAt: '2024-02-01T00:00:00Z',
  ...fields,
});
const ledgerRow = (email: string, fields: Record<string, unknown> = {}) => ({
  id: newId(),
  userId: newId(),
  email,
  kind: 'admin_adjustment',
  creditsDelta: 0,
  usdCentsDelta: 0,
  createdAt: '2024-01-01T00:00:00Z',
  ...fields,
});
const stored = (key: string) => box.db.select().from(licenseKeys).where(eq(licenseKeys.key, key)).get();
const devicesOn = async (key: string) => {
  const k = await stored(key);
  return k ? box.db.select().from(activations).where(eq(activations.keyId, k.id)).all() : [];
};

describe('each bound, fed a value just past it', () => {
  it('is a 400 naming the line, with nothing of the chunk stored; the Users tab and the stats still answer', async () => {
    const made = await product();
    const rich = await box.signedInUser('user', { credits: 10, balanceCents: 100 });
    // A one-device key with its device.
    const full = keyRow(made.keyTag);
    const seeded = await post('keypanel', [line(2, 'keys', full), line(3, 'devices', deviceRow(full.key, 'first-device-0001'))]);
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);

    const cases: { name: string; bad: ImportRecord; message: string | RegExp }[] = [
      {
        name: 'createdAt 1e300',
        bad: line(3, 'users', userRow({ createdAt: 1e300 })),
        message: /createdAt must be a date from 1970 to 9999/,
      },
      {
        name: 'createdAt after 9999',
        bad: line(3, 'users', userRow({ createdAt: IMPORT_LATEST + 1 })),
        message: /createdAt must be a date/,
      },
      { name: 'createdAt before 1970', bad: line(3, 'users', userRow({ createdAt: -1 })), message: /createdAt must be a date/ },
      {
        name: 'expiresAt past 9999',
        bad: line(3, 'keys', keyRow(made.keyTag, { expiresAt: IMPORT_LATEST + 1 })),
        message: /expiresAt must be a date/,
      },
      {
        name: 'creditsDelta past the bound',
        bad: line(3, 'ledger', ledgerRow(rich.email, { creditsDelta: MAX_CREDITS + 1 })),
        message: `creditsDelta must be at most ${MAX_CREDITS}`,
      },
      {
        name: 'creditsDelta past the safe integers',
        bad: line(3, 'ledger', ledgerRow(rich.email, { creditsDelta: Number.MAX_SAFE_INTEGER + 2 })),
        message: /creditsDelta must be/,
      },
      {
        name: 'usdCentsDelta past the bound',
        bad: line(3, 'ledger', ledgerRow(rich.email, { usdCentsDelta: -(MAX_BALANCE_USD * 100 + 1) })),
        message: `usdCentsDelta must be at least ${-MAX_BALANCE_USD * 100}`,
      },
      {
        name: 'a ledger row that would leave a balance below zero',
        bad: line(3, 'ledger', ledgerRow(rich.email, { creditsDelta: -11 })),
        message: `the ledger rows up to here leave ${rich.email} with -1 credits: a balance cannot go below zero`,
      },
      {
        name: 'a ledger row that would leave the USD balance below zero',
        bad: line(3, 'ledger', ledgerRow(rich.email, { usdCentsDelta: -101 })),
        message: /with -1 USD cents: a balance cannot go below zero/,
      },
      {
        name: 'minDays above maxDays',
        bad: line(3, 'products', productRow({ minDays: 31, maxDays: 30 })),
        message: 'minDays must be at most maxDays',
      },
      {
        name: 'maxActivations past the product bound',
        bad: line(3, 'products', productRow({ maxActivations: MAX_PRODUCT_ACTIVATIONS + 1 })),
        message: `maxActivations must be at most ${MAX_PRODUCT_ACTIVATIONS}`,
      },
      {
        name: 'a second device on a one-device key',
        bad: line(3, 'devices', deviceRow(full.key, 'second-device-0002')),
        message: `device second-device-0002 would be over key ${full.key}'s device limit of 1 (it has 1)`,
      },
      {
        name: 'a fingerprint the licensing API would refuse',
        bad: line(3, 'devices', deviceRow(full.key, 'short')),
        message: /deviceFingerprint must be at least 8 characters/,
      },
    ];
    for (const { name, bad, message } of cases) {
      const good = userRow();
      const res = await post('keypanel', [line(2, 'users', good), bad]);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(400);
      const refusal = res.body as unknown as Refusal;
      expect(refusal.code, name).toBe('VALIDATION_ERROR');
      expect(refusal.details.problems, name).toHaveLength(1);
      expect(refusal.details.problems[0].line, name).toBe(3);
      if (typeof message === 'string') expect(refusal.details.problems[0].message, name).toContain(message);
      else expect(refusal.details.problems[0].message, name).toMatch(message);
      // The good line of the chunk is not written either.
      expect(await box.db.select().from(users).where(eq(users.email, good.email)).get(), name).toBeUndefined();
    }
    expect(await devicesOn(full.key)).toHaveLength(1);
    expect((await box.db.select().from(users).where(eq(users.id, rich.user.id)).get())!).toMatchObject({ credits: 10, balanceCents: 100 });

    // The bound itself goes in, and the panel shows it.
    const latest = userRow({ createdAt: IMPORT_LATEST });
    expect((await post('keypanel', [line(2, 'users', latest)])).status).toBe(200);
    expect((await box.api('GET', '/api/admin/users', { token: owner.token })).status).toBe(200);
    expect((await box.api('GET', `/api/admin/users?search=${encodeURIComponent(latest.email)}`, { token: owner.token })).status).toBe(200);
    expect((await box.api('GET', '/api/admin/stats', { token: owner.token })).status).toBe(200);
  });
});

describe('devices', () => {
  it("become activations within the key's limit; the device validates with no re-activation; one more is refused by line", async () => {
    const made = await product({ maxActivations: 2 });
    const key = keyRow(made.keyTag, { maxActivations: 2, status: 'used', expiresAt: '2031-01-01T00:00:00Z' });
    const rows = [
      line(2, 'keys', key),
      line(3, 'devices', deviceRow(key.key, 'laptop-of-the-customer', { deviceInfo: { device: 'Laptop', model: 'X1' } })),
      line(4, 'devices', deviceRow(key.key, 'desktop-of-the-customer')),
    ];
    const dry = await post('keypanel', rows, { dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.story).toEqual({ devices: 2, perpetual: 0, accounts: 0 });
    const res = await post('keypanel', rows);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.outcomes).toEqual(dry.body.outcomes);
    expect(res.body.outcomes.filter((o) => o.type === 'device')).toEqual([
      { line: 3, type: 'device', action: 'create', reason: '', subject: 'laptop-of-the-customer', onKey: key.key },
      { line: 4, type: 'device', action: 'create', reason: '', subject: 'desktop-of-the-customer', onKey: key.key },
    ]);
    expect(await devicesOn(key.key)).toHaveLength(2);

    // The customer's software, on its known device, validates at once.
    const validated = await box.api('POST', '/api/v1/licenses/validate', {
      body: { key: key.key.toLowerCase(), deviceFingerprint: 'laptop-of-the-customer' },
    });
    expect(validated.body).toMatchObject({ valid: true, code: 'VALID', license: { activationCount: 2, maxActivations: 2 } });

    // A third device, in a later file: refused by its line, nothing stored.
    const third = await post('keypanel', [line(7, 'devices', deviceRow(key.key, 'tablet-of-the-customer'))]);
    expect(third.status).toBe(400);
    expect((third.body as unknown as Refusal).details.problems).toEqual([
      {
        line: 7,
        message: `device tablet-of-the-customer would be over key ${key.key}'s device limit of 2 (it has 2): raise the key's limit in the file, or leave the device out`,
      },
    ]);
    expect(await devicesOn(key.key)).toHaveLength(2);
    // The same devices again: matched, nothing twice.
    const again = await post('keypanel', rows);
    expect(again.body.counts).toEqual({ create: 0, match: 3, skip: 0 });
  });

  it("a dry run of a later chunk is told the earlier chunks' keys and devices, and refuses the one over the limit as the import would", async () => {
    const made = await product();
    const key = keyRow(made.keyTag);
    const chunks = [
      [line(2, 'keys', key), line(3, 'devices', deviceRow(key.key, 'first-machine-0001'))],
      [line(4, 'devices', deviceRow(key.key, 'second-machine-0002'))],
    ];
    const told = inFileFor('keypanel', chunks);
    expect(told[1].slots).toEqual([{ key: key.key, max: 1, taken: 1 }]);
    const first = await post('keypanel', chunks[0], { dryRun: true, inFile: told[0] });
    expect(first.status).toBe(200);
    const second = await post('keypanel', chunks[1], { dryRun: true, inFile: told[1] });
    expect(second.status).toBe(400);
    expect((second.body as unknown as Refusal).details.problems.map((p) => p.line)).toEqual([4]);
    // The import does the same: the first chunk goes in, the second is refused by the same line.
    expect((await post('keypanel', chunks[0])).status).toBe(200);
    const real = await post('keypanel', chunks[1]);
    expect(real.status).toBe(400);
    expect((real.body as unknown as Refusal).details.problems).toEqual((second.body as unknown as Refusal).details.problems);
  });

  it('never puts more devices on a key than its limit when imports race', async () => {
    const made = await product({ maxActivations: 2 });
    const key = keyRow(made.keyTag, { maxActivations: 2 });
    expect((await post('keypanel', [line(2, 'keys', key)])).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post('keypanel', [
          line(3, 'devices', deviceRow(key.key, `racer-${i}-device-a`)),
          line(4, 'devices', deviceRow(key.key, `racer-${i}-device-b`)),
        ]),
      ),
    );
    for (const a of answers) expect([200, 400], JSON.stringify(a.body)).toContain(a.status);
    const created = answers.filter((a) => a.status === 200).flatMap((a) => a.body.outcomes.filter((o) => o.action === 'create'));
    const devices = await devicesOn(key.key);
    expect(devices).toHaveLength(2);
    expect(created.map((o) => o.subject).sort()).toEqual(devices.map((d) => d.deviceFingerprint).sort());
    // A device the race left out is said so on its line, never a silent drop.
    for (const a of answers.filter((x) => x.status === 200))
      for (const o of a.body.outcomes.filter((x) => x.action !== 'create'))
        expect(o.reason).toBe('its key took other devices meanwhile: no slot is left under its device limit');
  });
});

describe('a value a regeneration retired', () => {
  it('stays retired: the import skips it, says why, and the licensing API still answers KEY_REGENERATED', async () => {
    const made = await product();
    const key = keyRow(made.keyTag);
    expect((await post('keypanel', [line(2, 'keys', key)])).status).toBe(200);
    const id = (await stored(key.key))!.id;
    const regenerated = await box.api('POST', `/api/admin/keys/${id}/regenerate`, { token: owner.token, body: { reason: 'Leaked' } });
    expect(regenerated.status, JSON.stringify(regenerated.body)).toBe(200);
    expect(await stored(key.key)).toBeUndefined();

    // The stale file, imported again.
    const stale = [line(2, 'keys', { ...key, id: newId() })];
    const dry = await post('keypanel', stale, { dryRun: true });
    const real = await post('keypanel', stale);
    for (const res of [dry, real]) {
      expect(res.status).toBe(200);
      expect(res.body.outcomes).toEqual([
        {
          line: 2,
          type: 'key',
          action: 'skip',
          reason: 'a regeneration retired this value (the key lives on under its new value)',
          subject: key.key,
        },
      ]);
    }
    expect(await stored(key.key)).toBeUndefined();
    const activated = await box.api('POST', '/api/v1/licenses/activate', {
      body: { key: key.key, deviceFingerprint: 'stale-device-0001' },
    });
    expect(activated.body.code).toBe('KEY_REGENERATED');
  });
});

describe('the dry run and the import', () => {
  it('agree on every line: a users row reusing an id with a new email is a match in both, and the audit row says what moved', async () => {
    const made = await product({ maxActivations: 2 });
    const existing = await box.signedInUser('user', { credits: 50 });
    const existingKey = keyRow(made.keyTag);
    expect((await post('keypanel', [line(2, 'keys', existingKey)])).status).toBe(200);
    const newProduct = productRow({ maxActivations: 3 });
    const reseller = userRow({ role: 'reseller' });
    const customer = userRow();
    const fresh = keyRow(newProduct.keyTag, { purchasedByEmail: customer.email, maxActivations: 3 });
    const buyer = `buyer-${newId()}@example.com`;
    const perpetual = keyRow(made.keyTag, { expiryModel: 'perpetual', purchasedByEmail: buyer });
    const rows = [
      line(1, 'export', { version: 1 }),
      line(2, 'users', userRow({ id: existing.user.id, email: `renamed-${newId()}@example.com` })),
      line(3, 'users', reseller),
      line(4, 'users', customer),
      line(5, 'products', newProduct),
      line(6, 'products', productRow({ keyTag: made.keyTag })),
      line(7, 'keys', existingKey),
      line(8, 'keys', fresh),
      line(9, 'keys', perpetual),
      line(10, 'devices', deviceRow(fresh.key, 'fresh-device-00001')),
      line(11, 'ledger', ledgerRow(customer.email, { userId: customer.id, creditsDelta: 40, usdCentsDelta: 250 })),
      line(12, 'ledger', ledgerRow(existing.email, { userId: existing.user.id, creditsDelta: -20 })),
    ];
    const dry = await post('keypanel', rows, { dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    const real = await post('keypanel', rows);
    expect(real.status, JSON.stringify(real.body)).toBe(200);
    expect(real.body.outcomes).toEqual(dry.body.outcomes);
    expect(real.body.counts).toEqual(dry.body.counts);
    expect(real.body.story).toEqual(dry.body.story);
    expect(real.body.outcomes.find((o) => o.line === 2)).toMatchObject({
      action: 'match',
      reason: `an account with this id exists, as ${existing.email}`,
    });
    expect(real.body.outcomes.find((o) => o.line === 9)).toMatchObject({
      action: 'create',
      perpetual: true,
      newAccount: buyer,
    });
    expect(real.body.story).toEqual({ devices: 1, perpetual: 1, accounts: 3 });
    expect(real.body.accountsCreated).toBe(3);
    // The renamed account made nothing: the account with that id took the ledger row.
    expect(
      await box.db
        .select()
        .from(users)
        .where(eq(users.email, (rows[1].record.row as { email: string }).email))
        .get(),
    ).toBeUndefined();
    expect((await box.db.select().from(users).where(eq(users.id, existing.user.id)).get())!.credits).toBe(30);

    const audits = await box.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'keys.import'), eq(auditLog.actorId, owner.user.id)))
      .all();
    const audit = audits.find((a) => JSON.stringify((a.details as { lines?: number[] } | null)?.lines) === '[1,12]');
    expect(audit?.details).toMatchObject({
      format: 'keypanel',
      records: 12,
      lines: [1, 12],
      devices: 1,
      keysByProduct: { [newProduct.keyTag]: 1, [made.keyTag]: 1 },
    });
    const details = audit!.details as {
      accounts: { email: string; role: string }[];
      balances: { email: string; credits: number; usdCents: number }[];
    };
    expect(details.accounts.sort((a, b) => a.email.localeCompare(b.email))).toEqual(
      [
        { email: reseller.email, role: 'user' },
        { email: customer.email, role: 'user' },
        { email: buyer, role: 'user' },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    );
    expect(details.balances.sort((a, b) => a.email.localeCompare(b.email))).toEqual(
      [
        { email: customer.email, credits: 40, usdCents: 250 },
        { email: existing.email, credits: -20, usdCents: 0 },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    );
    // Again: everything matched, nothing moved, no audit row.
    const again = await post('keypanel', rows);
    expect(again.body.counts.create).toBe(0);
    expect(
      (
        await box.db
          .select()
          .from(auditLog)
          .where(and(eq(auditLog.action, 'keys.import'), eq(auditLog.actorId, owner.user.id)))
          .all()
      ).length,
    ).toBe(audits.length);
  });
});

describe("the clients' side", () => {
  it('writes a report of every outcome as CSV, its cells safe in a spreadsheet', () => {
    const csv =
      reportHeader() +
      reportRows([
        { line: 2, type: 'key', action: 'create', reason: '', subject: 'APP-1', devices: 2, perpetual: true, newAccount: 'a@example.com' },
        {
          line: 3,
          type: 'device',
          action: 'skip',
          reason: 'its key is neither in this shop nor in the file',
          subject: '=cmd|x',
          onKey: 'APP-2',
        },
      ]);
    expect(csv).toBe(
      'line,type,subject,action,reason,devices,onKey,perpetual,newAccount\r\n' +
        '2,key,APP-1,create,,2,,true,a@example.com\r\n' +
        "3,device,'=cmd|x,skip,its key is neither in this shop nor in the file,,APP-2,,\r\n",
    );
  });

  it('takes a 100,000-key file with its machines in chunks, and a run cut off mid-way resumes with every record once', async () => {
    const keys = 100_000;
    const lines = ['key,product,email,expiresAt,maxActivations,devices'];
    for (let i = 0; i < keys; i++)
      lines.push(`BIG-${String(i).padStart(6, '0')},BIG,c${i % 5000}@example.com,2031-01-01T00:00:00Z,2,machine-${i}-a;machine-${i}-b`);
    const started = Date.now();
    const file = readImportFile(lines.join('\n'));
    expect(file.problems).toEqual([]);
    const chunks = chunkRecords(file.records);
    expect(chunks.length).toBeGreaterThan(200);
    expect(chunks.flat().map((r) => r.line)).toEqual(file.records.map((r) => r.line));
    const told = inFileFor('keypanel', chunks);
    expect(told).toHaveLength(chunks.length);

    // A stand-in for the server: it keeps each key and device by its natural key, as the import's inserts do.
    const stored = new Map<string, number>();
    const devices = new Set<string>();
    let cutAt = 137;
    const send = (rows: ImportRecord[], index: number): Promise<ImportResult> => {
      const outcomes = rows.map(({ line, record }) => {
        const key = String(record.key);
        const created = !stored.has(key);
        stored.set(key, (stored.get(key) ?? 0) + (created ? 1 : 0));
        for (const f of String(record.devices).split(';')) devices.add(`${key}\n${f}`);
        return {
          line,
          type: 'key' as const,
          action: created ? ('create' as const) : ('match' as const),
          reason: created ? '' : 'this key exists',
          subject: key,
          devices: 2,
        };
      });
      // Cut off after the server wrote the chunk, before its answer reached the client.
      if (index === cutAt) return Promise.reject(new Error('connection reset'));
      const create = outcomes.filter((o) => o.action === 'create').length;
      return Promise.resolve({
        dryRun: false,
        counts: { create, match: rows.length - create, skip: 0 },
        byType: {},
        accountsCreated: 0,
        signInMail: 'off',
        story: { devices: create * 2, perpetual: 0, accounts: 0 },
        outcomes,
      });
    };
    let kept = startPosition('file', chunks.length);
    let report = reportHeader();
    const keep = (position: typeof kept, answer: ImportResult) => {
      kept = position;
      report += reportRows(answer.outcomes);
    };
    await expect(sendChunks(chunks, kept, send, keep)).rejects.toThrow('connection reset');
    expect(kept.done).toBe(cutAt);
    cutAt = -1;
    const finished = await sendChunks(chunks, kept, send, keep);
    expect(finished.done).toBe(chunks.length);
    // Every key once, every machine once; the chunk cut off counts as matched when sent again.
    expect(stored.size).toBe(keys);
    expect([...stored.values()].every((n) => n === 1)).toBe(true);
    expect(devices.size).toBe(keys * 2);
    expect(finished.counts.create + finished.counts.match).toBe(keys);
    expect(finished.counts.match).toBe(chunks[137].length);
    expect(report.split('\r\n').length - 2).toBe(keys);
    // Well within CI's budget (measured: a few seconds here).
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);
});
