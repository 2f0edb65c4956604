// A purchase, a page of My Keys, and (once the caller's role is known) the admin key list and the
// Overview carry the session's D1 checks (the call counted, the account
// active) in their own batch (requireAuthInBatch). These hold them to what requireAuth promises:
// refusals change nothing, and every call is counted exactly once, whether or not its batch ran.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rateLimits, users } from '../db/schema';
import { RULES, windowStartOf } from '../domain/throttle';
import { api, clearOfMinuteEdge, db, signedInUser, unreconciledUsers } from './helpers';
import { asActor, generated } from './key-admin-helpers';
import { keysBoughtBy, makeProduct, userRow } from './shop-helpers';

const buy = (token: string, body: unknown) => api('POST', '/api/keys/purchase', { token, body });
const rule = RULES.session;

async function sessionBucket(token: string) {
  const [mine] = (await api('GET', '/api/users/sessions', { token })).body.sessions.filter((s: { current: boolean }) => s.current);
  return `session:${mine.id}`;
}
const callsCounted = async (bucket: string) => (await db().select().from(rateLimits).where(eq(rateLimits.bucket, bucket)).all()).reduce((n, r) => n + r.count, 0);

/** Sets this minute's count, far enough from the minute's end that the test's calls fall in the same window. */
async function setCount(bucket: string, count: number) {
  await clearOfMinuteEdge();
  const windowStart = windowStartOf(rule, Date.now());
  await db().insert(rateLimits).values({ bucket, windowStart, count }).onConflictDoUpdate({ target: [rateLimits.bucket, rateLimits.windowStart], set: { count } });
}

describe('a purchase checks the session inside its batch', () => {
  it('refuses a deactivated account whose session is still stored, charges nothing and ends the session', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 1000 });
    // The product is remembered from a first sale, so the refused purchase is a single batch.
    expect((await buy(token, { productId: product.id, duration: 5 })).status).toBe(201);
    await db().update(users).set({ isActive: false }).where(eq(users.id, user.id)).run();
    const res = await buy(token, { productId: product.id, duration: 5 });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('This account has been deactivated');
    expect((await userRow(user.id))!.credits).toBe(985);
    expect(await keysBoughtBy(user.id)).toHaveLength(1);
    await db().update(users).set({ isActive: true }).where(eq(users.id, user.id)).run();
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(401);
  });

  it('answers a refused session with the refusal, never with a stored purchase it retries', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 1000 });
    const headers = { 'Idempotency-Key': `retry-${user.id}` };
    const body = { productId: product.id, duration: 5 };
    expect((await api('POST', '/api/keys/purchase', { token, body, headers })).status).toBe(201);
    const bucket = await sessionBucket(token);
    await setCount(bucket, rule.limit);
    const overLimit = await api('POST', '/api/keys/purchase', { token, body, headers });
    expect(overLimit.status).toBe(429);
    expect(overLimit.body.licenseKey).toBeUndefined();
    await db().update(users).set({ isActive: false }).where(eq(users.id, user.id)).run();
    const deactivated = await api('POST', '/api/keys/purchase', { token, body, headers });
    expect(deactivated.status).toBe(401);
    expect(deactivated.body.licenseKey).toBeUndefined();
    expect((await userRow(user.id))!.credits).toBe(985);
  });

  it('refuses a deleted account with an expired session and writes nothing', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 1000 });
    expect((await buy(token, { productId: product.id, duration: 5 })).status).toBe(201);
    await db().delete(users).where(eq(users.id, user.id)).run();
    const res = await buy(token, { productId: product.id, duration: 5 });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Your session has expired. Please sign in again.');
    expect(await keysBoughtBy(user.id)).toHaveLength(1);
  });

  it('holds the per-session limit exactly when purchases race at it', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 10_000 });
    expect((await buy(token, { productId: product.id, duration: 5 })).status).toBe(201);
    await setCount(await sessionBucket(token), rule.limit - 3);
    const results = await Promise.all(Array.from({ length: 10 }, () => buy(token, { productId: product.id, duration: 5 })));
    const bought = results.filter((r) => r.status === 201);
    expect(bought).toHaveLength(3);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(7);
    expect(limited[0].body.message).toMatch(/^Too many requests from this session\./);
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThan(0);
    // Only the purchases answered 201 were made and paid for.
    expect(await keysBoughtBy(user.id)).toHaveLength(1 + bought.length);
    expect((await userRow(user.id))!.credits).toBe(10_000 - 15 * (1 + bought.length));
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('counts every call once: bought, replayed, refused for credits, unknown product, invalid', async () => {
    const product = await makeProduct({ baseCreditCost: 100, creditsPerDay: 0 });
    const { token } = await signedInUser('user', { credits: 250 });
    const bucket = await sessionBucket(token);
    const counted = async (call: () => Promise<{ status: number; headers: Headers }>, status: number) => {
      const before = await callsCounted(bucket);
      const res = await call();
      expect(res.status).toBe(status);
      expect((await callsCounted(bucket)) - before).toBe(1);
      return res;
    };
    const order = { productId: product.id, duration: 5 };
    const headers = { 'Idempotency-Key': `once-${crypto.randomUUID()}` };
    await counted(() => buy(token, order), 201);
    await counted(() => api('POST', '/api/keys/purchase', { token, body: order, headers }), 201);
    const replay = await counted(() => api('POST', '/api/keys/purchase', { token, body: order, headers }), 201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await counted(() => buy(token, order), 402);
    await counted(() => buy(token, { productId: 'no-such-product', duration: 5 }), 404);
    await counted(() => buy(token, { productId: product.id, duration: 'five' }), 400);
  });

  it('answers 429 over the limit even when the request itself is invalid or the product unknown', async () => {
    const { token } = await signedInUser('user', { credits: 150 });
    await setCount(await sessionBucket(token), rule.limit);
    const invalid = await buy(token, { productId: 42 });
    const unknown = await buy(token, { productId: 'no-such-product', duration: 5 });
    expect(invalid.status).toBe(429);
    expect(unknown.status).toBe(429);
  });
});

