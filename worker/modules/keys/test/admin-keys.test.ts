import { env } from 'cloudflare:test';
import { and, eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLog, licenseKeys, products } from '../../../platform/db/schema';
import { adminKeysStatement, SHORT_SEARCH } from '../admin-keys';
import { adminKeysQuery } from '../schemas/admin-keys';
import { api, db, signedInUser } from '../../../test/helpers';
import { activate, activationsOf, asActor, auditOf, generated, keyRow, queryPlan, sold, type Actor } from '../../../test/key-admin-helpers';
import { OWNER_ONLY, RESELLER_AND_OWNER, roleMatrix, type MatrixRequest } from '../../../test/role-matrix';
import { makeProduct, productRow, uniqueTag } from '../../../test/shop-helpers';
import { KEY_STATUSES, type KeyStatus } from '../../../platform/vocabulary';

let owner: Actor;
let ownerToken: string;
beforeAll(async () => {
  const o = await signedInUser('owner');
  owner = asActor(o.user);
  ownerToken = o.token;
});

const list = (token: string, query: Record<string, string | number> = {}) =>
  api('GET', `/api/admin/keys?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`, {
    token,
  });
const keyIdOf = (r: MatrixRequest) => r.path.split('/')[4];

/** Everything a change to this key could touch. */
async function keyState(id: string) {
  const row = await keyRow(id);
  return { row, activations: await activationsOf(id), audit: await auditOf(id), product: row ? await productRow(row.productId) : null };
}

describe('role matrix over key management', () => {
  roleMatrix(
    'GET /api/admin/keys',
    {
      request: () => ({ method: 'GET', path: '/api/admin/keys' }),
      state: () => null,
      allowed: (res) =>
        expect(res.body).toMatchObject({
          keys: expect.any(Array) as unknown,
          totalPages: expect.any(Number) as unknown,
          total: expect.any(Number) as unknown,
        }),
    },
    RESELLER_AND_OWNER,
  );

  roleMatrix(
    'PUT /api/keys/{id}/revoke',
    {
      request: async () => {
        const [key] = await generated(owner, (await makeProduct()).id, 1);
        return { method: 'PUT', path: `/api/keys/${key._id}/revoke`, body: { reason: 'Chargeback' } };
      },
      state: async (r) => keyState(r.path.split('/')[3]),
      allowed: (res) => expect(res.body.licenseKey).toMatchObject({ status: 'revoked', revokeReason: 'Chargeback' }),
    },
    OWNER_ONLY,
  );

  roleMatrix(
    'DELETE /api/admin/keys/{id}',
    {
      request: async () => {
        const [key] = await generated(owner, (await makeProduct()).id, 1);
        await activate(key.key);
        return { method: 'DELETE', path: `/api/admin/keys/${key._id}` };
      },
      state: async (r) => keyState(keyIdOf(r)),
      allowed: async (res, _caller, r) => {
        expect(res.body).toEqual({ success: true, message: 'License key deleted' });
        expect(await keyRow(keyIdOf(r))).toBeUndefined();
      },
    },
    OWNER_ONLY,
  );

  roleMatrix(
    'DELETE /api/admin/keys/bulk',
    {
      request: async () => {
        const keys = await generated(owner, (await makeProduct()).id, 2);
        return { method: 'DELETE', path: '/api/admin/keys/bulk', body: { keyIds: keys.map((k) => k._id), reason: 'Leaked' } };
      },
      state: async (r) => Promise.all((r.body as { keyIds: string[] }).keyIds.map(keyState)),
      allowed: (res) => expect(res.body).toMatchObject({ success: true, deleted: 2, notFound: [] }),
    },
    OWNER_ONLY,
  );

  roleMatrix(
    'DELETE /api/admin/keys/{id}/activations/{activationId}',
    {
      request: async () => {
        const [key] = await generated(owner, (await makeProduct({ maxActivations: 2 })).id, 1);
        await activate(key.key);
        const [activation] = await activationsOf(key._id);
        return { method: 'DELETE', path: `/api/admin/keys/${key._id}/activations/${activation.id}` };
      },
      state: async (r) => keyState(keyIdOf(r)),
      allowed: (res) => expect(res.body.licenseKey.activations).toEqual([]),
    },
    OWNER_ONLY,
  );
});

