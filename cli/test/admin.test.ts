// Administration from a terminal: users, products, purchases for customers, settings and stats.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  createProduct,
  createUser,
  csvRecords,
  json,
  keypanel,
  ownerCredentials,
  ownerSession,
  signedInHome,
  signIn,
  unique,
  type Schemas,
} from './helpers';

let home: string;
beforeAll(async () => {
  home = signedInHome(await ownerSession());
});

describe('keypanel users', () => {
  it("refuses a password the policy refuses, with the API's own words, before sending anything", async () => {
    const username = unique('clipol');
    const create = (password: string) =>
      keypanel(['users', 'create', '--username', username, '--email', `${username}@cli.test`], { home, input: `${password}\n` });
    const common = await create('Qwertyuiop');
    expect(common.code).toBe(2);
    expect(common.stderr).toContain('password: This password is one of the most common passwords');
    const personal = await create(`${username}-2024!`);
    expect(personal.code).toBe(2);
    expect(personal.stderr).toContain('password: Password must not contain the username or email address');
    expect((await apiCall('GET', `/api/admin/users?search=${username}`, { token: await ownerSession() })).body.users).toEqual([]);
  });

  it('creates a user with the password piped in, credits them, finds them and deactivates them', async () => {
    const username = unique('cliuser');
    const email = `${username}@cli.test`;
    const created = await keypanel(
      ['users', 'create', '--username', username, '--email', email, '--role', 'reseller', '--credits', '10', '--format', 'json'],
      // The new user's password on stdin; the owner's, to confirm making a reseller, as a script gives it.
      { home, input: 'Customer123\n', env: { KEYPANEL_PASSWORD: ownerCredentials().password } },
    );
    expect(created.code, created.stderr).toBe(0);
    const user = json<Schemas['User']>(created.stdout);
    expect(user).toMatchObject({ username, email, role: 'reseller', credits: 10, balance: 0, isActive: true });
    expect((await apiCall('POST', '/api/auth/login', { body: { email, password: 'Customer123' } })).status).toBe(200);

    const credits = await keypanel(['users', 'credit', email, '--credits', '250', '--format', 'json'], { home });
    expect(credits.code, credits.stderr).toBe(0);
    expect(json(credits.stdout)).toMatchObject({ _id: user._id, credits: 260 });
    expect(credits.stderr).toContain('Added 250 credits');
    const balance = await keypanel(['users', 'credit', username, '--balance', '19.99', '--format', 'json'], { home });
    expect(json(balance.stdout)).toMatchObject({ balance: 19.99, credits: 260 });

    const listed = await keypanel(['users', 'list', '--search', username, '--format', 'csv'], { home });
    expect(csvRecords(listed.stdout)).toEqual([
      expect.objectContaining({ id: user._id, username, email, role: 'reseller', credits: '260', balance: '19.99', active: 'true' }),
    ]);

    const deactivated = await keypanel(['users', 'deactivate', user._id, '--format', 'json'], { home });
    expect(deactivated.code, deactivated.stderr).toBe(0);
    expect(json<Schemas['User']>(deactivated.stdout).isActive).toBe(false);
    expect((await apiCall('POST', '/api/auth/login', { body: { email, password: 'Customer123' } })).status).toBe(403);
  });

  it('asks proof for an owner, not for a plain user: a wrong KEYPANEL_PASSWORD makes nobody', async () => {
    const create = (username: string, role: string, env: Record<string, string> = {}) =>
      keypanel(['users', 'create', '--username', username, '--email', `${username}@cli.test`, '--role', role, '--format', 'json'], {
        home,
        input: 'Customer123\n',
        env,
      });
    const search = async (username: string) =>
      (await apiCall('GET', `/api/admin/users?search=${username}`, { token: await ownerSession() })).body.users;

    const plain = unique('cliplain');
    const made = await create(plain, 'user');
    expect(made.code, made.stderr).toBe(0);
    expect(json<Schemas['User']>(made.stdout).role).toBe('user');

    const owner = unique('cliowner');
    const wrong = await create(owner, 'owner', { KEYPANEL_PASSWORD: 'not-the-owner-password' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Password is incorrect');
    // Only the new user's password was piped in: nothing is left to confirm with.
    const unanswered = await create(owner, 'owner');
    expect(unanswered.code).toBe(2);
    expect(unanswered.stderr).toContain('Expected the current password on standard input, but it ended.');
    expect(await search(owner)).toEqual([]);
  });

  it('lists every page of users', async () => {
    const result = await keypanel(['users', 'list', '--format', 'json'], { home });
    const all = json<Array<{ _id: string }>>(result.stdout);
    const total = (await apiCall('GET', '/api/admin/users?limit=1', { token: await ownerSession() })).body.total;
    expect(all.length).toBeGreaterThanOrEqual(total);
    expect(new Set(all.map((u) => u._id)).size).toBe(all.length);
  });

  it('refuses an unknown user, and a duplicate with the API message', async () => {
    const missing = await keypanel(['users', 'credit', 'nobody-here@cli.test', '--credits', '5'], { home });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No user with the email or username "nobody-here@cli.test".');
    const existing = await createUser('user');
    const duplicate = await keypanel(['users', 'create', '--username', unique('dup'), '--email', existing.email], {
      home,
      input: 'Another123\n',
    });
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/Error: .*(email|Email)/);
  });
});

describe('keypanel products', () => {
  it('creates, updates and lists a product', async () => {
    const keyTag = unique('P')
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(-10);
    const created = await keypanel(
      [
        'products',
        'create',
        '--name',
        'CLI, "Deluxe"',
        '--description',
        'Made from the CLI',
        '--key-tag',
        keyTag.toLowerCase(),
        '--base-cost',
        '20',
        '--per-day',
        '2',
        '--features',
        'Export, Sync ,',
        '--format',
        'json',
      ],
      { home },
    );
    expect(created.code, created.stderr).toBe(0);
    const product = json<Schemas['Product']>(created.stdout);
    expect(product).toMatchObject({
      name: 'CLI, "Deluxe"',
      keyTag,
      baseCreditCost: 20,
      creditsPerDay: 2,
      minDays: 1,
      maxDays: 365,
      isActive: true,
      features: ['Export', 'Sync'],
    });

    expect(product.offlineTokenHours).toBe(24);

    const updated = await keypanel(
      ['products', 'update', keyTag, '--per-day', '4', '--inactive', '--offline-token-hours', '72', '--format', 'json'],
      { home },
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(json(updated.stdout)).toMatchObject({
      _id: product._id,
      creditsPerDay: 4,
      isActive: false,
      baseCreditCost: 20,
      features: ['Export', 'Sync'],
      description: 'Made from the CLI',
      offlineTokenHours: 72,
    });
    // Another change keeps the lifetime.
    expect(
      json<Schemas['Product']>((await keypanel(['products', 'update', keyTag, '--per-day', '5', '--format', 'json'], { home })).stdout)
        .offlineTokenHours,
    ).toBe(72);
    const tooLong = await keypanel(['products', 'update', keyTag, '--offline-token-hours', '721'], { home });
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('--offline-token-hours must be at most 720');

    const listed = await keypanel(['products', 'list', '--format', 'csv'], { home });
    const row = csvRecords(listed.stdout).find((r) => r.id === product._id);
    expect(row).toMatchObject({
      name: 'CLI, "Deluxe"',
      keyTag,
      active: 'false',
      creditsPerDay: '5',
      offlineTokenHours: '72',
      features: 'Export, Sync',
      totalSold: '0',
      revenue: '0',
    });

    // The server's own rules come back as its message: more devices than the settings allow.
    const { maxActivationsPerKey } = json<Schemas['Settings']>((await keypanel(['settings', 'get', '--format', 'json'], { home })).stdout);
    const tooMany = await keypanel(['products', 'update', keyTag, '--max-activations', String(maxActivationsPerKey + 1)], { home });
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain(`Error: Max activations must be at most ${maxActivationsPerKey}`);

    const clash = await keypanel(['products', 'create', '--name', 'Other', '--description', 'x', '--key-tag', keyTag, '--base-cost', '1'], {
      home,
    });
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('Error:');
  });

  it('neutralises spreadsheet formulas in a CSV export', async () => {
    const product = await createProduct({ name: '=HYPERLINK("http://evil.test","Open")', description: '@SUM(1+1)' });
    const listed = await keypanel(['products', 'list', '--format', 'csv'], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`"'=HYPERLINK(""http://evil.test"",""Open"")"`);
    expect(csvRecords(listed.stdout).find((r) => r.id === product._id)).toMatchObject({ name: `'=HYPERLINK("http://evil.test","Open")` });
  });
});

describe('keypanel products list as a customer or reseller', () => {
  it('lists the catalogue without keys sold and revenue, which are the owner’s', async () => {
    const product = await createProduct();
    for (const role of ['user', 'reseller'] as const) {
      const account = await createUser(role);
      const own = signedInHome(await signIn({ email: account.email, password: account.password }));
      const listed = await keypanel(['products', 'list', '--format', 'csv'], { home: own });
      expect(listed.code, listed.stderr).toBe(0);
      const row = csvRecords(listed.stdout).find((r) => r.id === product._id)!;
      expect(row).toMatchObject({ keyTag: product.keyTag, totalGenerated: '0' });
      expect(row).not.toHaveProperty('revenue');
      expect(row).not.toHaveProperty('totalSold');
      const table = await keypanel(['products', 'list'], { home: own });
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toContain(product.keyTag);
    }
  });
});

describe('keypanel purchase', () => {
  it('charges the customer, or nobody with --free, and prints the key', async () => {
    const customer = await createUser('user', { credits: 100 });
    const product = await createProduct({ baseCreditCost: 10, creditsPerDay: 2 });
    const paid = await keypanel(['purchase', '--user', customer.username, '--product', product.keyTag, '--days', '5', '--format', 'json'], {
      home,
    });
    expect(paid.code, paid.stderr).toBe(0);
    const answer = json<Schemas['PurchaseForUserResponse']>(paid.stdout);
    expect(answer.licenseKey).toMatchObject({ product: product.name, duration: 5, cost: 20, purchasedBy: { username: customer.username } });
    expect(answer.remainingCredits).toBe(80);
    const free = await keypanel(
      ['purchase', '--user', customer.email, '--product', product._id, '--days', '5', '--free', '--format', 'json'],
      { home },
    );
    expect(json<Schemas['PurchaseForUserResponse']>(free.stdout).remainingCredits).toBeNull();
    const profile = await apiCall('GET', `/api/admin/users/${customer.id}`, { token: await ownerSession() });
    expect(profile.body.user.credits).toBe(80);
    const tooLong = await keypanel(['purchase', '--user', customer.email, '--product', product.keyTag, '--days', '400'], { home });
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain('Error:');
  });
});

describe('keypanel settings and stats', () => {
  it('reads one setting bare, changes two, and keeps the rest', async () => {
    const before = json<Schemas['Settings']>((await keypanel(['settings', 'get', '--format', 'json'], { home })).stdout);
    const rate = await keypanel(['settings', 'get', 'usdToCreditRate'], { home });
    expect(rate.stdout).toBe(`${before.usdToCreditRate}\n`);
    const set = await keypanel(['settings', 'set', 'defaultDailyDiscount=20', 'notifyLowBalance=false', '--format', 'json'], { home });
    expect(set.code, set.stderr).toBe(0);
    // Only what changed, as saved.
    expect(json(set.stdout)).toEqual({ defaultDailyDiscount: 20, notifyLowBalance: false });
    const restore = await keypanel(
      ['settings', 'set', `defaultDailyDiscount=${before.defaultDailyDiscount}`, `notifyLowBalance=${before.notifyLowBalance}`],
      { home },
    );
    expect(restore.code).toBe(0);
    // The idle limit for sessions is a setting like the others.
    expect(before.sessionIdleDays).toBe(7);
    const idle = await keypanel(['settings', 'set', 'sessionIdleDays=3', '--format', 'json'], { home });
    expect(json(idle.stdout)).toEqual({ sessionIdleDays: 3 });
    const tooLong = await keypanel(['settings', 'set', 'sessionIdleDays=91'], { home });
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('sessionIdleDays must be at most 90');
    expect((await keypanel(['settings', 'set', 'sessionIdleDays=7'], { home })).code).toBe(0);
  });

  it('shows the admin figures, and a plain user their own', async () => {
    const stats = await keypanel(['stats', '--format', 'json'], { home });
    expect(stats.code, stats.stderr).toBe(0);
    const figures = json<Schemas['AdminStats']>(stats.stdout);
    expect(figures.totalUsers).toBeGreaterThan(0);
    expect(Object.keys(figures.keysByStatus).sort()).toEqual(['available', 'expired', 'revoked', 'used']);
    const table = await keypanel(['stats', '--format', 'table'], { home });
    expect(table.stdout).toMatch(/^totalUsers\s+\d+$/m);
    expect(table.stdout).toMatch(/^users\.owner\s+\d+$/m);

    const user = await createUser('user');
    const login = await apiCall('POST', '/api/auth/login', { body: { email: user.email, password: user.password } });
    const own = await keypanel(['stats', '--format', 'json'], { home: signedInHome(login.body.token!) });
    expect(own.code, own.stderr).toBe(0);
    expect(json(own.stdout)).toMatchObject({ totalKeys: 0 });
  });
});
