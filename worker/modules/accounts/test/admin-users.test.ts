import { env } from 'cloudflare:test';
import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, ledger, licenseKeys, securityLog, users } from '../../../platform/db/schema';
import { newId } from '../../../platform/ids';
import { api, db, signedInUser, TEST_PASSWORD, uniqueName, unreconciledUsers } from '../../../test/helpers';
import { OWNER_ONLY, RESELLER_AND_OWNER, roleMatrix, tokenFor, type MatrixRequest } from '../../../test/role-matrix';
import { sandbox } from '../../../test/sandbox';

const ownerToken = () => tokenFor('owner');

/** A plain customer to act on, created directly in the database. */
async function customer(extra: { credits?: number; balanceCents?: number } = {}) {
  return (await signedInUser('user', extra)).user;
}

/** Everything an admin write to this user could change. */
async function userState(id: string) {
  const [row, ledgerRows, auditRows] = await Promise.all([
    db().select().from(users).where(eq(users.id, id)).get(),
    db().select().from(ledger).where(eq(ledger.userId, id)).orderBy(asc(ledger.id)).all(),
    db().select().from(auditLog).where(eq(auditLog.targetId, id)).orderBy(asc(auditLog.id)).all(),
  ]);
  return { row, ledgerRows, auditRows };
}

const idFromPath = (r: MatrixRequest) => r.path.split('/')[4];

const newAccount = () => {
  const username = uniqueName('made');
  return { username, email: `${username}@example.com`, password: 'Sturdy-secret-1', role: 'user' as const, balance: 12.34, credits: 50 };
};

describe('role matrix over /api/admin/users', () => {
  roleMatrix(
    'GET /api/admin/users',
    {
      request: () => ({ method: 'GET', path: '/api/admin/users?limit=5' }),
      state: () => null,
      allowed: (res, caller) => {
        expect(res.body.users.length).toBeGreaterThan(0);
        const keys =
          caller === 'owner'
            ? ['_id', 'username', 'email', 'role', 'balance', 'credits', 'isActive', 'createdAt', 'lastLogin']
            : ['_id', 'username', 'email', 'role'];
        for (const key of keys) expect(res.body.users[0]).toHaveProperty(key);
        if (caller !== 'owner') expect(Object.keys(res.body.users[0]).sort()).toEqual(['_id', 'email', 'role', 'username']);
        // A reseller sees only the customers they may buy for (issue 42).
        if (caller !== 'owner') expect(new Set(res.body.users.map((u) => u.role))).toEqual(new Set(['user']));
      },
    },
    RESELLER_AND_OWNER,
  );

  roleMatrix(
    'POST /api/admin/users',
    {
      request: () => ({ method: 'POST', path: '/api/admin/users', body: { ...newAccount(), currentPassword: TEST_PASSWORD } }),
      state: async (r) =>
        db()
          .select()
          .from(users)
          .where(eq(users.email, (r.body as { email: string }).email))
          .all(),
      allowed: (res) => expect(res.status).toBe(201),
    },
    OWNER_ONLY,
  );

  roleMatrix(
    'GET /api/admin/users/{id}',
    {
      request: async () => ({ method: 'GET', path: `/api/admin/users/${(await customer()).id}` }),
      state: async (r) => userState(idFromPath(r)),
      allowed: (res, _caller, r) => expect(res.body.user._id).toBe(idFromPath(r)),
    },
    OWNER_ONLY,
  );

  roleMatrix(
    'PUT /api/admin/users/{id}',
    {
      request: async () => ({
        method: 'PUT',
        path: `/api/admin/users/${(await customer()).id}`,
        body: { role: 'reseller', credits: 99, balance: 5, isActive: false, currentPassword: TEST_PASSWORD },
      }),
      state: async (r) => userState(idFromPath(r)),
      allowed: (res) => expect(res.body.user).toMatchObject({ role: 'reseller', credits: 99, balance: 5, isActive: false }),
    },
    OWNER_ONLY,
  );

  roleMatrix(
    'POST /api/admin/users/{id}/balance',
    {
      request: async () => ({
        method: 'POST',
        path: `/api/admin/users/${(await customer()).id}/balance`,
        body: { amount: 25, type: 'credits' },
      }),
      state: async (r) => userState(idFromPath(r)),
      allowed: (res) => expect(res.body.user.credits).toBe(25),
    },
    OWNER_ONLY,
  );

  roleMatrix(
    'DELETE /api/admin/users/{id}',
    {
      request: async () => ({ method: 'DELETE', path: `/api/admin/users/${(await customer({ credits: 3 })).id}` }),
      state: async (r) => userState(idFromPath(r)),
      allowed: async (_res, _caller, r) => expect((await userState(idFromPath(r))).row).toBeUndefined(),
    },
    OWNER_ONLY,
  );
});