describe('GET /api/admin/keys', () => {
  it('pages the keys of a product, 15 by default, newest first, in the one key shape', async () => {
    const product = await makeProduct({ maxActivations: 3 });
    const keys = await generated(owner, product.id, 20, 5);
    const first = await list(ownerToken, { product: product.id });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 20, totalPages: 2 });
    expect(first.body.keys).toHaveLength(15);
    const second = await list(ownerToken, { product: product.id, page: 2 });
    expect(second.body.keys).toHaveLength(5);
    const seen = [...first.body.keys, ...second.body.keys].map((k: { _id: string }) => k._id);
    expect(new Set(seen)).toEqual(new Set(keys.map((k) => k._id)));
    expect((await list(ownerToken, { product: product.id, limit: 100 })).body.keys).toHaveLength(20);

    await activate(keys[0].key);
    const [shown] = (await list(ownerToken, { product: product.id, search: keys[0].key })).body.keys;
    expect(shown).toMatchObject({
      _id: keys[0]._id,
      key: keys[0].key,
      status: 'used',
      product: { _id: product.id, name: product.name, keyTag: product.keyTag, productType: 'software', duration: 5, maxActivations: 3 },
      createdBy: { _id: owner.id, username: owner.username },
      purchasedBy: null,
      duration: 5,
      metadata: { generationMethod: 'automatic' },
      maxActivations: 3,
      activations: [
        expect.objectContaining({
          _id: expect.any(String) as unknown,
          deviceFingerprint: expect.stringMatching(/^test-device-/) as unknown,
        }),
      ],
    });
    expect(shown.expiresAt).not.toBeNull();
  });

  it('pages through every expired key, marked or lapsed, newest first, from two index ranges', async () => {
    const product = await makeProduct();
    const keys = await generated(owner, product.id, 7);
    const now = Date.now();
    // The newest keys of the shop (made an hour ahead), alternating marked expired, lapsed (used, expiry
    // passed, not marked yet) and one still live, which no expired page may show.
    const kinds = ['expired', 'lapsed', 'expired', 'live', 'lapsed', 'lapsed', 'expired'] as const;
    for (const [i, key] of keys.entries()) {
      const kind = kinds[i];
      await db()
        .update(licenseKeys)
        .set({
          status: kind === 'expired' ? 'expired' : 'used',
          expiresAt: new Date(kind === 'live' ? now + 86_400_000 : now - 1000 - i),
          createdAt: new Date(now + 3_600_000 + i * 1000),
        })
        .where(eq(licenseKeys.id, key._id))
        .run();
    }
    const expected = keys
      .filter((_, i) => kinds[i] !== 'live')
      .map((k) => k._id)
      .reverse();
    const page = async (n: number) =>
      (await list(ownerToken, { status: 'expired', limit: 2, page: n })).body.keys.map((k: { _id: string; status: string }) => [
        k._id,
        k.status,
      ]);
    const firstThree = [...(await page(1)), ...(await page(2)), ...(await page(3))];
    expect(firstThree).toEqual(expected.map((id) => [id, 'expired']));
    // Past the new keys, the pages go on with every other expired key in the shop, in the same order.
    const { results: truth } = await env.DB.prepare(
      `SELECT id FROM license_keys WHERE status = 'expired' OR (status IN ('used', 'available') AND expires_at <= ?1) ORDER BY created_at DESC, id DESC LIMIT 4 OFFSET 4`,
    )
      .bind(Date.now())
      .all<{ id: string }>();
    expect([...(await page(3)), ...(await page(4))].map(([id]) => id)).toEqual(truth.map((r) => r.id));

    const plan = (await queryPlan(adminKeysStatement(db(), owner, adminKeysQuery.parse({ status: 'expired', page: 10 })))).join('\n');
    expect(plan).not.toMatch(/SCAN license_keys\b/);
    expect(plan).toContain('license_keys_status_idx');
    expect(plan).toContain('license_keys_expiry_idx');
  });

  it('rejects a bad page, limit, status or search with a clear message', async () => {
    expect((await list(ownerToken, { limit: 101 })).body).toMatchObject({ code: 'VALIDATION_ERROR', message: 'limit must be at most 100' });
    expect((await list(ownerToken, { limit: 0 })).body.message).toBe('limit must be at least 1');
    expect((await list(ownerToken, { page: 0 })).body.message).toBe('page must be at least 1');
    expect((await list(ownerToken, { page: 'x' })).body.message).toBe('page must be a number');
    expect((await list(ownerToken, { status: 'lost' })).body.message).toBe('status must be one of available, used, revoked, expired');
    expect((await list(ownerToken, { search: 'x'.repeat(101) })).body.message).toBe('search must be at most 100 characters');
    expect((await list(ownerToken, { limit: 101 })).status).toBe(400);
  });

  it('filters by status as each key is now, expired included before the cron marks it', async () => {
    const product = await makeProduct();
    const keys = await generated(owner, product.id, 4);
    const customer = await signedInUser('user', { credits: 1000 });
    const bought = await sold(product.id, customer.user.id, customer.user.id);
    await api('PUT', `/api/keys/${keys[0]._id}/revoke`, { token: ownerToken, body: { reason: 'Test' } });
    // A used key whose expiry has passed, still marked used.
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(licenseKeys.id, bought._id))
      .run();
    const ids = async (status: string) =>
      (await list(ownerToken, { product: product.id, status })).body.keys.map((k: { _id: string }) => k._id).sort();
    expect(await ids('revoked')).toEqual([keys[0]._id]);
    expect(await ids('available')).toEqual(
      keys
        .slice(1)
        .map((k) => k._id)
        .sort(),
    );
    expect(await ids('expired')).toEqual([bought._id]);
    expect(await ids('used')).toEqual([]);
    expect((await list(ownerToken, { product: product.id, status: 'all' })).body.total).toBe(5);
    expect((await list(ownerToken, { product: product.id, status: '' })).body.total).toBe(5);
  });

  describe('search, each form served by an index', () => {
    let product: Awaited<ReturnType<typeof makeProduct>>;
    let other: Awaited<ReturnType<typeof makeProduct>>;
    let keys: Awaited<ReturnType<typeof generated>>;
    let sale: Awaited<ReturnType<typeof sold>>;
    let reseller: Awaited<ReturnType<typeof signedInUser>>;
    let customer: Awaited<ReturnType<typeof signedInUser>>;
    beforeAll(async () => {
      product = await makeProduct({ name: `Zephyr Studio ${Date.now()}` });
      other = await makeProduct();
      keys = await generated(owner, product.id, 3);
      reseller = await signedInUser('reseller', { credits: 1000 });
      customer = await signedInUser('user');
      sale = await sold(other.id, customer.user.id, reseller.user.id);
    });
    const found = async (search: string): Promise<string[]> =>
      (await list(ownerToken, { search, limit: 100 })).body.keys.map((k: { _id: string }) => k._id);

    it('finds a key by its prefix, typed in any case', async () => {
      expect(await found(keys[1].key)).toEqual([keys[1]._id]);
      expect(await found(keys[1].key.slice(0, keys[1].key.length - 3).toLowerCase())).toEqual([keys[1]._id]);
      // The key tag is the keys' own prefix: every key of the product.
      expect((await found(`${product.keyTag}-`)).sort()).toEqual(keys.map((k) => k._id).sort());
    });

    it('finds the keys of a product by its name (any part, any case) or its key tag', async () => {
      expect((await found(product.name.toLowerCase())).sort()).toEqual(keys.map((k) => k._id).sort());
      expect((await found(product.name.slice(2, 12).toUpperCase())).sort()).toEqual(keys.map((k) => k._id).sort());
      expect(await found(other.keyTag.toLowerCase())).toEqual([sale._id]);
    });

    it('finds keys by the username prefix of their buyer or their creator', async () => {
      expect(await found(customer.username.slice(0, -1).toUpperCase())).toEqual([sale._id]);
      expect(await found(reseller.username)).toEqual([sale._id]);
      expect((await found(owner.username)).sort()).toEqual(expect.arrayContaining(keys.map((k) => k._id)));
      expect(await found('nobody-is-called-this')).toEqual([]);
    });

    it('reads % and _ as letters and quotes as text, never as wildcards or SQL', async () => {
      const odd = await makeProduct({ name: `Promo ${Date.now()} 100% o'clock_x "deal"` });
      const [oddKey] = await generated(owner, odd.id, 1);
      for (const search of ['100%', "o'clock_x", '"deal"', `${odd.name.slice(0, 10)}`]) expect(await found(search)).toEqual([oddKey._id]);
      // As wildcards these would name every product; as letters, none.
      for (const search of ['%%%', '___', '1_0%', "' OR 1=1 --"]) expect(await found(search)).toEqual([]);
    });

    it(`matches a search shorter than ${SHORT_SEARCH} characters to whole values only: a keyTag or a product's whole name`, async () => {
      const tiny = await makeProduct({ name: 'Zq' });
      const longer = await makeProduct({ name: 'Zq Studio' });
      const [tinyKey] = await generated(owner, tiny.id, 1);
      const [longerKey] = await generated(owner, longer.id, 1);
      const zq = await found('zQ');
      expect(zq).toContain(tinyKey._id);
      expect(zq).not.toContain(longerKey._id);
      // Two letters of a key are not a prefix search: they would name most keys of a large shop.
      expect(await found(keys[0].key.slice(0, 2))).not.toContain(keys[0]._id);
      expect(await found(keys[0].key.slice(0, SHORT_SEARCH))).toContain(keys[0]._id);
    });

    it('follows changes: a renamed product and a deleted key drop out of the results', async () => {
      const renamed = await makeProduct({ name: `Quasar ${Date.now()}` });
      const [a, b] = await generated(owner, renamed.id, 2);
      const before = renamed.name;
      expect((await found(before)).sort()).toEqual([a._id, b._id].sort());
      const after = `Nebula ${Date.now()}`;
      await db().update(products).set({ name: after }).where(eq(products.id, renamed.id));
      expect(await found(before)).toEqual([]);
      expect((await found(after)).sort()).toEqual([a._id, b._id].sort());
      expect((await api('DELETE', `/api/admin/keys/${a._id}`, { token: ownerToken })).status).toBe(200);
      expect(await found(after)).toEqual([b._id]);
      expect(await found(a.key)).toEqual([]);
    });

    it('never walks the whole key table to answer', async () => {
      for (const search of [keys[0].key.slice(0, 8), product.name, product.keyTag, customer.username, 'zq']) {
        for (const viewer of [owner, { id: reseller.user.id, role: 'reseller' as const }]) {
          const query = adminKeysQuery.parse({ search, status: 'used' });
          const plan = await queryPlan(adminKeysStatement(db(), viewer, query));
          expect(
            plan.filter((step) => /SCAN license_keys\b/.test(step)),
            plan.join('\n'),
          ).toEqual([]);
          // The owner's search: one lookup per form. A reseller's: their own keys (the creator
          // index) are few, and every form is matched among them.
          const lookups =
            viewer.role === 'owner'
              ? ['license_keys_key_unique', 'license_keys_product_idx', 'license_keys_buyer_idx', 'license_keys_creator_idx']
              : ['license_keys_creator_idx'];
          for (const index of lookups) expect(plan.join('\n')).toContain(index);
        }
      }
    });
  });

  it('shows a reseller only the keys they created, whatever the filters', async () => {
    const product = await makeProduct();
    const mine = await signedInUser('reseller', { credits: 1000 });
    const theirs = await signedInUser('reseller', { credits: 1000 });
    const customer = await signedInUser('user', { credits: 1000 });
    const forCustomer = await sold(product.id, customer.user.id, mine.user.id);
    const ownKey = await sold(product.id, mine.user.id, mine.user.id);
    const otherSale = await sold(product.id, customer.user.id, theirs.user.id);
    const customersOwn = await sold(product.id, customer.user.id, customer.user.id);
    const ownerKeys = await generated(owner, product.id, 2);

    const seen = async (token: string, query: Record<string, string> = {}) =>
      (await list(token, { product: product.id, ...query })).body.keys.map((k: { _id: string }) => k._id).sort();
    expect(await seen(mine.token)).toEqual([forCustomer._id, ownKey._id].sort());
    expect(await seen(theirs.token)).toEqual([otherSale._id]);
    expect(await seen(mine.token, { search: customer.username })).toEqual([forCustomer._id]);
    expect(await seen(mine.token, { search: otherSale.key })).toEqual([]);
    expect(await seen(mine.token, { search: ownerKeys[0].key })).toEqual([]);
    expect(await seen(mine.token, { search: product.keyTag })).toEqual([forCustomer._id, ownKey._id].sort());
    expect(await seen(mine.token, { status: 'available' })).toEqual([]);
    expect((await list(mine.token)).body.keys.every((k) => k.createdBy?._id === mine.user.id)).toBe(true);
    expect(await seen(ownerToken)).toEqual(
      [forCustomer._id, ownKey._id, otherSale._id, customersOwn._id, ...ownerKeys.map((k) => k._id)].sort(),
    );
  });
});

