// API tokens: made by owners and resellers, shown once and stored hashed, accepted as bearer tokens
// with the lower of the token's and the account's role, read-only enforced, refused once revoked.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { apiTokens, rateLimits, securityLog } from '../../../platform/db/schema';
import { env } from 'cloudflare:test';
import { findApiTokenGrant, touchApiToken } from '../api-tokens';
import { liveIsolateCaches } from '../../../platform/isolate-cache';
import { sha256Hex } from '../../../platform/ids';
import { LAST_ACTIVE_WRITE_MS } from '../sessions';
import { MAX_API_TOKENS_PER_USER } from '../schemas/api-tokens';
import { api, db, interceptedD1, signedInUser, TEST_PASSWORD, uniqueName } from '../../../test/helpers';
import { type Role } from '../../../platform/vocabulary';

async function createToken(session: string, body: { name?: string; role: Role; readOnly?: boolean }) {
  const res = await api('POST', '/api/users/api-tokens', {
    token: session,
    body: { name: body.name ?? uniqueName('token'), currentPassword: TEST_PASSWORD, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { token: string; apiToken: { _id: string; name: string; role: Role; readOnly: boolean; lastUsedAt: string | null } };
}

const tokenRow = (id: string) => db().select().from(apiTokens).where(eq(apiTokens.id, id)).get();

describe('POST /api/users/api-tokens', () => {
  it('gives an owner a kp_ token once, stored only as its SHA-256', async () => {
    const owner = await signedInUser('owner');
    const created = await createToken(owner.token, { name: 'Nightly export', role: 'owner', readOnly: true });
    expect(created.token).toMatch(/^kp_[A-Za-z0-9_-]{43}$/);
    expect(created.apiToken).toMatchObject({ name: 'Nightly export', role: 'owner', readOnly: true, lastUsedAt: null });
    const row = await tokenRow(created.apiToken._id);
    expect(row).toMatchObject({ userId: owner.user.id, tokenHash: await sha256Hex(created.token), role: 'owner', readOnly: true });
    expect(JSON.stringify(row)).not.toContain(created.token);
    const list = await api('GET', '/api/users/api-tokens', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.tokens).toEqual([expect.objectContaining({ _id: created.apiToken._id, name: 'Nightly export' })]);
    expect(JSON.stringify(list.body)).not.toContain(created.token);
    const events = await db()
      .select()
      .from(securityLog)
      .where(and(eq(securityLog.userId, owner.user.id), eq(securityLog.event, 'api_token_created')))
      .all();
    expect(events).toHaveLength(1);
  });

  it('binds the role to the creator: a reseller cannot make an owner token', async () => {
    const reseller = await signedInUser('reseller');
    const res = await api('POST', '/api/users/api-tokens', {
      token: reseller.token,
      body: { name: 'too much', role: 'owner', currentPassword: TEST_PASSWORD },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/cannot be above your own role/);
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, reseller.user.id)).all()).toEqual([]);
    const ok = await createToken(reseller.token, { role: 'reseller' });
    expect(ok.apiToken).toMatchObject({ role: 'reseller', readOnly: false });
  });

  it('refuses a plain user and a guest', async () => {
    const user = await signedInUser('user');
    const res = await api('POST', '/api/users/api-tokens', { token: user.token, body: { name: 'mine', role: 'user' } });
    expect(res.status).toBe(403);
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, user.user.id)).all()).toEqual([]);
    expect((await api('POST', '/api/users/api-tokens', { body: { name: 'x', role: 'user' } })).status).toBe(401);
    expect((await api('GET', '/api/users/api-tokens')).status).toBe(401);
  });

  it.each([
    [{ role: 'owner' }, 'Name is required'],
    [{ name: '   ', role: 'owner' }, 'Name is required'],
    [{ name: 'x'.repeat(61), role: 'owner' }, 'Name must be at most 60 characters'],
    [{ name: 'ok', role: 'admin' }, 'Role must be user, reseller or owner'],
    [{ name: 'ok' }, 'Role must be user, reseller or owner'],
    [{ name: 'ok', role: 'owner', readOnly: 'yes' }, 'readOnly must be true or false'],
  ])('rejects %j with a clear 400', async (body, message) => {
    const owner = await signedInUser('owner');
    const res = await api('POST', '/api/users/api-tokens', { token: owner.token, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, owner.user.id)).all()).toEqual([]);
  });

  it(`keeps at most ${MAX_API_TOKENS_PER_USER} tokens per account, even when the last ones are created all at once`, async () => {
    const owner = await signedInUser('owner');
    const create = (i: number) =>
      api('POST', '/api/users/api-tokens', { token: owner.token, body: { name: `t${i}`, role: 'user', currentPassword: TEST_PASSWORD } });
    // All but three one after another, then eight at once for the last three places. Eight, not more:
    // each step-up's password check is counted against the account before it runs (sign-in limits),
    // and ten checks in flight at once would meet that limit, by design.
    for (let i = 0; i < MAX_API_TOKENS_PER_USER - 3; i++) expect((await create(i)).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create(100 + i)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, owner.user.id)).all()).toHaveLength(MAX_API_TOKENS_PER_USER);
  });
});