describe('role matrix over the Overview routes', () => {
  roleMatrix(
    'GET /api/admin/stats',
    {
      request: () => ({ method: 'GET', path: '/api/admin/stats' }),
      state: () => null,
      allowed: (res) => {
        expect(Object.keys(res.body).sort()).toEqual([
          'keysByStatus',
          'recentActivity',
          'totalKeys',
          'totalProducts',
          'totalRevenue',
          'totalUsers',
          'usersByRole',
        ]);
        expect(Object.keys(res.body.recentActivity).sort()).toEqual(['keys', 'users']);
      },
    },
    RESELLER_AND_OWNER,
  );

  roleMatrix(
    'GET /api/admin/audit-log',
    {
      request: () => ({ method: 'GET', path: '/api/admin/audit-log?limit=3' }),
      state: () => null,
      allowed: (res) => {
        expect(res.body.entries.length).toBeLessThanOrEqual(3);
        expect(res.body).toHaveProperty('totalPages');
      },
    },
    OWNER_ONLY,
  );
});

describe('GET /api/admin/users', () => {
  it('searches by username or email prefix, case-insensitively, with the role filter and pages', async () => {
    const stem = uniqueName('srch');
    const token = await ownerToken();
    const made = [];
    for (const [i, role] of (['user', 'user', 'reseller'] as const).entries()) {
      const body = { ...newAccount(), username: `${stem}${i}`, email: `mail${i}${stem}@example.com`, role };
      made.push((await api('POST', '/api/admin/users', { token, body: { ...body, currentPassword: TEST_PASSWORD } })).body.user);
    }
    const byName = await api('GET', `/api/admin/users?search=${stem.toUpperCase()}&limit=2`, { token });
    expect(byName.status).toBe(200);
    expect(byName.body.total).toBe(3);
    expect(byName.body.totalPages).toBe(2);
    // Newest first.
    expect(byName.body.users.map((u: { username: string }) => u.username)).toEqual([`${stem}2`, `${stem}1`]);
    const page2 = await api('GET', `/api/admin/users?search=${stem}&limit=2&page=2`, { token });
    expect(page2.body.users.map((u: { username: string }) => u.username)).toEqual([`${stem}0`]);

    const byEmail = await api('GET', `/api/admin/users?search=mail1${stem}`, { token });
    expect(byEmail.body.users.map((u: { _id: string }) => u._id)).toEqual([made[1]._id]);
    // A prefix, not a substring: the middle of a name finds nothing.
    const middle = await api('GET', `/api/admin/users?search=${stem.slice(2)}`, { token });
    expect(middle.body.users.filter((u: { username: string }) => u.username.startsWith(stem))).toEqual([]);

    const resellers = await api('GET', `/api/admin/users?search=${stem}&role=reseller`, { token });
    expect(resellers.body.users.map((u: { username: string }) => u.username)).toEqual([`${stem}2`]);
    const emptyRole = await api('GET', `/api/admin/users?search=${stem}&role=`, { token });
    expect(emptyRole.body.total).toBe(3);
  });

  it('serves the search from the username and email indexes', async () => {
    const plan = await env.DB.prepare(
      `EXPLAIN QUERY PLAN SELECT * FROM users WHERE (lower(username) >= ?1 AND lower(username) < ?2) OR (email >= ?1 AND email < ?2)`,
    )
      .bind('abc', 'abc\u{10FFFF}')
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail).join('\n');
    expect(details).toContain('users_username_unique');
    expect(details).toContain('users_email_unique');
    expect(details).not.toMatch(/SCAN users(?! USING)/);
  });

  it("answers a reseller's lookups with the customers they may buy for only: never an owner's or a reseller's address (issue 42)", async () => {
    for (const ownCustomersOnly of [false, true]) {
      const box = await sandbox({ settings: { resellersSellToOwnCustomersOnly: ownCustomersOnly } });
      const reseller = await box.signedInUser('reseller');
      const theirs = await box.signedInUser('user');
      await box.db.update(users).set({ resellerId: reseller.user.id }).where(eq(users.id, theirs.user.id));
      const someoneElses = await box.signedInUser('user');
      const owner = await box.signedInUser('owner');
      const otherReseller = await box.signedInUser('reseller');
      const found = async (search: string, role?: string) => {
        const res = await box.api('GET', `/api/admin/users?search=${encodeURIComponent(search)}${role ? `&role=${role}` : ''}`, {
          token: reseller.token,
        });
        expect(res.status).toBe(200);
        return (res.body.users as Array<{ _id: string; role: string }>).map((u) => u._id);
      };
      expect(await found(theirs.username)).toEqual([theirs.user.id]);
      expect(await found(someoneElses.username)).toEqual(ownCustomersOnly ? [] : [someoneElses.user.id]);
      for (const hidden of [owner, otherReseller, reseller]) {
        expect(await found(hidden.username), hidden.username).toEqual([]);
        expect(await found(hidden.email), hidden.email).toEqual([]);
        expect(await found(hidden.username, hidden.user.role), hidden.username).toEqual([]);
      }
      // What the list offers is what the purchase accepts: the owner still finds everyone.
      const asOwner = await box.api('GET', `/api/admin/users?search=${encodeURIComponent(otherReseller.username)}`, { token: owner.token });
      expect(asOwner.body.users).toHaveLength(1);
    }
  });

  it('shows resellers active accounts only, with names, emails and roles', async () => {
    const { user } = await signedInUser('user');
    const token = await ownerToken();
    await api('PUT', `/api/admin/users/${user.id}`, { token, body: { isActive: false } });
    const asReseller = await api('GET', `/api/admin/users?search=${user.username}`, { token: await tokenFor('reseller') });
    expect(asReseller.body).toEqual({ users: [], totalPages: 0, total: 0 });
    const asOwner = await api('GET', `/api/admin/users?search=${user.username}`, { token });
    expect(asOwner.body.users).toHaveLength(1);
  });

  it.each([
    ['limit=101', 'limit must be at most 100'],
    ['limit=0', 'limit must be at least 1'],
    ['page=0', 'page must be at least 1'],
    ['page=abc', 'page must be a number'],
    ['role=admin', 'Role must be user, reseller or owner'],
    [`search=${'x'.repeat(101)}`, 'search must be at most 100 characters'],
  ])('rejects %s with "%s"', async (query, message) => {
    const res = await api('GET', `/api/admin/users?${query}`, { token: await ownerToken() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
  });
});

describe('POST /api/admin/users', () => {
  it('creates the account with its opening balances in the ledger, audited, able to sign in', async () => {
    const token = await ownerToken();
    const account = { ...newAccount(), role: 'reseller' as const };
    const res = await api('POST', '/api/admin/users', { token, body: { ...account, currentPassword: TEST_PASSWORD }, ip: '203.0.113.7' });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({
      username: account.username,
      email: account.email,
      role: 'reseller',
      balance: 12.34,
      credits: 50,
      isActive: true,
    });
    const id = res.body.user._id;
    const state = await userState(id);
    expect(state.row).toMatchObject({ balanceCents: 1234, credits: 50 });
    expect(state.ledgerRows).toEqual([expect.objectContaining({ kind: 'opening_balance', creditsDelta: 50, usdCentsDelta: 1234 })]);
    expect(state.auditRows).toEqual([expect.objectContaining({ action: 'user.create', targetType: 'user', ipAddress: '203.0.113.7' })]);
    expect(state.auditRows[0].details).toMatchObject({ username: account.username, role: 'reseller', balance: 12.34, credits: 50 });
    const login = await api('POST', '/api/auth/login', { body: { email: account.email, password: account.password } });
    expect(login.status).toBe(200);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('defaults role, balance and credits', async () => {
    const { role: _r, balance: _b, credits: _c, ...account } = newAccount();
    const res = await api('POST', '/api/admin/users', { token: await ownerToken(), body: { ...account, currentPassword: TEST_PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ role: 'user', balance: 0, credits: 0, isActive: true });
    expect((await userState(res.body.user._id)).ledgerRows).toEqual([]);
  });

  it('creates an inactive account that cannot sign in', async () => {
    const account = { ...newAccount(), isActive: false };
    expect(
      (await api('POST', '/api/admin/users', { token: await ownerToken(), body: { ...account, currentPassword: TEST_PASSWORD } })).status,
    ).toBe(201);
    const login = await api('POST', '/api/auth/login', { body: { email: account.email, password: account.password } });
    expect(login.status).toBe(403);
  });

  it.each([
    [{ username: undefined }, 'Username is required'],
    [{ username: 'ab' }, 'Username must be at least 3 characters'],
    [{ email: 'nope' }, 'Please enter a valid email address'],
    [{ email: undefined }, 'Email is required'],
    [{ password: undefined }, 'Password is required'],
    [{ password: '12345' }, 'Password must be at least 10 characters long'],
    [{ role: 'admin' }, 'Role must be user, reseller or owner'],
    [{ balance: -1 }, 'Balance must be at least 0'],
    [{ balance: 1.234 }, 'Balance must have at most two decimals'],
    [{ balance: '5' }, 'Balance must be a number'],
    [{ credits: 1.5 }, 'Credits must be a whole number'],
    [{ credits: -3 }, 'Credits must be at least 0'],
    [{ credits: 1_000_000_001 }, 'Credits must be at most 1000000000'],
  ])('rejects %o with "%s" and creates nothing', async (override, message) => {
    const account = { ...newAccount(), ...override };
    const res = await api('POST', '/api/admin/users', { token: await ownerToken(), body: { ...account, currentPassword: TEST_PASSWORD } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    if (typeof account.email === 'string') expect(await db().select().from(users).where(eq(users.email, account.email)).all()).toEqual([]);
  });

  it('refuses a taken email or username with 409', async () => {
    const { user } = await signedInUser('user');
    const token = await ownerToken();
    const sameEmail = await api('POST', '/api/admin/users', {
      token,
      body: { ...newAccount(), email: user.email.toUpperCase(), currentPassword: TEST_PASSWORD },
    });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body.message).toBe('An account with this email already exists');
    const sameName = await api('POST', '/api/admin/users', {
      token,
      body: { ...newAccount(), username: user.username.toUpperCase(), currentPassword: TEST_PASSWORD },
    });
    expect(sameName.status).toBe(409);
    expect(sameName.body.message).toBe('This username is already taken');
  });
});

describe('GET /api/admin/users/{id}', () => {
  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const token = await ownerToken();
    const unknown = await api('GET', `/api/admin/users/${newId()}`, { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'NOT_FOUND', message: 'User not found' });
    const malformed = await api('GET', '/api/admin/users/not-an-id', { token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('Invalid user id');
  });
});

describe('PUT /api/admin/users/{id}', () => {
  it('changes the fields given and records the change', async () => {
    const target = await customer();
    const username = uniqueName('renamed');
    const res = await api('PUT', `/api/admin/users/${target.id}`, {
      token: await ownerToken(),
      body: { username, email: `${username}@Example.com`, role: 'reseller', currentPassword: TEST_PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ username, email: `${username}@example.com`, role: 'reseller', isActive: true });
    const { auditRows, ledgerRows } = await userState(target.id);
    expect(ledgerRows).toEqual([]);
    expect(auditRows).toHaveLength(1);
    expect(auditRows[0]).toMatchObject({
      action: 'user.update',
      details: {
        username: target.username,
        changes: { username: { from: target.username, to: username }, role: { from: 'user', to: 'reseller' } },
      },
    });
  });

  it('sets absolute balances through a ledger adjustment of the exact difference', async () => {
    const target = await customer({ credits: 40, balanceCents: 1000 });
    const res = await api('PUT', `/api/admin/users/${target.id}`, { token: await ownerToken(), body: { credits: 15, balance: 20.5 } });
    expect(res.body.user).toMatchObject({ credits: 15, balance: 20.5 });
    const { ledgerRows } = await userState(target.id);
    expect(ledgerRows.filter((r) => r.kind === 'admin_adjustment')).toEqual([
      expect.objectContaining({ creditsDelta: -25, usdCentsDelta: 1050 }),
    ]);
    // The same values again move nothing and add no ledger row.
    await api('PUT', `/api/admin/users/${target.id}`, { token: await ownerToken(), body: { credits: 15, balance: 20.5 } });
    expect((await userState(target.id)).ledgerRows).toHaveLength(ledgerRows.length);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('reconciles when a purchase lands between the form loading and saving', async () => {
    const target = await customer({ credits: 100 });
    const token = await ownerToken();
    const loaded = (await api('GET', `/api/admin/users/${target.id}`, { token })).body.user;
    expect(loaded.credits).toBe(100);
    // A purchase debits 30 credits after the form loaded (its ledger row takes them as it goes in).
    await db()
      .insert(ledger)
      .values({ id: newId(), userId: target.id, actorId: target.id, kind: 'purchase', creditsDelta: -30, createdAt: new Date() });
    // The owner saves the form with the credits set to 120, as loaded plus 20.
    const saved = await api('PUT', `/api/admin/users/${target.id}`, {
      token,
      body: {
        ...loaded,
        _id: undefined,
        createdAt: undefined,
        lastLogin: undefined,
        twoFactorEnabled: undefined,
        googleConnected: undefined,
        credits: 120,
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.user.credits).toBe(120);
    const { ledgerRows } = await userState(target.id);
    // The adjustment is 120 - 70, measured inside the batch, not 120 - 100 from the form.
    expect(ledgerRows.filter((r) => r.kind === 'admin_adjustment')).toEqual([
      expect.objectContaining({ creditsDelta: 50, usdCentsDelta: 0 }),
    ]);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it('reconciles under many concurrent edits and debits', async () => {
    const target = await customer({ credits: 1000, balanceCents: 50_000 });
    const token = await ownerToken();
    // A purchase's ledger row takes its credits as it goes in.
    const debit = (n: number) =>
      db()
        .insert(ledger)
        .values({ id: newId(), userId: target.id, actorId: target.id, kind: 'purchase', creditsDelta: -n, createdAt: new Date() });
    const edits = Array.from({ length: 10 }, (_, i) =>
      api('PUT', `/api/admin/users/${target.id}`, { token, body: { credits: 500 + i, balance: 100 + i } }),
    );
    const debits = Array.from({ length: 10 }, () => debit(1));
    const results = await Promise.all([...edits, ...debits.map((p) => p.then(() => null))]);
    for (const res of results.slice(0, 10)) expect((res as { status: number }).status).toBe(200);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it("deactivating ends the account's sessions and logs it", async () => {
    const { user, token: theirToken } = await signedInUser('user');
    expect((await api('GET', '/api/users/profile', { token: theirToken })).status).toBe(200);
    const res = await api('PUT', `/api/admin/users/${user.id}`, { token: await ownerToken(), body: { isActive: false } });
    expect(res.body.user.isActive).toBe(false);
    expect((await api('GET', '/api/users/profile', { token: theirToken })).status).toBe(401);
    const login = await api('POST', '/api/auth/login', { body: { email: user.email, password: TEST_PASSWORD } });
    expect(login.status).toBe(403);
    const events = await db()
      .select()
      .from(securityLog)
      .where(and(eq(securityLog.userId, user.id), eq(securityLog.event, 'account_deactivated')))
      .all();
    expect(events).toHaveLength(1);
    // Reactivated, the account signs in again.
    await api('PUT', `/api/admin/users/${user.id}`, { token: await ownerToken(), body: { isActive: true } });
    expect((await api('POST', '/api/auth/login', { body: { email: user.email, password: TEST_PASSWORD } })).status).toBe(200);
  });

  it.each([
    [{}, 'Nothing to update'],
    [{ username: 'a b c' }, 'Username may contain only letters, numbers, dots, dashes and underscores'],
    [{ email: 'x@' }, 'Please enter a valid email address'],
    [{ role: 'root' }, 'Role must be user, reseller or owner'],
    [{ balance: -0.01 }, 'Balance must be at least 0'],
    [{ credits: 2.5 }, 'Credits must be a whole number'],
    [{ isActive: 'yes' }, 'isActive must be true or false'],
  ])('rejects %o with "%s" and changes nothing', async (body, message) => {
    const target = await customer({ credits: 5 });
    const before = await userState(target.id);
    const res = await api('PUT', `/api/admin/users/${target.id}`, { token: await ownerToken(), body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(await userState(target.id)).toEqual(before);
  });

  it("refuses another account's email or username with 409 and changes nothing", async () => {
    const [target, other] = [await customer(), await customer()];
    const before = await userState(target.id);
    const token = await ownerToken();
    const email = await api('PUT', `/api/admin/users/${target.id}`, {
      token,
      body: { email: other.email, credits: 7, currentPassword: TEST_PASSWORD },
    });
    expect(email.status).toBe(409);
    const name = await api('PUT', `/api/admin/users/${target.id}`, { token, body: { username: other.username.toUpperCase() } });
    expect(name.status).toBe(409);
    expect(await userState(target.id)).toEqual(before);
    // Its own name in other letter case is not a clash.
    const own = await api('PUT', `/api/admin/users/${target.id}`, { token, body: { username: target.username.toUpperCase() } });
    expect(own.status).toBe(200);
  });

  it('answers 404 for an unknown user', async () => {
    const res = await api('PUT', `/api/admin/users/${newId()}`, { token: await ownerToken(), body: { credits: 1 } });
    expect(res.status).toBe(404);
  });
});

describe('POST /api/admin/users/{id}/balance', () => {
  it('adds credits or USD with a ledger row and an audit row', async () => {
    const target = await customer({ credits: 10, balanceCents: 100 });
    const token = await ownerToken();
    const credits = await api('POST', `/api/admin/users/${target.id}/balance`, { token, body: { amount: 15, type: 'credits' } });
    expect(credits.status).toBe(200);
    expect(credits.body).toMatchObject({ user: { credits: 25, balance: 1 }, message: 'Added 15 credits' });
    const usd = await api('POST', `/api/admin/users/${target.id}/balance`, { token, body: { amount: 2.5, type: 'balance' } });
    expect(usd.body).toMatchObject({ user: { credits: 25, balance: 3.5 }, message: 'Added $2.50 to the balance' });
    const { ledgerRows, auditRows } = await userState(target.id);
    const topUps = ledgerRows.filter((r) => r.kind === 'admin_top_up').map((r) => [r.creditsDelta, r.usdCentsDelta]);
    expect(topUps.sort()).toEqual([
      [0, 250],
      [15, 0],
    ]);
    expect(auditRows.map((a) => [a.action, a.details]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      ['user.add_funds', { username: target.username, type: 'balance', amount: 2.5 }],
      ['user.add_funds', { username: target.username, type: 'credits', amount: 15 }],
    ]);
  });

  it('adds exactly under concurrency', async () => {
    const target = await customer();
    const token = await ownerToken();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api('POST', `/api/admin/users/${target.id}/balance`, { token, body: { amount: 3, type: 'credits' } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect((await userState(target.id)).row?.credits).toBe(60);
    expect(await unreconciledUsers()).toEqual([]);
  });

  it.each([
    [{ type: 'credits' }, 'Amount is required'],
    [{ amount: 0, type: 'balance' }, 'Amount must be at least 0.01'],
    [{ amount: 0.001, type: 'balance' }, 'Amount must be at least 0.01'],
    [{ amount: 1.005, type: 'balance' }, 'Amount must have at most two decimals'],
    [{ amount: 0, type: 'credits' }, 'Amount must be at least 1'],
    [{ amount: 1.5, type: 'credits' }, 'Amount must be a whole number'],
    [{ amount: -5, type: 'credits' }, 'Amount must be at least 1'],
    [{ amount: 5, type: 'gold' }, 'Type must be balance or credits'],
  ])('rejects %o with "%s" and changes nothing', async (body, message) => {
    const target = await customer({ credits: 5 });
    const before = await userState(target.id);
    const res = await api('POST', `/api/admin/users/${target.id}/balance`, { token: await ownerToken(), body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(await userState(target.id)).toEqual(before);
  });

  it('answers 404 for an unknown user and writes nothing', async () => {
    const id = newId();
    const res = await api('POST', `/api/admin/users/${id}/balance`, { token: await ownerToken(), body: { amount: 5, type: 'credits' } });
    expect(res.status).toBe(404);
    expect(await db().select().from(ledger).where(eq(ledger.userId, id)).all()).toEqual([]);
    expect(await db().select().from(auditLog).where(eq(auditLog.targetId, id)).all()).toEqual([]);
  });
});

describe('DELETE /api/admin/users/{id}', () => {
  it('deletes the account, ends its sessions, and keeps its keys and ledger', async () => {
    const { user, token: theirToken } = await signedInUser('user', { credits: 30 });
    const keyId = newId();
    await db()
      .insert(licenseKeys)
      .values({
        id: keyId,
        key: `DEL-${keyId}`,
        status: 'used',
        productId: newId(),
        productName: 'Kept Product',
        productKeyTag: 'KEPT',
        productType: 'software',
        duration: 30,
        maxActivations: 1,
        purchasedBy: user.id,
        createdBy: user.id,
        purchasedAt: new Date(),
        createdAt: new Date(),
      });
    const res = await api('DELETE', `/api/admin/users/${user.id}`, { token: await ownerToken() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'User deleted successfully' });
    expect((await api('GET', '/api/users/profile', { token: theirToken })).status).toBe(401);
    const state = await userState(user.id);
    expect(state.row).toBeUndefined();
    expect(state.ledgerRows).toEqual([expect.objectContaining({ kind: 'opening_balance', creditsDelta: 30 })]);
    expect(state.auditRows.find((a) => a.action === 'user.delete')).toMatchObject({ details: { username: user.username, credits: 30 } });
    expect(await db().select().from(licenseKeys).where(eq(licenseKeys.id, keyId)).get()).toMatchObject({ purchasedBy: user.id });
    expect((await api('DELETE', `/api/admin/users/${user.id}`, { token: await ownerToken() })).status).toBe(404);
  });
});
