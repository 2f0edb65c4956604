// Identity decided by D1: each way a stolen or ended credential, or a changed account, used to keep
// power is tried here and must fail. Each test names the finding it replays.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { app } from '../../../app';
import { auditLog, products, sessions, users, webhookEndpoints } from '../../../platform/db/schema';
import { openSession } from '../sign-in';
import { findUserById } from '../users';
import type { Env } from '../../../platform/env';
import { readOutbox } from '../../../platform/mail';
import { passThrough } from '../../../platform/proxy';
import { clearSettingsCache, getSettings } from '../../settings/store';
import { api, db, liveSessions, signedInUser, TEST_PASSWORD, uniqueName } from '../../../test/helpers';
import { resetTokenFrom, waitForMail } from '../../../test/security-helpers';
import { makeProduct, productRow, userRow } from '../../../test/shop-helpers';

const newAccount = (role: 'user' | 'reseller' | 'owner') => {
  const username = uniqueName('made');
  return { username, email: `${username}@example.com`, password: 'Sturdy-secret-1', role };
};

async function apiToken(owner: string, readOnly = false) {
  const res = await api('POST', '/api/users/api-tokens', {
    token: owner,
    body: { name: 'stolen', role: 'owner', readOnly, currentPassword: TEST_PASSWORD },
  });
  expect(res.status).toBe(201);
  return res.body.token;
}

describe('a stolen owner credential cannot plant a backdoor', () => {
  it('creating a second owner or a reseller needs proof, never comes from an API token, and tells the other owners', async () => {
    const owner = await signedInUser('owner');
    const other = await signedInUser('owner');
    const token = await apiToken(owner.token);
    for (const role of ['owner', 'reseller'] as const) {
      const account = newAccount(role);
      const bare = await api('POST', '/api/admin/users', { token: owner.token, body: account });
      expect(bare.status).toBe(403);
      expect(bare.body.code).toBe('REAUTH_REQUIRED');
      const byToken = await api('POST', '/api/admin/users', { token, body: { ...account, currentPassword: TEST_PASSWORD } });
      expect(byToken.status).toBe(403);
      expect(byToken.body.code).toBe('FORBIDDEN');
      expect(await db().select().from(users).where(eq(users.username, account.username)).all()).toEqual([]);
    }
    // A customer needs no proof, and a script may still make one.
    expect((await api('POST', '/api/admin/users', { token, body: newAccount('user') })).status).toBe(201);
    // With proof, the owner is made, and every other owner hears of it.
    const made = newAccount('owner');
    const proven = await api('POST', '/api/admin/users', { token: owner.token, body: { ...made, currentPassword: TEST_PASSWORD } });
    expect(proven.status).toBe(201);
    await expect
      .poll(async () => (await readOutbox(env.KV, other.email)).map((m) => m.subject))
      .toContain(`${made.username} is now an owner of KeyPanel`);
  });

  it('raising a role or changing an address needs proof; the old address is told', async () => {
    const owner = await signedInUser('owner');
    const token = await apiToken(owner.token);
    const victim = await signedInUser('user');
    const path = `/api/admin/users/${victim.user.id}` as const;
    for (const body of [{ email: 'attacker@example.com' }, { role: 'owner' }, { role: 'reseller' }] as const) {
      const bare = await api('PUT', path, { token: owner.token, body });
      expect(bare.status, JSON.stringify(body)).toBe(403);
      expect(bare.body.code).toBe('REAUTH_REQUIRED');
      expect((await api('PUT', path, { token, body: { ...body, currentPassword: TEST_PASSWORD } })).status).toBe(403);
    }
    const row = (await findUserById(db(), victim.user.id))!;
    expect([row.email, row.role]).toEqual([victim.email, 'user']);
    // Lowering a role or changing credits is not a grant of power.
    expect((await api('PUT', path, { token, body: { credits: 5 } })).status).toBe(200);
    const moved = await api('PUT', path, {
      token: owner.token,
      body: { email: `${victim.username}@new.example.com`, currentPassword: TEST_PASSWORD },
    });
    expect(moved.status).toBe(200);
    await expect
      .poll(async () => (await readOutbox(env.KV, victim.email)).map((m) => m.subject))
      .toContain('The email address of your KeyPanel account was changed');
  });

  it('a webhook endpoint, which receives every new key, needs proof to add or to point elsewhere', async () => {
    const owner = await signedInUser('owner');
    const token = await apiToken(owner.token);
    const hook = { url: 'https://collector.example.com/keys', events: ['key.purchased'] };
    expect((await api('POST', '/api/webhooks', { token: owner.token, body: hook })).body.code).toBe('REAUTH_REQUIRED');
    expect((await api('POST', '/api/webhooks', { token, body: { ...hook, currentPassword: TEST_PASSWORD } })).status).toBe(403);
    expect(await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.url, hook.url)).all()).toEqual([]);
    const made = await api('POST', '/api/webhooks', {
      token: owner.token,
      body: { url: 'https://hooks.example.com/crm', events: ['key.purchased'], currentPassword: TEST_PASSWORD },
    });
    expect(made.status).toBe(201);
    const id = made.body.id;
    try {
      await db().update(webhookEndpoints).set({ enabled: false }).where(eq(webhookEndpoints.id, id));
      const moved = await api('PATCH', `/api/webhooks/${id}`, { token, body: { url: hook.url } });
      expect(moved.status).toBe(403);
      expect((await api('PATCH', `/api/webhooks/${id}`, { token: owner.token, body: { url: hook.url } })).body.code).toBe(
        'REAUTH_REQUIRED',
      );
      // Other changes need none.
      expect((await api('PATCH', `/api/webhooks/${id}`, { token, body: { description: 'CRM' } })).status).toBe(200);
      const row = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
      expect(row?.url).toBe('https://hooks.example.com/crm');
    } finally {
      await db().delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    }
  });

  it('connecting a Google account needs proof', async () => {
    const { token } = await signedInUser();
    const res = await api('POST', '/api/users/connect-google', { token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('REAUTH_REQUIRED');
  });
});