describe('PUT /api/keys/{id}/revoke', () => {
  it('revokes with the reason, audited with who, when and from where', async () => {
    const product = await makeProduct();
    const [key] = await generated(owner, product.id, 1);
    const res = await api('PUT', `/api/keys/${key._id}/revoke`, { token: ownerToken, body: { reason: '  Refunded  ' }, ip: '203.0.113.9' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: 'License key revoked',
      licenseKey: { _id: key._id, status: 'revoked', revokeReason: 'Refunded' },
    });
    const row = (await keyRow(key._id))!;
    expect(row).toMatchObject({ status: 'revoked', revokeReason: 'Refunded' });
    expect(row.revokedAt).toBeInstanceOf(Date);
    const [audit] = await auditOf(key._id);
    expect(audit).toMatchObject({
      actorId: owner.id,
      action: 'key.revoke',
      targetType: 'license_key',
      ipAddress: '203.0.113.9',
      details: { key: key.key, product: product.name, previousStatus: 'available', reason: 'Refunded' },
    });
  });

  it('requires a reason, and refuses a key that is unknown or already revoked', async () => {
    const [key] = await generated(owner, (await makeProduct()).id, 1);
    const revoke = (body: unknown, id = key._id) => api('PUT', `/api/keys/${id}/revoke`, { token: ownerToken, body });
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: null }]) {
      expect((await revoke(body)).body).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Please provide a reason for revoking this key',
        details: { field: 'reason' },
      });
    }
    expect((await revoke({ reason: 'x'.repeat(501) })).body.message).toBe('The reason must be at most 500 characters');
    expect((await keyRow(key._id))!.status).toBe('available');
    expect((await revoke({ reason: 'Gone' }, 'no-such-key')).status).toBe(404);
    expect((await revoke({ reason: 'First' })).status).toBe(200);
    const again = await revoke({ reason: 'Second' });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('This license key is already revoked');
    expect((await keyRow(key._id))!.revokeReason).toBe('First');
    expect(await auditOf(key._id)).toHaveLength(1);
  });

  it('revokes once when two requests race', async () => {
    const [key] = await generated(owner, (await makeProduct()).id, 1);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => api('PUT', `/api/keys/${key._id}/revoke`, { token: ownerToken, body: { reason: `Race ${i}` } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await auditOf(key._id)).toHaveLength(1);
  });
});

