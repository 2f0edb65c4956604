// The owner's settings API and what each setting does that this part of the product owns.
// Every test runs in a settings sandbox, so other test files never see these documents.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, users } from '../../../platform/db/schema';
import { activationLimitMessage, assertWithinActivationLimit } from '../limits';
import document from '../../../../docs/openapi.json';
import { AppError, MAINTENANCE_MESSAGE } from '../../../platform/errors';
import { DEFAULT_SETTINGS } from '../schemas';
import { db, liveSessions, signedInUser, TEST_PASSWORD, uniqueName } from '../../../test/helpers';
import { OWNER_ONLY, roleMatrix, tokenFor } from '../../../test/role-matrix';
import { sandbox } from '../../../test/sandbox';

const changed = {
  ...DEFAULT_SETTINGS,
  usdToCreditRate: 12,
  maxKeysPerGeneration: 250,
  lowBalanceThreshold: 4.5,
  registrationEnabled: false,
};

describe('role matrix over /api/settings', () => {
  for (const [name, method, path, body] of [
    ['GET /api/settings', 'GET', '/api/settings', undefined],
    ['PUT /api/settings', 'PUT', '/api/settings', changed],
    ['POST /api/settings/reset', 'POST', '/api/settings/reset', undefined],
  ] as const) {
    // A sandbox per route, holding a non-default document so a reset would show.
    const boxPromise = sandbox({ settings: { usdToCreditRate: 33 } });
    roleMatrix(
      name,
      {
        call: async (m, p, options) => (await boxPromise).api(m, p, options),
        request: () => ({ method, path, body }),
        state: async () => (await boxPromise).storedSettings(),
        allowed: (res) => expect(Object.keys(res.body).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort()),
      },
      OWNER_ONLY,
    );
  }
});

