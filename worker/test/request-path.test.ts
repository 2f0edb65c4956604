// The request path at the edge: one D1 session per request, bookmarks carried both ways so everyone
// reads their own writes, and the caller's guard inside every signed-in write.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../platform/db/schema';
import { api, db, signedInUser } from './helpers';
import { instrumentedWorker } from './instrumented';
import { keysBoughtBy, makeProduct, productRow, userRow } from './shop-helpers';

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

describe('bookmarks', () => {
  it('come with every answer that asked D1 anything, errors included, and echo the caller’s own otherwise', async () => {
    const product = await makeProduct({ baseCreditCost: 5, creditsPerDay: 1 });
    const { token } = await signedInUser('user', { credits: 100 });
    const answers = [
      await api('GET', '/api/users/profile', { token }),
      await api('GET', '/api/users/my-keys', { token }),
      await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } }),
      // Refused by D1 itself (more credits than there are).
      await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 300 } }),
      await api('GET', '/api/users/profile', { token: 'not-a-session' }),
      await api('POST', '/api/v1/licenses/validate', { body: { key: 'KP-NOPE-NOPE', deviceFingerprint: 'fp-bookmarks' } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 201, 402, 401, 200]);
    for (const [i, answer] of answers.entries()) {
      if (i === 4) continue; // no session: nothing was asked of D1 and no bookmark was sent
      expect(String(answer.headers.get('x-d1-bookmark')), `answer ${i}: ${answer.status} ${JSON.stringify(answer.body)}`).toMatch(BOOKMARK);
    }
    // An answer whose handler asked D1 nothing still confirmed its caller there, at least as new as the caller's bookmark.
    const mine = answers[0].headers.get('x-d1-bookmark')!;
    const settings = await api('GET', '/api/settings/public', { token, headers: { 'x-d1-bookmark': mine } });
    expect(settings.status).toBe(200);
    expect(settings.headers.get('x-d1-bookmark')! >= mine).toBe(true);
  });

  it('let a purchase show in My Keys on the next call, read on a session opened at the purchase’s bookmark', async () => {
    const product = await makeProduct({ baseCreditCost: 5, creditsPerDay: 1 });
    const { token } = await signedInUser('user', { credits: 100 });
    const worker = instrumentedWorker();
    const bought = await api('POST', '/api/keys/purchase', {
      token,
      body: { productId: product.id, duration: 3 },
      fetch: (url, init) => worker.fetch(url, init),
    });
    expect(bought.status).toBe(201);
    expect(worker.take().sessions).toEqual(['first-primary']);
    const bookmark = bought.headers.get('x-d1-bookmark')!;
    expect(bookmark).toMatch(BOOKMARK);
    const mine = await api('GET', '/api/users/my-keys', {
      token,
      headers: { 'x-d1-bookmark': bookmark },
      fetch: (url, init) => worker.fetch(url, init),
    });
    expect(worker.take().sessions).toEqual(['bookmark']);
    expect(mine.status).toBe(200);
    expect(mine.body.keys.map((k: { key: string }) => k.key)).toContain(bought.body.licenseKey.key);
    // The read's own bookmark is never older than the one it was given.
    expect(mine.headers.get('x-d1-bookmark')! >= bookmark).toBe(true);
  });

  it('open reads anywhere and writes on the primary; a licensing validation reads the primary', async () => {
    const { token } = await signedInUser('user', { credits: 100 });
    const worker = instrumentedWorker();
    await api('GET', '/api/users/profile', { token, fetch: (url, init) => worker.fetch(url, init) });
    // A validation signs offline tokens: it must see every committed change to the key (issue 42).
    await api('POST', '/api/v1/licenses/validate', {
      body: { key: 'KP-NOPE-NOPE', deviceFingerprint: 'fp-bookmarks' },
      fetch: (url, init) => worker.fetch(url, init),
    });
    expect(worker.take().sessions).toEqual(['first-unconstrained', 'first-primary']);
    await api('POST', '/api/credits/exchange', { token, body: { usdAmount: 1 }, fetch: (url, init) => worker.fetch(url, init) });
    expect(worker.take().sessions).toEqual(['first-primary']);
  });

  it('refuse a malformed bookmark with a 400 that changes nothing', async () => {
    const product = await makeProduct({ baseCreditCost: 5, creditsPerDay: 1 });
    const { token, user } = await signedInUser('user', { credits: 100 });
    for (const bad of [
      'garbage',
      '00000000-0000000b-00000000',
      `${'0'.repeat(8)}-${'0'.repeat(8)}-${'0'.repeat(8)}-${'g'.repeat(32)}`,
      'x'.repeat(5000),
    ]) {
      const res = await api('POST', '/api/keys/purchase', {
        token,
        body: { productId: product.id, duration: 1 },
        headers: { 'x-d1-bookmark': bad },
      });
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('x-d1-bookmark') as unknown });
    }
    expect((await userRow(user.id))!.credits).toBe(100);
    expect(await keysBoughtBy(user.id)).toEqual([]);
  });
});

describe('the caller guard in every signed-in write', () => {
  // The bare row change, without the owner's deactivation that also ends the sessions.
  const deactivateInD1Only = (id: string) => db().update(users).set({ isActive: false }).where(eq(users.id, id));

  it('refuses a purchase and an exchange for an account deactivated a moment ago, and moves nothing', async () => {
    const product = await makeProduct({ baseCreditCost: 5, creditsPerDay: 1 });
    const { token, user } = await signedInUser('user', { credits: 100, balanceCents: 1000 });
    await deactivateInD1Only(user.id);
    const purchase = await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: 1 } });
    expect(purchase.status).toBe(401);
    expect(purchase.body).toEqual({ code: 'UNAUTHORIZED', message: 'This account has been deactivated' });
    const exchange = await api('POST', '/api/credits/exchange', { token, body: { usdAmount: 5 } });
    expect(exchange.status).toBe(401);
    const row = (await userRow(user.id))!;
    expect([row.credits, row.balanceCents]).toEqual([100, 1000]);
    expect(await keysBoughtBy(user.id)).toEqual([]);
    expect((await productRow(product.id))!.totalSold).toBe(0);
  });

  it('refuses an owner’s write once the role is gone from D1, whatever KV still says', async () => {
    const { token, user } = await signedInUser('owner');
    const product = await makeProduct();
    await db().update(users).set({ role: 'reseller' }).where(eq(users.id, user.id));
    const res = await api('PUT', `/api/products/${product.id}`, {
      token,
      body: { name: 'Renamed by a demoted owner', description: 'x', keyTag: product.keyTag, baseCreditCost: 1 },
    });
    expect(res.status).toBe(403);
    expect((await productRow(product.id))!.name).toBe(product.name);
  });

  it('refuses a read as soon as the account is deactivated in D1: there is no other copy to wait for', async () => {
    const { token, user } = await signedInUser('user');
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(200);
    await deactivateInD1Only(user.id);
    const refused = await api('GET', '/api/users/profile', { token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ code: 'UNAUTHORIZED', message: 'This account has been deactivated' });
  });
});