describe('DELETE /api/admin/keys/{id}', () => {
  it('deletes the key and its devices for good, keeps the product counters right, and records it', async () => {
    const product = await makeProduct({ maxActivations: 3 });
    const [kept, gone] = await generated(owner, product.id, 2);
    await activate(kept.key);
    await activate(gone.key);
    await activate(gone.key);
    expect((await productRow(product.id))!.totalActivations).toBe(3);
    const res = await api('DELETE', `/api/admin/keys/${gone._id}`, { token: ownerToken, ip: '198.51.100.4' });
    expect(res.status).toBe(200);
    expect(await keyRow(gone._id)).toBeUndefined();
    expect(await activationsOf(gone._id)).toEqual([]);
    expect(await productRow(product.id)).toMatchObject({ totalActivations: 1, totalGenerated: 2 });
    expect(await auditOf(gone._id)).toEqual([
      expect.objectContaining({
        action: 'key.delete',
        actorId: owner.id,
        ipAddress: '198.51.100.4',
        details: { id: gone._id, key: gone.key, product: product.name, status: 'used', purchasedBy: null },
      }),
    ]);
    const again = await api('DELETE', `/api/admin/keys/${gone._id}`, { token: ownerToken });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('License key not found');
    expect(await auditOf(gone._id)).toHaveLength(1);
  });
});