describe('GET, PUT /api/settings and POST /api/settings/reset', () => {
  it('reads, replaces and resets the whole document, each change audited', async () => {
    const box = await sandbox();
    const token = await tokenFor('owner');
    expect((await box.api('GET', '/api/settings', { token })).body).toEqual(DEFAULT_SETTINGS);

    const put = await box.api('PUT', '/api/settings', { token, body: changed, ip: '192.0.2.44' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(changed);
    expect(box.storedSettings()).toEqual(changed);
    expect((await box.api('GET', '/api/settings', { token })).body).toEqual(changed);
    expect((await box.api('GET', '/api/settings/public', { token })).body).toMatchObject({
      usdToCreditRate: 12,
      lowBalanceThreshold: 4.5,
      registrationEnabled: false,
    });

    const reset = await box.api('POST', '/api/settings/reset', { token });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual(DEFAULT_SETTINGS);
    expect(box.storedSettings()).toEqual(DEFAULT_SETTINGS);

    const rows = await db().select().from(auditLog).where(eq(auditLog.ipAddress, '192.0.2.44')).all();
    expect(rows).toEqual([
      expect.objectContaining({
        action: 'settings.update',
        targetType: 'settings',
        details: {
          changes: {
            usdToCreditRate: { from: 10, to: 12 },
            maxKeysPerGeneration: { from: 100, to: 250 },
            lowBalanceThreshold: { from: 10, to: 4.5 },
            registrationEnabled: { from: true, to: false },
          },
        },
      }),
    ]);
  });

  it.each([
    [{ usdToCreditRate: 0 }, 'usdToCreditRate must be at least 1'],
    [{ usdToCreditRate: 1001 }, 'usdToCreditRate must be at most 1000'],
    [{ usdToCreditRate: 2.5 }, 'usdToCreditRate must be a whole number'],
    [{ maxKeysPerGeneration: 0 }, 'maxKeysPerGeneration must be at least 1'],
    [{ maxKeysPerGeneration: 1001 }, 'maxKeysPerGeneration must be at most 1000'],
    [{ maxActivationsPerKey: 101 }, 'maxActivationsPerKey must be at most 100'],
    [{ defaultDailyDiscount: 91 }, 'defaultDailyDiscount must be at most 90'],
    [{ defaultDailyDiscount: -1 }, 'defaultDailyDiscount must be at least 0'],
    [{ apiRateLimit: 9 }, 'apiRateLimit must be at least 10'],
    [{ apiRateLimit: 10001 }, 'apiRateLimit must be at most 10000'],
    [{ lowBalanceThreshold: -1 }, 'lowBalanceThreshold must be at least 0'],
    [{ lowBalanceThreshold: 2.555 }, 'lowBalanceThreshold must have at most two decimals'],
    [{ keyExpiryGracePeriod: 366 }, 'keyExpiryGracePeriod must be at most 365'],
    [{ maintenanceMode: 'yes' }, 'Invalid input: expected boolean, received string'],
    [{ usdToCreditRate: undefined }, 'usdToCreditRate must be a number'],
    [{ surprise: true }, 'Unrecognized key: "surprise"'],
  ])('rejects %o with "%s" and keeps the document', async (override, message) => {
    const box = await sandbox({ settings: { usdToCreditRate: 7 } });
    const before = box.storedSettings();
    const res = await box.api('PUT', '/api/settings', { token: await tokenFor('owner'), body: { ...DEFAULT_SETTINGS, ...override } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(box.storedSettings()).toEqual(before);
  });

  it('accepts every bound itself', async () => {
    const box = await sandbox();
    const token = await tokenFor('owner');
    const high = {
      ...DEFAULT_SETTINGS,
      usdToCreditRate: 1000,
      maxKeysPerGeneration: 1000,
      maxActivationsPerKey: 100,
      defaultDailyDiscount: 90,
      apiRateLimit: 10000,
      keyExpiryGracePeriod: 365,
      lowBalanceThreshold: 0.01,
    };
    const low = {
      ...DEFAULT_SETTINGS,
      usdToCreditRate: 1,
      maxKeysPerGeneration: 1,
      maxActivationsPerKey: 1,
      defaultDailyDiscount: 0,
      apiRateLimit: 10,
      keyExpiryGracePeriod: 0,
      lowBalanceThreshold: 0,
    };
    expect((await box.api('PUT', '/api/settings', { token, body: high })).body).toEqual(high);
    expect((await box.api('PUT', '/api/settings', { token, body: low })).body).toEqual(low);
  });
});

describe('registrationEnabled', () => {
  it('closes and reopens registration', async () => {
    const box = await sandbox({ settings: { registrationEnabled: false } });
    const username = uniqueName('closed');
    const account = { username, email: `${username}@example.com`, password: 'Sturdy-secret-1' };
    const closed = await box.api('POST', '/api/auth/register', { body: account });
    expect(closed.status).toBe(403);
    expect(closed.body.code).toBe('REGISTRATION_DISABLED');
    expect(await db().select().from(users).where(eq(users.username, username)).all()).toEqual([]);
    await box.api('PUT', '/api/settings', { token: await tokenFor('owner'), body: { ...DEFAULT_SETTINGS, registrationEnabled: true } });
    expect((await box.api('POST', '/api/auth/register', { body: account })).status).toBe(201);
  });
});

type Declared = { operationId: string; 'x-keypanel': { servedInMaintenance: boolean } };

describe('maintenanceMode', () => {
  const maintenance = () => sandbox({ settings: { maintenanceMode: true } });

  it('answers every call of a customer, a reseller or a guest with 503 and the message', async () => {
    const box = await maintenance();
    const customer = await signedInUser('user');
    const reseller = await signedInUser('reseller');
    for (const [path, token] of [
      ['/api/users/profile', customer.token],
      ['/api/settings/public', customer.token],
      ['/api/users/stats', reseller.token],
      ['/api/admin/stats', reseller.token],
      ['/api/users/profile', undefined],
    ] as const) {
      const res = await box.api('GET', path, { token });
      expect(res.status, path).toBe(503);
      expect(res.body).toEqual({ code: 'MAINTENANCE', message: MAINTENANCE_MESSAGE });
    }
  });

  it('refuses writes without changing anything', async () => {
    const box = await maintenance();
    const username = uniqueName('maint');
    const res = await box.api('POST', '/api/auth/register', {
      body: { username, email: `${username}@example.com`, password: 'Sturdy-secret-1' },
    });
    expect(res.status).toBe(503);
    expect(await db().select().from(users).where(eq(users.username, username)).all()).toEqual([]);
  });

  it('keeps serving owners, who can also turn it off', async () => {
    const box = await maintenance();
    const token = await tokenFor('owner');
    expect((await box.api('GET', '/api/users/profile', { token })).status).toBe(200);
    expect((await box.api('GET', '/api/admin/stats', { token })).status).toBe(200);
    const off = await box.api('PUT', '/api/settings', { token, body: DEFAULT_SETTINGS });
    expect(off.status).toBe(200);
    const customer = await signedInUser('user');
    expect((await box.api('GET', '/api/users/profile', { token: customer.token })).status).toBe(200);
  });

  it('checks credentials at sign-in first: owners sign in, others get 503 and no session', async () => {
    const box = await maintenance();
    const owner = await signedInUser('owner');
    const ownerLogin = await box.api('POST', '/api/auth/login', { body: { email: owner.email, password: TEST_PASSWORD } });
    expect(ownerLogin.status).toBe(200);
    expect((await box.api('GET', '/api/users/profile', { token: ownerLogin.body.token })).status).toBe(200);

    const customer = await signedInUser('user');
    const sessionsBefore = await liveSessions(customer.user.id);
    const wrong = await box.api('POST', '/api/auth/login', { body: { email: customer.email, password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_CREDENTIALS');
    const right = await box.api('POST', '/api/auth/login', { body: { email: customer.email, password: TEST_PASSWORD } });
    expect(right.status).toBe(503);
    expect(right.body).toEqual({ code: 'MAINTENANCE', message: MAINTENANCE_MESSAGE });
    expect((await liveSessions(customer.user.id)).map((s) => s.id)).toEqual(sessionsBefore.map((s) => s.id));
  });

  it('leaves the licensing API, the health check and signing out alone', async () => {
    const box = await maintenance();
    const licensing = await box.api('POST', '/api/v1/licenses/validate', { body: {} });
    expect(licensing.status).not.toBe(503);
    expect(licensing.body.code).not.toBe('MAINTENANCE');
    expect((await box.api('GET', '/api/health')).status).toBe(200);
    const customer = await signedInUser('user');
    expect((await box.api('POST', '/api/auth/logout', { token: customer.token })).status).toBe(200);
  });

  it('serves exactly the operations declared for it: licensed apps, sign-in and out, Stripe, health and the reference', () => {
    const served = Object.values(document.paths as unknown as Record<string, Record<string, Declared>>)
      .flatMap((methods) => Object.values(methods))
      .filter((op) => op['x-keypanel'].servedInMaintenance)
      .map((op) => op.operationId)
      .sort();
    expect(served).toEqual(
      [
        'activateLicense',
        'borrowSeat',
        'consumeLicense',
        'deactivateLicense',
        'getApiReference',
        'getHealth',
        'getLicensingPublicKey',
        'getOpenApiDocument',
        'googleCallback',
        'googleComplete',
        'googleSignInUrl',
        'googleStart',
        'login',
        'loginTwoFactor',
        'heartbeatLicense',
        'logout',
        'replaceDevice',
        'startTrial',
        'stripeWebhook',
        'validateLicense',
      ].sort(),
    );
  });
});

describe('maxActivationsPerKey', () => {
  it("bounds a product's maxActivations through the exported rule", () => {
    expect(() => assertWithinActivationLimit({ maxActivationsPerKey: 3 }, 3)).not.toThrow();
    let error: unknown;
    try {
      assertWithinActivationLimit({ maxActivationsPerKey: 3 }, 4);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).body).toEqual({
      code: 'VALIDATION_ERROR',
      message: activationLimitMessage(3),
      details: { field: 'maxActivations' },
    });
  });
});

describe('the audit trail of settings', () => {
  it('records a reset with what it changed', async () => {
    const box = await sandbox({ settings: { maintenanceMode: true, apiRateLimit: 500 } });
    const owner = await signedInUser('owner');
    await box.api('POST', '/api/settings/reset', { token: owner.token });
    const rows = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, owner.user.id), eq(auditLog.action, 'settings.reset')))
      .all();
    expect(rows).toHaveLength(1);
    expect(rows[0].details).toEqual({ changes: { maintenanceMode: { from: true, to: false }, apiRateLimit: { from: 500, to: 100 } } });
  });
});