describe('a page of My Keys checks the session inside its batch', () => {
  const myKeys = (token: string, query = '') => api('GET', `/api/users/my-keys${query}`, { token });

  it('answers the page, with related rows, counting the call once', async () => {
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    const { user, token } = await signedInUser('user', { credits: 1000 });
    for (let i = 0; i < 3; i++) expect((await buy(token, { productId: product.id, duration: 5 })).status).toBe(201);
    const bucket = await sessionBucket(token);
    const before = await callsCounted(bucket);
    const res = await myKeys(token, '?limit=2&page=2');
    expect(res.status).toBe(200);
    expect((await callsCounted(bucket)) - before).toBe(1);
    expect(res.body).toMatchObject({ total: 3, totalPages: 2 });
    expect(res.body.keys).toHaveLength(1);
    expect(res.body.keys[0]).toMatchObject({ purchasedBy: { _id: user.id, username: user.username }, createdBy: { _id: user.id, username: user.username }, activations: [] });
  });

  it('refuses a deactivated account (401) and counts an invalid query', async () => {
    const { user, token } = await signedInUser('user');
    const bucket = await sessionBucket(token);
    const before = await callsCounted(bucket);
    expect((await myKeys(token, '?limit=0')).status).toBe(400);
    expect((await callsCounted(bucket)) - before).toBe(1);
    await db().update(users).set({ isActive: false }).where(eq(users.id, user.id)).run();
    const res = await myKeys(token);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('This account has been deactivated');
    expect(res.body.keys).toBeUndefined();
  });

  it('answers 429 over the per-session limit', async () => {
    const { token } = await signedInUser('user');
    await setCount(await sessionBucket(token), rule.limit);
    expect((await myKeys(token)).status).toBe(429);
  });
});