describe('the guard checks the role the handler acts with, in D1', () => {
  it('an owner demoted a moment ago buys nothing at the owner’s terms, and changes no settings', async () => {
    const owner = await signedInUser('owner');
    const customer = await signedInUser('user', { credits: 1_000 });
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    // The demotion as a bare row change: no session ended with it, as when it races the request.
    await db().update(users).set({ role: 'reseller' }).where(eq(users.id, owner.user.id));
    const bought = await api('POST', `/api/admin/users/${customer.user.id}/purchase/${product.id}`, {
      token: owner.token,
      body: { duration: 5, bypassBalance: true },
    });
    expect(bought.status).toBe(403);
    expect((await userRow(customer.user.id))!.credits).toBe(1_000);
    expect((await productRow(product.id))!.totalSold).toBe(0);

    clearSettingsCache();
    const before = await getSettings(env.KV);
    const audits = (await db().select().from(auditLog).where(eq(auditLog.actorId, owner.user.id)).all()).length;
    const changed = await api('PUT', '/api/settings', {
      token: owner.token,
      body: { ...before, usdToCreditRate: before.usdToCreditRate + 1 },
    });
    expect(changed.status).toBe(403);
    clearSettingsCache();
    expect(await getSettings(env.KV)).toEqual(before);
    expect(await db().select().from(auditLog).where(eq(auditLog.actorId, owner.user.id)).all()).toHaveLength(audits);
  });

  it('a sign-in that races a demotion opens no session with the old role', async () => {
    const { user } = await signedInUser('owner');
    const asRead = (await findUserById(db(), user.id))!;
    await db().update(users).set({ role: 'user' }).where(eq(users.id, user.id));
    const origin = { ipAddress: null, userAgent: null, location: null };
    await expect(openSession(env, db(), asRead, origin, false)).rejects.toMatchObject({ status: 401 });
    expect((await liveSessions(user.id)).length).toBe(1);
  });
});

describe('ending every session needs no list', () => {
  it('a reset ends every session and token, including ones opened a moment before', async () => {
    const { user, email, token } = await signedInUser('owner');
    const token2 = await apiToken(token);
    // Opened side by side just before the reset, as from other places.
    const more = await Promise.all(
      Array.from({ length: 8 }, () => api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })),
    );
    const all = [token, ...more.map((m) => String(m.body.token))];
    await api('POST', '/api/auth/forgot-password', { body: { email } });
    const reset = resetTokenFrom((await waitForMail(email))[0])!;
    expect((await api('POST', '/api/auth/reset-password', { body: { token: reset, password: 'Brand-new-secret-7' } })).status).toBe(200);
    for (const ended of [...all, token2]) expect((await api('GET', '/api/admin/keys', { token: ended })).status).toBe(401);
    expect(await db().select().from(sessions).where(eq(sessions.userId, user.id)).all()).toEqual([]);
  });
});

/** The Worker with a hook that runs before each batch of a request's D1 session (its round trips). */
async function callWithHook(hook: () => Promise<void>, request: Request) {
  const DB = new Proxy(env.DB, {
    get(target, prop) {
      if (prop !== 'withSession') return passThrough(target, prop);
      return (constraint: string) => {
        const session = target.withSession(constraint);
        return new Proxy(session, {
          get(s, p) {
            if (p !== 'batch') return passThrough(s, p);
            return async (statements: D1PreparedStatement[]) => {
              await hook();
              return s.batch(statements);
            };
          },
        });
      };
    },
  });
  const ctx = createExecutionContext();
  const res = await app.fetch(request, { ...(env as unknown as Env), DB }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe('an ended session or token writes nothing', () => {
  it('a purchase whose session ends while it is on its way commits nothing', async () => {
    const customer = await signedInUser('user', { credits: 500 });
    const product = await makeProduct({ baseCreditCost: 10, creditsPerDay: 1 });
    // The session ends (signed out elsewhere) after the request was identified, before its batch.
    const res = await callWithHook(
      async () => void (await db().delete(sessions).where(eq(sessions.userId, customer.user.id))),
      new Request('http://localhost/api/keys/purchase', {
        method: 'POST',
        headers: { authorization: `Bearer ${customer.token}`, 'content-type': 'application/json', 'cf-connecting-ip': '10.9.9.9' },
        body: JSON.stringify({ productId: product.id, duration: 3 }),
      }),
    );
    expect(res.status).toBe(401);
    expect((await userRow(customer.user.id))!.credits).toBe(500);
    expect((await productRow(product.id))!.totalSold).toBe(0);
  });

  it('a revoked API token’s write commits nothing, even from an isolate that still remembers it', async () => {
    const owner = await signedInUser('owner');
    const token = await apiToken(owner.token);
    expect((await api('GET', '/api/products', { token })).status).toBe(200);
    const listed = await api('GET', '/api/users/api-tokens', { token: owner.token });
    const id = listed.body.tokens[0]._id;
    expect((await api('DELETE', `/api/users/api-tokens/${id}`, { token: owner.token })).status).toBe(200);
    const name = uniqueName('Revoked');
    const res = await api('POST', '/api/products', { token, body: { name, description: 'x', keyTag: 'RVK', baseCreditCost: 1 } });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('This API token is not valid or has been revoked');
    expect(await db().select().from(products).where(eq(products.name, name)).all()).toEqual([]);
  });
});