describe('using an API token', () => {
  it('signs requests in as its owner and records the last use', async () => {
    const owner = await signedInUser('owner');
    const { token, apiToken } = await createToken(owner.token, { role: 'owner' });
    const profile = await api('GET', '/api/users/profile', { token });
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ _id: owner.user.id, role: 'owner' });
    expect((await api('GET', '/api/admin/stats', { token })).status).toBe(200);
    await vi.waitFor(async () => expect((await tokenRow(apiToken._id))!.lastUsedAt).not.toBeNull());
    const list = await api('GET', '/api/users/api-tokens', { token: owner.token });
    expect(Date.parse(list.body.tokens[0].lastUsedAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("acts with the token role: an owner's reseller token cannot do owner work", async () => {
    const owner = await signedInUser('owner');
    const { token } = await createToken(owner.token, { role: 'reseller' });
    const users = await api('GET', '/api/admin/users', { token });
    expect(users.status).toBe(200);
    // The reseller's view of the user list: names only, no balances.
    expect(users.body.users[0]).not.toHaveProperty('credits');
    expect((await api('GET', '/api/settings', { token })).status).toBe(403);
    const product = await api('POST', '/api/products', {
      token,
      body: { name: 'Nope', description: 'x', keyTag: 'NOPE', baseCreditCost: 1 },
    });
    expect(product.status).toBe(403);
  });

  it('acts with the lower of its role and the account’s, and ends with any role change', async () => {
    const owner = await signedInUser('owner');
    const admin = await signedInUser('owner');
    const setRole = (role: Role) => api('PUT', `/api/admin/users/${owner.user.id}`, { token: admin.token, body: { role } });
    const { token: asReseller } = await createToken(owner.token, { role: 'reseller' });
    expect((await api('GET', '/api/admin/keys', { token: asReseller })).status).toBe(200);
    expect((await api('GET', '/api/settings', { token: asReseller })).status).toBe(403);
    const { token } = await createToken(owner.token, { role: 'owner' });
    expect((await api('GET', '/api/settings', { token })).status).toBe(200);
    expect((await setRole('reseller')).status).toBe(200);
    // The demotion ended both at once, and the account's sessions with them.
    for (const ended of [token, asReseller, owner.token]) {
      const refused = await api('GET', '/api/admin/keys', { token: ended });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('UNAUTHORIZED');
    }
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, owner.user.id)).all()).toEqual([]);
  });

  it('lets a read-only token read but not write', async () => {
    const owner = await signedInUser('owner');
    const { token } = await createToken(owner.token, { role: 'owner', readOnly: true });
    expect((await api('GET', '/api/settings', { token })).status).toBe(200);
    const before = await api('GET', '/api/products', { token });
    const write = await api('POST', '/api/products', {
      token,
      body: { name: uniqueName('P'), description: 'x', keyTag: 'RO', baseCreditCost: 1 },
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ code: 'FORBIDDEN', message: 'This API token is read-only' });
    expect((await api('PUT', '/api/settings', { token, body: {} })).status).toBe(403);
    expect((await api('GET', '/api/products', { token })).body).toHaveLength(before.body.length);
  });

  it('is refused at once after revocation', async () => {
    const owner = await signedInUser('owner');
    const { token, apiToken } = await createToken(owner.token, { name: 'short-lived', role: 'owner' });
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(200);
    const revoke = await api('DELETE', `/api/users/api-tokens/${apiToken._id}`, { token: owner.token });
    expect(revoke.status).toBe(200);
    expect(revoke.body.message).toBe('API token "short-lived" revoked');
    const refused = await api('GET', '/api/users/profile', { token });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'UNAUTHORIZED', message: 'This API token is not valid or has been revoked' });
    expect(await tokenRow(apiToken._id)).toBeUndefined();
    expect((await api('DELETE', `/api/users/api-tokens/${apiToken._id}`, { token: owner.token })).status).toBe(404);
  });

  it('cannot be revoked by another account', async () => {
    const owner = await signedInUser('owner');
    const other = await signedInUser('owner');
    const { token, apiToken } = await createToken(owner.token, { role: 'owner' });
    expect((await api('DELETE', `/api/users/api-tokens/${apiToken._id}`, { token: other.token })).status).toBe(404);
    expect((await api('DELETE', '/api/users/api-tokens/not-an-id', { token: other.token })).status).toBe(400);
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(200);
    expect((await api('GET', '/api/users/api-tokens', { token: other.token })).body.tokens).toEqual([]);
  });

  it('stops working for good when the account is deactivated, and when it is deleted', async () => {
    const owner = await signedInUser('owner');
    const reseller = await signedInUser('reseller');
    const { token } = await createToken(reseller.token, { role: 'reseller' });
    // Reactivating a reseller gives power back: it asks for the owner's proof.
    const setActive = (isActive: boolean) =>
      api('PUT', `/api/admin/users/${reseller.user.id}`, { token: owner.token, body: { isActive, currentPassword: TEST_PASSWORD } });
    expect((await setActive(false)).status).toBe(200);
    const deactivated = await api('GET', '/api/users/profile', { token });
    expect(deactivated.status).toBe(401);
    // Deactivation revokes: reactivating the account does not bring the token back.
    expect((await setActive(true)).status).toBe(200);
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(401);
    const again = await api('POST', '/api/auth/login', { body: { email: reseller.email, password: TEST_PASSWORD } });
    expect(again.status).toBe(200);
    const { token: fresh } = await createToken(String(again.body.token), { role: 'reseller' });
    expect((await api('GET', '/api/users/profile', { token: fresh })).status).toBe(200);
    expect((await api('DELETE', `/api/admin/users/${reseller.user.id}`, { token: owner.token })).status).toBe(200);
    expect((await api('GET', '/api/users/profile', { token: fresh })).status).toBe(401);
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(401);
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, reseller.user.id)).all()).toEqual([]);
  });

  it('cannot manage account security, sign out, or make more tokens', async () => {
    const owner = await signedInUser('owner');
    const { token } = await createToken(owner.token, { role: 'owner' });
    const calls: Array<[string, string, unknown?]> = [
      ['POST', '/api/users/api-tokens', { name: 'more', role: 'owner' }],
      ['GET', '/api/users/api-tokens'],
      ['PUT', '/api/users/change-password', { currentPassword: TEST_PASSWORD, newPassword: 'Another123' }],
      ['POST', '/api/users/setup-2fa'],
      ['GET', '/api/users/sessions'],
      ['GET', '/api/users/security'],
      ['DELETE', '/api/users/disconnect-google'],
      ['POST', '/api/auth/logout'],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(method, path, { token, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      // Account security takes a session; what needs proof says so.
      expect(res.body.message).toMatch(
        /^API tokens cannot (manage account security|do this: it needs proof of who you are)\. Sign in to KeyPanel/,
      );
    }
    expect(await db().select().from(apiTokens).where(eq(apiTokens.userId, owner.user.id)).all()).toHaveLength(1);
    // The password is unchanged: the session still signs in with it.
    expect((await api('POST', '/api/auth/login', { body: { email: owner.email, password: TEST_PASSWORD } })).status).toBe(200);
  });

  it('refuses a made-up token without writing anything', async () => {
    const fake = `kp_${'A'.repeat(43)}`;
    const res = await api('GET', '/api/users/profile', { token: fake });
    expect(res.status).toBe(401);
    const bucket = `api-token:${(await sha256Hex(fake)).slice(0, 32)}`;
    expect(await db().select().from(rateLimits).where(eq(rateLimits.bucket, bucket)).all()).toEqual([]);
  });

  it('is limited per token like a session (429 with Retry-After past the limit)', async () => {
    const owner = await signedInUser('owner');
    const { token, apiToken } = await createToken(owner.token, { role: 'owner' });
    // The token's minute is used up on the limiter the Worker shares with this test.
    while ((await env.CALL_LIMITER.limit({ key: `token:${apiToken._id}` })).success);
    const res = await api('GET', '/api/users/profile', { token });
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(/^Too many requests with this API token\./);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the API-token helpers', () => {
  it('finds a token by its row, remembers what it grants, and never once revoked', async () => {
    const owner = await signedInUser('owner');
    const { token, apiToken } = await createToken(owner.token, { role: 'reseller', readOnly: true });
    const grant = { id: apiToken._id, userId: owner.user.id, role: 'reseller', accountRole: 'owner', readOnly: true };
    expect(await findApiTokenGrant(db(), token)).toEqual(grant);
    expect((await api('DELETE', `/api/users/api-tokens/${apiToken._id}`, { token: owner.token })).status).toBe(200);
    // This isolate still remembers the grant, but every round trip of the call checks the row.
    const refused = await api('GET', '/api/admin/keys', { token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ code: 'UNAUTHORIZED', message: 'This API token is not valid or has been revoked' });
    liveIsolateCaches().get('api-token-grants')?.clear();
    expect(await findApiTokenGrant(db(), token)).toBeNull();
  });

  it('writes lastUsedAt at most every few minutes', async () => {
    const owner = await signedInUser('owner');
    const { token, apiToken } = await createToken(owner.token, { role: 'owner' });
    const grant = { id: apiToken._id, userId: owner.user.id, role: 'owner' as const, accountRole: 'owner' as const, readOnly: false };
    const t0 = Date.now() + 60 * 60_000;
    // A binding of its own, so no batch opened by another request carries these touches.
    const d1 = interceptedD1(env.DB, {});
    await touchApiToken(d1, grant, t0, 10);
    expect((await tokenRow(apiToken._id))!.lastUsedAt!.getTime()).toBe(t0);
    // Within the interval, nothing is due from this isolate (no write at all)...
    expect(touchApiToken(d1, grant, t0 + 60_000, 10)).toBeUndefined();
    // ...and once it has passed, the next use is written.
    await touchApiToken(d1, grant, t0 + LAST_ACTIVE_WRITE_MS + 1, 10);
    expect((await tokenRow(apiToken._id))!.lastUsedAt!.getTime()).toBe(t0 + LAST_ACTIVE_WRITE_MS + 1);
    expect(token).toMatch(/^kp_/);
  });

  it.each([
    ['GET', '/api/users/profile', true],
    ['GET', '/api/users/stats', true],
    ['GET', '/api/users/my-keys', true],
    ['DELETE', '/api/users/my-keys/{keyId}/activations/{activationId}', true],
    ['GET', '/api/users/api-tokens', false],
    ['GET', '/api/users/sessions', false],
    ['PUT', '/api/users/change-password', false],
    ['POST', '/api/auth/logout', false],
    ['GET', '/api/admin/keys', true],
    ['POST', '/api/keys/generate', true],
    ['POST', '/api/webhooks', false],
  ])('the document says whether %s %s takes an API token: %s', async (method, path, allowed) => {
    const document = (await api('GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, { security: object[] }>> };
    const schemes = document.paths[path][method.toLowerCase()].security.flatMap((s) => Object.keys(s));
    expect(schemes.includes('apiToken')).toBe(allowed);
  });
});