describe('the admin key list and the Overview check the session inside their batch once the role is known', () => {
  const adminKeys = (token: string, query = '') => api('GET', `/api/admin/keys${query}`, { token });
  const overview = (token: string) => api('GET', '/api/admin/stats', { token });

  /** The SQL of each D1 batch the Worker sends while `work` runs. */
  async function batchesDuring(work: () => Promise<unknown>): Promise<string[][]> {
    const d1 = env.DB as D1Database & { batch: D1Database['batch'] };
    const batch = d1.batch;
    const seen: string[][] = [];
    d1.batch = function (this: D1Database, statements: D1PreparedStatement[]) {
      seen.push(statements.map((s) => (s as unknown as { statement: string }).statement));
      return batch.call(this, statements);
    } as D1Database['batch'];
    try {
      await work();
    } finally {
      d1.batch = batch;
    }
    return seen;
  }
  const counting = (statements: string[]) => statements.some((s) => /^insert into "?rate_limits"?/i.test(s));

  it('counts the call in the same batch as the page or the figures, once', async () => {
    const { token } = await signedInUser('owner');
    const bucket = await sessionBucket(token);
    // The first call reads the role on its own; later ones know it.
    expect((await overview(token)).status).toBe(200);
    for (const [call, marker] of [
      [() => overview(token), 'from "products"'],
      [() => adminKeys(token, '?status=used'), 'json_group_array'],
      [() => adminKeys(token, '?search=zz-nothing'), 'json_group_array'],
    ] as const) {
      const before = await callsCounted(bucket);
      let status = 0;
      const batches = await batchesDuring(async () => (status = (await call()).status));
      expect(status).toBe(200);
      const withCount = batches.filter(counting);
      expect(withCount).toHaveLength(1);
      expect(withCount[0].some((s) => s.includes(marker))).toBe(true);
      expect((await callsCounted(bucket)) - before).toBe(1);
    }
  });

  it('serves an owner made a reseller as a reseller at once: only the keys they created', async () => {
    const { user, token } = await signedInUser('owner');
    const bucket = await sessionBucket(token);
    const product = await makeProduct();
    await generated(asActor((await signedInUser('owner')).user), product.id, 2);
    expect((await adminKeys(token, `?product=${product.id}`)).body.total).toBe(2);
    expect((await overview(token)).body.totalProducts).toBeGreaterThan(0);
    // Nothing in between tells this isolate of the change.
    await db().update(users).set({ role: 'reseller' }).where(eq(users.id, user.id)).run();
    const before = await callsCounted(bucket);
    const res = await adminKeys(token, `?product=${product.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ keys: [], total: 0 });
    const stats = await overview(token);
    expect(stats.body).toMatchObject({ totalUsers: 0, totalKeys: 0, totalRevenue: 0 });
    expect(stats.body.recentActivity.keys).toEqual([]);
    // Each call counted once, though the first one's batch was refused for the changed role.
    expect((await callsCounted(bucket)) - before).toBe(2);
  });

  it('refuses a reseller made a customer (403), a deactivated owner (401) and a session over its limit (429)', async () => {
    const reseller = await signedInUser('reseller');
    expect((await adminKeys(reseller.token)).status).toBe(200);
    await db().update(users).set({ role: 'user' }).where(eq(users.id, reseller.user.id)).run();
    for (const res of [await adminKeys(reseller.token), await overview(reseller.token)]) {
      expect(res.status).toBe(403);
      expect(res.body.keys).toBeUndefined();
    }

    const owner = await signedInUser('owner');
    expect((await overview(owner.token)).status).toBe(200);
    await db().update(users).set({ isActive: false }).where(eq(users.id, owner.user.id)).run();
    const refused = await adminKeys(owner.token);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('This account has been deactivated');

    const busy = await signedInUser('owner');
    expect((await overview(busy.token)).status).toBe(200);
    await setCount(await sessionBucket(busy.token), rule.limit);
    expect((await overview(busy.token)).status).toBe(429);
    expect((await adminKeys(busy.token, '?status=revoked')).status).toBe(429);
  });
});