describe('DELETE /api/admin/keys/bulk', () => {
  it('needs at least one key and a reason, with the spec-style messages', async () => {
    const [key] = await generated(owner, (await makeProduct()).id, 1);
    const bulk = (body: unknown) => api('DELETE', '/api/admin/keys/bulk', { token: ownerToken, body });
    expect((await bulk({ keyIds: [], reason: 'x' })).body.message).toBe('Please select at least one key to delete');
    expect((await bulk({ reason: 'x' })).body.message).toBe('Please select at least one key to delete');
    expect((await bulk({ keyIds: [key._id] })).body.message).toBe('Please provide a reason for deleting these keys');
    expect((await bulk({ keyIds: [key._id], reason: ' ' })).body.message).toBe('Please provide a reason for deleting these keys');
    expect((await bulk({ keyIds: [42], reason: 'x' })).body.message).toBe('Key id is required');
    expect((await bulk({ keyIds: Array.from({ length: 501 }, (_, i) => `k${i}`), reason: 'x' })).body.message).toBe(
      'At most 500 keys can be deleted at once',
    );
    const noBody = await api('DELETE', '/api/admin/keys/bulk', { token: ownerToken });
    expect(noBody.status).toBe(400);
    expect(await keyRow(key._id)).toBeDefined();
    const unknown = await bulk({ keyIds: ['no-such-key'], reason: 'x' });
    expect(unknown.status).toBe(404);
  });

  it('deletes every chosen key in one batch, over many statements, with one audit row', async () => {
    const product = await makeProduct({ maxActivations: 2 });
    const other = await makeProduct();
    const keys = await generated(owner, product.id, 130);
    const [survivor] = await generated(owner, other.id, 1);
    await activate(keys[0].key);
    await activate(keys[0].key);
    await activate(keys[129].key);
    await activate(survivor.key);
    const chosen = [...keys.map((k) => k._id), keys[3]._id, 'not-a-key'];
    const res = await api('DELETE', '/api/admin/keys/bulk', { token: ownerToken, body: { keyIds: chosen, reason: 'Batch leaked' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, deleted: 130, notFound: ['not-a-key'], message: '130 license keys deleted' });
    expect(await db().select().from(licenseKeys).where(eq(licenseKeys.productId, product.id)).all()).toEqual([]);
    expect(await productRow(product.id)).toMatchObject({ totalActivations: 0, totalGenerated: 130 });
    expect(await productRow(other.id)).toMatchObject({ totalActivations: 1 });
    expect(await keyRow(survivor._id)).toBeDefined();
    const audits = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'keys.bulk_delete'), eq(auditLog.actorId, owner.id)))
      .all();
    const audit = audits.find((a) => (a.details as { keys: Array<{ id: string }> }).keys.some((k) => k.id === keys[0]._id))!;
    expect(audit.details).toMatchObject({ reason: 'Batch leaked', count: 130 });
    expect((audit.details as { keys: Array<{ key: string }> }).keys.map((k) => k.key).sort()).toEqual(keys.map((k) => k.key).sort());
  });
});

