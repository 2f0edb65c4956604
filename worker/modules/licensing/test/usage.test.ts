// Entitlements and metered usage (issue 31): a key's entitlements ride in every signed answer and
// offline token, and follow its product's changes; a debit is exact under concurrency, once per
// Idempotency-Key, refused at zero without a change, refilled lazily, and topped up by the owner.
import { env } from 'cloudflare:test';
import { and, eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { importPublicKey, verifySignature } from '../../../../sdk/src/index';
import { licenseKeys, usageEvents, webhookEndpoints, webhookEvents } from '../../../platform/db/schema';
import { newId } from '../../../platform/ids';
import { DAY_MS } from '../../../platform/vocabulary';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import type { ProductInput } from '../../catalog/schemas';
import { api, db, signedInUser } from '../../../test/helpers';
import { makeProduct, usedKey } from '../../../test/shop-helpers';
import { activateLicense } from '../licensing';
import { consumeUsage } from '../usage';

const settings = { ...DEFAULT_SETTINGS, keyExpiryGracePeriod: 0 };
let counter = 0;
const device = (name = 'usage-device') => `${name}-${counter++}-${Date.now()}`;

type Usage = { allowance: number; remaining: number; refillAmount: number | null; refillDays: number | null; nextRefillAt: string | null };
type Answer = {
  valid: boolean;
  code: string;
  detail: string;
  license: { key: string; entitlements: string[]; usage: Usage | null; token: string | null } | null;
};

let publicKey: Awaited<ReturnType<typeof importPublicKey>> | null = null;
async function serverKey() {
  publicKey ??= await importPublicKey(((await api('GET', '/api/v1/licenses/public-key')).body as { pem: string }).pem);
  return publicKey;
}

/** A licensing call through the Worker; its answer must be signed by the server's key over its exact bytes. */
async function call(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await api('POST', `/api/v1/licenses/${path}`, { body, headers });
  const bytes = new TextEncoder().encode(JSON.stringify(res.body));
  expect(await verifySignature(await serverKey(), bytes as Uint8Array<ArrayBuffer>, res.headers.get('x-signature'))).toBe(true);
  return { status: res.status, answer: res.body as unknown as Answer, replayed: res.headers.get('idempotent-replayed') === 'true' };
}

/** A bought key of a new product with these fields, activated on `fingerprint`. */
async function keyOf(fields: Partial<Record<keyof ProductInput, unknown>>, fingerprint = device()) {
  const product = await makeProduct(fields);
  const { id, key } = await usedKey(product, { maxActivations: 5 });
  const activated = await call('activate', { key, deviceFingerprint: fingerprint });
  expect(activated.answer.code).toBe('VALID');
  return { id, key, product, fingerprint };
}

const consume = (k: { key: string; fingerprint: string }, idempotencyKey: string | undefined, amount = 1) =>
  call(
    'consume',
    { key: k.key, deviceFingerprint: k.fingerprint, amount },
    idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey },
  );

const keyRow = (id: string) => db().select().from(licenseKeys).where(eq(licenseKeys.id, id)).get();
const debits = (keyId: string) =>
  db()
    .select()
    .from(usageEvents)
    .where(and(eq(usageEvents.keyId, keyId), eq(usageEvents.kind, 'consume')))
    .all();

const productBody = (p: Awaited<ReturnType<typeof makeProduct>>, changes: Record<string, unknown>) => ({
  name: p.name,
  description: p.description,
  keyTag: p.keyTag,
  baseCreditCost: p.baseCreditCost,
  ...changes,
});