describe('DELETE /api/admin/keys/{id}/activations/{activationId}', () => {
  it('frees one device slot of the key, counted on the product and audited', async () => {
    const product = await makeProduct({ maxActivations: 2 });
    const [key, other] = await generated(owner, product.id, 2);
    const first = await activate(key.key);
    await activate(key.key);
    await activate(other.key);
    const both = await activationsOf(key._id);
    const one = both.find((a) => a.deviceFingerprint === first)!;
    const two = both.find((a) => a.deviceFingerprint !== first)!;
    const [otherActivation] = await activationsOf(other._id);
    const remove = (keyId: string, activationId: string) =>
      api('DELETE', `/api/admin/keys/${keyId}/activations/${activationId}`, { token: ownerToken });

    const res = await remove(key._id, one.id);
    expect(res.status).toBe(200);
    expect(res.body.licenseKey.activations.map((a: { _id: string }) => a._id)).toEqual([two.id]);
    expect((await productRow(product.id))!.totalActivations).toBe(2);
    expect(await auditOf(key._id)).toEqual([
      expect.objectContaining({
        action: 'key.remove_activation',
        actorId: owner.id,
        details: {
          key: key.key,
          activationId: one.id,
          deviceFingerprint: first,
          deviceInfo: null,
          slotFreesAt: res.body.licenseKey.heldSlots[0].freesAt,
        },
      }),
    ]);
    // The removed device's slot stays held while its offline token may live (device-limit-offline.test.ts).
    expect(res.body.licenseKey.heldSlots).toEqual([expect.objectContaining({ deviceFingerprint: first })]);
    // Gone already; another key's device; an unknown key.
    expect((await remove(key._id, one.id)).body).toMatchObject({ code: 'NOT_FOUND', message: 'Activation not found' });
    expect((await remove(key._id, otherActivation.id)).status).toBe(404);
    expect((await remove('no-such-key', two.id)).body.message).toBe('License key not found');
    expect(await activationsOf(other._id)).toHaveLength(1);
    expect((await productRow(product.id))!.totalActivations).toBe(2);
  });
});

describe('product counters after deletions', () => {
  it('stay equal to the activations that remain', async () => {
    const product = await makeProduct({ maxActivations: 3 });
    const keys = await generated(owner, product.id, 4);
    for (const k of keys) await activate(k.key);
    await api('DELETE', `/api/admin/keys/${keys[0]._id}`, { token: ownerToken });
    await api('DELETE', '/api/admin/keys/bulk', { token: ownerToken, body: { keyIds: [keys[1]._id, keys[2]._id], reason: 'x' } });
    const remaining = await db()
      .select()
      .from(licenseKeys)
      .where(
        inArray(
          licenseKeys.id,
          keys.map((k) => k._id),
        ),
      )
      .all();
    expect(remaining.map((k) => k.id)).toEqual([keys[3]._id]);
    const [{ totalActivations }] = await db()
      .select({ totalActivations: products.totalActivations })
      .from(products)
      .where(eq(products.id, product.id))
      .all();
    expect(totalActivations).toBe(1);
  });
});

describe("the owner's search, held to every key (an oracle computed here from the table)", () => {
  type KeyFields = {
    id: string;
    key: string;
    status: KeyStatus;
    expires_at: number | null;
    created_at: number;
    product_id: string;
    purchased_by: string | null;
    created_by: string | null;
  };
  const all = async <T>(sql: string) => (await env.DB.prepare(sql).all<T>()).results;
  /** ASCII case folding, as SQLite's LIKE and lower() fold. */
  const fold = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

  /** The keys a search and a status pick, newest first, by the rules of docs/api.md, from every key. */
  async function expected(search: string, status: KeyStatus | undefined) {
    const now = Date.now();
    const keys = await all<KeyFields>(
      'SELECT id, key, status, expires_at, created_at, product_id, purchased_by, created_by FROM license_keys',
    );
    const productRows = await all<{ id: string; name: string; key_tag: string }>('SELECT id, name, key_tag FROM products');
    const userRows = await all<{ id: string; username: string }>('SELECT id, username FROM users');
    const short = search.length < SHORT_SEARCH;
    const named = new Set(
      userRows.filter((u) => (short ? fold(u.username) === fold(search) : fold(u.username).startsWith(fold(search)))).map((u) => u.id),
    );
    const matchedProducts = new Set(
      productRows
        .filter((p) => p.key_tag === search.toUpperCase() || (short ? fold(p.name) === fold(search) : fold(p.name).includes(fold(search))))
        .map((p) => p.id),
    );
    const effective = (k: KeyFields): KeyStatus =>
      (k.status === 'used' || k.status === 'available') && k.expires_at !== null && k.expires_at <= now ? 'expired' : k.status;
    return keys
      .filter(
        (k) =>
          (!short && k.key.startsWith(search.toUpperCase())) ||
          matchedProducts.has(k.product_id) ||
          (k.purchased_by !== null && named.has(k.purchased_by)) ||
          (k.created_by !== null && named.has(k.created_by)),
      )
      .filter((k) => !status || effective(k) === status)
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((k) => k.id);
  }

  /** Every page of a search, and its total, as the API answers them, against the oracle. */
  async function expectPages(search: string, status: KeyStatus | undefined, limit = 4) {
    const truth = await expected(search, status);
    const pages = Math.max(1, Math.ceil(truth.length / limit));
    for (let page = 1; page <= pages + 1; page++) {
      const res = await list(ownerToken, { search, limit, page, ...(status ? { status } : {}) });
      const context = `search ${search}, status ${status ?? 'any'}, page ${page}`;
      expect(res.status, context).toBe(200);
      expect(res.body.total, context).toBe(truth.length);
      expect(res.body.totalPages, context).toBe(Math.ceil(truth.length / limit));
      expect(
        res.body.keys.map((k: { _id: string }) => k._id),
        context,
      ).toEqual(truth.slice((page - 1) * limit, page * limit));
    }
    return truth.length;
  }

  /** product_key_counts and key_tag_counts hold what counting the keys gives (rows at zero aside). */
  async function expectCountersExact() {
    const byProduct = async (sql: string) =>
      (await all<{ product_id: string; status: string; n: number }>(sql)).map((r) => `${r.product_id}/${r.status}: ${r.n}`).sort();
    expect(await byProduct('SELECT product_id, status, n FROM product_key_counts WHERE n != 0')).toEqual(
      await byProduct('SELECT product_id, status, count(*) AS n FROM license_keys GROUP BY product_id, status'),
    );
    const byTag = async (sql: string) =>
      (await all<{ tag: string; product_id: string; n: number }>(sql)).map((r) => `${r.tag}/${r.product_id}: ${r.n}`).sort();
    expect(await byTag('SELECT tag, product_id, n FROM key_tag_counts WHERE n != 0')).toEqual(
      await byTag(
        "SELECT substr(key, 1, instr(key, '-') - 1) AS tag, product_id, count(*) AS n FROM license_keys WHERE instr(key, '-') > 0 GROUP BY 1, 2",
      ),
    );
    expect(await all('SELECT * FROM product_key_counts WHERE n < 0')).toEqual([]);
    expect(await all('SELECT * FROM key_tag_counts WHERE n < 0')).toEqual([]);
  }

  const setKey = (id: string, fields: Partial<typeof licenseKeys.$inferInsert>) =>
    db().update(licenseKeys).set(fields).where(eq(licenseKeys.id, id)).run();

  it('gives the totals and pages of every form and status, as keys change status, are revoked, deleted, lapse and move', async () => {
    // S is one product's keyTag, part of another's name and the start of a buyer's username: a key
    // of the first bought by that buyer is matched by four forms at once.
    const S = `OR${uniqueTag().slice(0, 6)}`;
    const tagged = await makeProduct({ keyTag: S });
    const named = await makeProduct({ name: `Suite ${S.toLowerCase()} Pro ${Date.now()}` });
    const longerTag = await makeProduct({ keyTag: `${S}Z` });
    const unrelated = await makeProduct();
    const buyer = await signedInUser('user', { username: `${S.toLowerCase()}buyer`, credits: 10_000 });
    const taggedKeys = [...(await generated(owner, tagged.id, 14)), ...(await generated(owner, tagged.id, 6, 30))];
    const namedKeys = await generated(owner, named.id, 7);
    await generated(owner, longerTag.id, 3);
    const unrelatedKeys = await generated(owner, unrelated.id, 5);
    const boughtTagged = [await sold(tagged.id, buyer.user.id, buyer.user.id), await sold(tagged.id, buyer.user.id, buyer.user.id)];
    const boughtUnrelated = [
      await sold(unrelated.id, buyer.user.id, buyer.user.id),
      await sold(unrelated.id, buyer.user.id, buyer.user.id),
    ];
    const now = Date.now();
    // Creation times apart, and some equal (the id breaks the tie).
    for (const [i, k] of [...taggedKeys, ...namedKeys].entries()) await setKey(k._id, { createdAt: new Date(now - (i % 9) * 60_000) });
    // Statuses: revoked (API), deleted (API), marked expired, lapsed (used or available, expiry
    // passed, not marked), used and live.
    for (const k of [taggedKeys[0], taggedKeys[5], namedKeys[1]])
      expect((await api('PUT', `/api/keys/${k._id}/revoke`, { token: ownerToken, body: { reason: 'Oracle' } })).status).toBe(200);
    for (const k of [taggedKeys[1], namedKeys[2]])
      expect((await api('DELETE', `/api/admin/keys/${k._id}`, { token: ownerToken })).status).toBe(200);
    for (const k of [taggedKeys[2], taggedKeys[7], boughtUnrelated[0]])
      await setKey(k._id, { status: 'expired', expiresAt: new Date(now - 3_600_000) });
    for (const k of [taggedKeys[3], namedKeys[3], boughtTagged[0]])
      await setKey(k._id, { status: 'used', expiresAt: new Date(now - 3_600_000) });
    await setKey(taggedKeys[4]._id, { expiresAt: new Date(now - 3_600_000) });
    for (const k of [taggedKeys[8], taggedKeys[9], namedKeys[4]])
      await setKey(k._id, { status: 'used', expiresAt: new Date(now + 3_600_000) });

    const searches = [
      S,
      S.toLowerCase(),
      `${S}-`,
      `suite ${S}`,
      buyer.username,
      unrelatedKeys[0].key.slice(0, 11),
      taggedKeys[10].key.slice(0, 11),
      S.slice(0, 2),
    ];
    const statuses = [undefined, ...KEY_STATUSES];
    const check = async () => {
      for (const search of searches) for (const status of statuses) await expectPages(search, status);
      await expectCountersExact();
    };
    await check();
    expect(await expected(S, undefined)).toHaveLength(taggedKeys.length - 1 + namedKeys.length - 1 + 3 + 2 + 2);

    // A key of another product whose value starts with the tag (an imported one, or a tag taken
    // again after a change): the keyTag search now finds it by prefix, outside the matched products.
    await setKey(unrelatedKeys[1]._id, { key: `${S}-IMPRT-00000-00000-00001` });
    // A key regenerated (a new value), a key moved to another status and a key moved to another product.
    expect(
      (await api('POST', `/api/admin/keys/${taggedKeys[11]._id}/regenerate`, { token: ownerToken, body: { reason: 'Oracle' } })).status,
    ).toBe(200);
    await setKey(taggedKeys[12]._id, { status: 'revoked' });
    await setKey(namedKeys[5]._id, { productId: unrelated.id });
    await check();
    expect(await expected(S, undefined)).toContain(unrelatedKeys[1]._id);
  }, 120_000);

  it('keeps the counts exact under many purchases and generations at once', async () => {
    const product = await makeProduct({ baseCreditCost: 1, creditsPerDay: 1 });
    const buyers = await Promise.all(Array.from({ length: 6 }, () => signedInUser('user', { credits: 100_000 })));
    const answers = await Promise.all([
      ...buyers.flatMap((b) =>
        [1, 2, 3].map(() => api('POST', '/api/keys/purchase', { token: b.token, body: { productId: product.id, duration: 30 } })),
      ),
      ...Array.from({ length: 6 }, () =>
        api('POST', '/api/keys/generate', { token: ownerToken, body: { productId: product.id, quantity: 20 } }),
      ),
    ]);
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(201);
    await expectCountersExact();
    for (const status of [undefined, ...KEY_STATUSES]) expect(await expectPages(product.keyTag, status, 15)).toBeGreaterThanOrEqual(0);
    expect((await list(ownerToken, { search: product.keyTag })).body.total).toBe(6 * 3 + 6 * 20);
  }, 60_000);
});