describe('entitlements', () => {
  it("carries the product's and the key's own entitlements in every signed answer and token, and follows their changes", async () => {
    const owner = await signedInUser('owner');
    const k = await keyOf({ entitlements: 'pro, export-pdf' });
    const first = await call('validate', { key: k.key, deviceFingerprint: k.fingerprint });
    expect(first.answer).toMatchObject({ code: 'VALID', license: { entitlements: ['export-pdf', 'pro'] } });
    expect(decodeJwt(first.answer.license!.token!).ent).toEqual(['export-pdf', 'pro']);

    // The owner grants one more to this key alone.
    const granted = await api('PUT', `/api/admin/keys/${k.id}/entitlements`, { token: owner.token, body: { entitlements: ['beta'] } });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    expect((granted.body as { licenseKey: { entitlements: string[] } }).licenseKey.entitlements).toEqual(['beta', 'export-pdf', 'pro']);
    const second = await call('validate', { key: k.key, deviceFingerprint: k.fingerprint });
    expect(second.answer.license!.entitlements).toEqual(['beta', 'export-pdf', 'pro']);

    // The product drops one: the key's next answer (and token) no longer has it.
    const changed = await api('PUT', `/api/products/${k.product.id}`, {
      token: owner.token,
      body: productBody(k.product, { entitlements: ['pro'] }),
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const third = await call('heartbeat', { key: k.key, deviceFingerprint: k.fingerprint });
    expect(third.answer.license!.entitlements).toEqual(['beta', 'pro']);
    expect(decodeJwt(third.answer.license!.token!).ent).toEqual(['beta', 'pro']);

    // The owner's grant is removed again.
    await api('PUT', `/api/admin/keys/${k.id}/entitlements`, {
      token: owner.token,
      body: { entitlements: [] },
    });
    expect((await call('validate', { key: k.key, deviceFingerprint: k.fingerprint })).answer.license!.entitlements).toEqual(['pro']);
  });

  it('refuses names that are not lowercase words, and changes nothing', async () => {
    const owner = await signedInUser('owner');
    const k = await keyOf({ entitlements: ['pro'] });
    for (const entitlements of [['Pro'], ['export pdf'], ['-x'], ['a'.repeat(41)]]) {
      const res = await api('PUT', `/api/admin/keys/${k.id}/entitlements`, {
        token: owner.token,
        body: { entitlements },
      });
      expect(res.status).toBe(400);
    }
    const product = await api('PUT', `/api/products/${k.product.id}`, {
      token: owner.token,
      body: productBody(k.product, { entitlements: ['Export_PDF'] }),
    });
    expect(product.status).toBe(400);
    expect((await keyRow(k.id))!.entitlements).toEqual([]);
  });
});

describe('metered usage', () => {
  it('debits exactly the allowance when 50 consumes race for 20 uses, each Idempotency-Key once, its repeats answering the same', async () => {
    const k = await keyOf({ usageAllowance: 20 });
    // 30 idempotency keys: the first 20 sent twice, so 50 requests, all at once.
    const ids = Array.from({ length: 30 }, (_, i) => `race-${i}-${newId()}`);
    const sent = [...ids, ...ids.slice(0, 20)].sort(() => Math.random() - 0.5);
    const results = await Promise.all(sent.map((id) => consume(k, id)));
    expect(results.every((r) => r.status === 200)).toBe(true);

    const debited = await debits(k.id);
    expect(debited).toHaveLength(20);
    expect(new Set(debited.map((d) => d.idempotencyKey)).size).toBe(20);
    expect(debited.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect((await keyRow(k.id))!.usageRemaining).toBe(0);

    const byKey = new Map<string, Array<(typeof results)[number]>>();
    sent.forEach((id, i) => byKey.set(id, [...(byKey.get(id) ?? []), results[i]]));
    let consumed = 0;
    for (const [id, answers] of byKey) {
      const outcomes = answers.map((a) => [a.answer.code, a.answer.license!.usage!.remaining]);
      // Every copy of one key answers alike; a debit's remaining is the one stored for it.
      expect(new Set(outcomes.map((o) => JSON.stringify(o))).size, id).toBe(1);
      if (answers[0].answer.code === 'CONSUMED') {
        consumed++;
        expect(debited.find((d) => d.idempotencyKey === id)!.remaining).toBe(answers[0].answer.license!.usage!.remaining);
        expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      } else {
        expect(answers[0].answer).toMatchObject({ valid: false, code: 'USAGE_EXHAUSTED', license: { usage: { remaining: 0 } } });
      }
    }
    expect(consumed).toBe(20);

    // Sent again later, a debited key answers as it did and debits nothing more.
    const again = await consume(k, debited[0].idempotencyKey!);
    expect(again).toMatchObject({ replayed: true, answer: { code: 'CONSUMED', license: { usage: { remaining: debited[0].remaining } } } });
    expect(await debits(k.id)).toHaveLength(20);
  });

  it('refuses at zero with its own code and changes nothing; refuses a reused key for another amount; needs the header', async () => {
    const k = await keyOf({ usageAllowance: 3 });
    expect((await consume(k, 'a', 2)).answer).toMatchObject({
      valid: true,
      code: 'CONSUMED',
      license: { usage: { remaining: 1, allowance: 3 } },
    });
    const refused = await consume(k, 'b', 2);
    expect(refused.answer).toMatchObject({ valid: false, code: 'USAGE_EXHAUSTED', license: { usage: { remaining: 1 } } });
    expect(await debits(k.id)).toHaveLength(1);
    expect((await keyRow(k.id))!.usageRemaining).toBe(1);

    const reused = await consume(k, 'a', 1);
    expect(reused.status).toBe(409);
    const missing = await consume(k, undefined);
    expect(missing.status).toBe(400);
    expect((await consume(k, 'bad key with spaces')).status).toBe(400);
    for (const amount of [0, -1, 1.5]) expect((await consume(k, `amount-${amount}`, amount)).status).toBe(400);
    expect((await keyRow(k.id))!.usageRemaining).toBe(1);

    expect((await consume(k, 'c', 1)).answer).toMatchObject({ code: 'CONSUMED', license: { usage: { remaining: 0 } } });
    expect((await consume(k, 'd', 1)).answer.code).toBe('USAGE_EXHAUSTED');
    // A device not on the key may not spend it; a product without an allowance has nothing to spend.
    expect((await consume({ key: k.key, fingerprint: device('stranger') }, 'e')).answer.code).toBe('NOT_ACTIVATED');
    const unmetered = await keyOf({});
    expect((await consume(unmetered, 'f')).answer).toMatchObject({ valid: false, code: 'USAGE_NOT_METERED', license: { usage: null } });
  });

  it('refills lazily to the refill amount each period, never lowering uses the owner added', async () => {
    const k = await keyOf({ usageAllowance: 2, usageRefillAmount: 5, usageRefillDays: 1 });
    const t0 = Date.now();
    const input = (amount: number) => ({ key: k.key, deviceFingerprint: k.fingerprint, amount });
    const at = async (t: number, amount: number, id: string) => consumeUsage(env.DB, settings, input(amount), id, t);

    expect((await at(t0, 2, 'r1')).license!.usage).toMatchObject({ remaining: 0, nextRefillAt: t0 + DAY_MS });
    expect((await at(t0 + DAY_MS - 1, 1, 'r2')).code).toBe('USAGE_EXHAUSTED');
    // A day on: refilled to 5 as the debit runs.
    expect((await at(t0 + DAY_MS, 1, 'r3')).license!.usage).toMatchObject({ remaining: 4, nextRefillAt: t0 + 2 * DAY_MS });
    // Ten days unseen refill once, to 5, and the period moves on by whole days.
    expect((await at(t0 + 10 * DAY_MS + 5, 1, 'r4')).license!.usage).toMatchObject({ remaining: 4, nextRefillAt: t0 + 11 * DAY_MS });
    // An answer of validate sees a refill that fell due, without a write.
    const seen = await activateLicense(env.DB, settings, { key: k.key, deviceFingerprint: k.fingerprint }, t0 + 11 * DAY_MS);
    expect(seen.license!.usage).toMatchObject({ remaining: 5 });
    // Uses above the refill amount (a top-up) are kept.
    await db().update(licenseKeys).set({ usageRemaining: 9 }).where(eq(licenseKeys.id, k.id));
    expect((await at(t0 + 12 * DAY_MS, 1, 'r5')).license!.usage!.remaining).toBe(8);
  });

  it('lets the owner top a key up and see its usage with its history, per key and per product, and sends license.usage_exhausted', async () => {
    const owner = await signedInUser('owner');
    const endpointId = newId();
    await db()
      .insert(webhookEndpoints)
      .values({
        id: endpointId,
        url: 'https://hooks.example.com/usage',
        events: ['license.usage_exhausted'],
        secret: 'x',
        createdAt: new Date(),
      });
    try {
      const k = await keyOf({ usageAllowance: 1 });
      expect((await consume(k, 'w1')).answer.code).toBe('CONSUMED');
      const exhausted = async () =>
        (await db().select().from(webhookEvents).where(eq(webhookEvents.type, 'license.usage_exhausted')).all())
          .map((e) => JSON.parse(e.data) as { licenseKey: { _id: string }; usage: unknown })
          .filter((data) => data.licenseKey._id === k.id);
      expect(await exhausted()).toMatchObject([{ usage: { consumed: 1, remaining: 0 } }]);
      // A repeat of that debit writes no second event.
      await consume(k, 'w1');
      expect(await exhausted()).toHaveLength(1);

      const top = await api('POST', `/api/admin/keys/${k.id}/usage/top-up`, {
        token: owner.token,
        body: { amount: 10 },
      });
      expect(top.status, JSON.stringify(top.body)).toBe(200);
      expect((top.body as { licenseKey: { usage: Usage } }).licenseKey.usage).toMatchObject({ allowance: 1, remaining: 10 });
      expect((await consume(k, 'w2', 4)).answer).toMatchObject({ code: 'CONSUMED', license: { usage: { remaining: 6 } } });

      const usage = await api('GET', `/api/admin/keys/${k.id}/usage`, { token: owner.token });
      expect(usage.status).toBe(200);
      expect(usage.body).toMatchObject({
        usage: { remaining: 6 },
        consumed: 5,
        toppedUp: 10,
        total: 3,
        history: [
          { kind: 'consume', amount: 4, remaining: 6, by: null },
          { kind: 'top_up', amount: 10, remaining: 10, by: { _id: owner.user.id } },
          { kind: 'consume', amount: 1, remaining: 0, by: null },
        ],
      });
      const analytics = await api('GET', '/api/admin/analytics/usage', { token: owner.token });
      expect(analytics.status).toBe(200);
      expect(
        (analytics.body as { products: Array<{ productId: string }> }).products.find((p) => p.productId === k.product.id),
      ).toMatchObject({
        consumed: 5,
        toppedUp: 10,
        keysUsing: 1,
      });

      // A key of a product without an allowance cannot be topped up; bad amounts are refused.
      const plain = await keyOf({});
      const refused = await api('POST', `/api/admin/keys/${plain.id}/usage/top-up`, {
        token: owner.token,
        body: { amount: 1 },
      });
      expect(refused.status).toBe(409);
      for (const amount of [0, 2.5, 'ten']) {
        const bad = await api('POST', `/api/admin/keys/${k.id}/usage/top-up`, {
          token: owner.token,
          body: { amount },
        });
        expect(bad.status).toBe(400);
      }
      expect((await keyRow(k.id))!.usageRemaining).toBe(6);
    } finally {
      await db().delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
    }
  });

  it('keeps the count exact when top-ups and debits race: what is left is what was added less what was debited', async () => {
    const owner = await signedInUser('owner');
    const k = await keyOf({ usageAllowance: 0 });
    const work = [
      ...Array.from({ length: 10 }, () =>
        api('POST', `/api/admin/keys/${k.id}/usage/top-up`, { token: owner.token, body: { amount: 2 } }).then((r) => r.status),
      ),
      ...Array.from({ length: 25 }, (_, i) => consume(k, `mix-${i}`).then((r) => r.answer.code)),
    ];
    const outcomes = await Promise.all(work);
    expect(outcomes.slice(0, 10).every((status) => status === 200)).toBe(true);
    const debited = outcomes.slice(10).filter((code) => code === 'CONSUMED').length;
    expect(outcomes.slice(10).every((code) => code === 'CONSUMED' || code === 'USAGE_EXHAUSTED')).toBe(true);
    expect(await debits(k.id)).toHaveLength(debited);
    expect((await keyRow(k.id))!.usageRemaining).toBe(20 - debited);
    // In the order they committed (rowid), each history row's uses left follows from the one before.
    const history = await db()
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.keyId, k.id))
      .orderBy(sql`rowid`)
      .all();
    let left = 0;
    for (const row of history) {
      left += row.kind === 'top_up' ? row.amount : -row.amount;
      expect(row.remaining).toBe(left);
    }
  });

  it("shows a customer's entitlements and uses left in My Keys", async () => {
    const customer = await signedInUser('user');
    const k = await keyOf({ usageAllowance: 7, entitlements: ['pro'] });
    await db().update(licenseKeys).set({ purchasedBy: customer.user.id }).where(eq(licenseKeys.id, k.id));
    await consume(k, 'mk1', 2);
    const mine = await api('GET', '/api/users/my-keys', { token: customer.token });
    expect(mine.status).toBe(200);
    const listed = (mine.body as { keys: Array<{ _id: string; entitlements: string[]; usage: Usage | null }> }).keys.find(
      (x) => x._id === k.id,
    );
    expect(listed).toMatchObject({ entitlements: ['pro'], usage: { allowance: 7, remaining: 5, refillAmount: null, nextRefillAt: null } });
  });
});
