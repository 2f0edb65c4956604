// The fuzz test's world: callers of each role, a few things for them to act on, and a snapshot of
// everything a refused request must leave alone. It lives in FUZZ_DB, which no other file touches,
// so a difference between two snapshots was made by the fuzz test's own request.
import { env } from 'cloudflare:test';
import { clearSettingsCache } from '../../modules/settings/store';
import { DEFAULT_SETTINGS } from '../../modules/settings/schemas';
import { TEST_PASSWORD } from '../helpers';
import { sandbox, type Sandbox } from '../sandbox';
import { uniqueTag } from '../shop-helpers';

export const ROLES = ['user', 'reseller', 'owner'] as const;
export type Caller = (typeof ROLES)[number] | 'ownerApiToken' | 'none' | 'badSession' | 'badApiToken';
export const CALLERS: Caller[] = [...ROLES, 'ownerApiToken', 'none', 'badSession', 'badApiToken'];

// Many devices per key, so activations are not all refused for the limit.
const FUZZ_SETTINGS = { ...DEFAULT_SETTINGS, maxActivationsPerKey: 100 };

/**
 * Tables a refused request must not change, and columns left out of the comparison: background
 * touches a request may make whatever its outcome (when a token or device was last used).
 * Not compared: the sign-in counters and the security log (a refused sign-in counts and is logged,
 * by design), and the idempotency records (a refused call may record its refusal for replay).
 */
const WATCHED: Record<string, string[]> = {
  users: ['last_login'],
  products: [],
  reseller_tiers: [],
  license_keys: [],
  key_events: [],
  device_removals: [],
  activations: ['last_used'],
  held_slots: [],
  ledger: [],
  audit_log: [],
  recovery_tokens: [],
  password_reset_tokens: [],
  api_tokens: ['last_used_at'],
  sessions: ['last_active'],
  payments: [],
  webhook_endpoints: [],
  webhook_events: [],
  webhook_deliveries: [],
  webhook_delivery_attempts: [],
};

type Account = { id: string; token: string; email: string };

/** A world of its own database (FUZZ_DB unless given): one per test file, which must own it. */
export async function fuzzWorld(database: D1Database = env.FUZZ_DB) {
  // Google sign-in configured, so its routes do their work instead of answering 404 NOT_CONFIGURED.
  const google = { GOOGLE_CLIENT_ID: 'fuzz-client.apps.googleusercontent.com', GOOGLE_CLIENT_SECRET: 'fuzz-secret' };
  const box: Sandbox = await sandbox({ isolatedDb: database, settings: FUZZ_SETTINGS, bindings: google });
  const accounts = {} as Record<(typeof ROLES)[number], Account>;
  let ownerApiToken = '';

  async function signIn(role: (typeof ROLES)[number]) {
    const u = await box.signedInUser(role, { credits: 100_000, balanceCents: 100_000 });
    if (!u.token) throw new Error(`could not sign in a fresh ${role}: ${JSON.stringify(u.login.body)}`);
    accounts[role] = { id: u.user.id, token: u.token, email: u.email };
  }

  function ensureOk(status: number, what: string, body: unknown) {
    if (status >= 300) throw new Error(`fuzz world: ${what} answered ${status}: ${JSON.stringify(body)}`);
  }

  /** Things to act on: products, bought and generated keys, a device, a webhook endpoint. */
  async function furnish() {
    const owner = accounts.owner.token;
    const product = await box.api('POST', '/api/products', {
      token: owner,
      body: {
        name: `Fuzz ${uniqueTag()}`,
        description: 'fuzz',
        keyTag: uniqueTag(),
        baseCreditCost: 5,
        creditsPerDay: 1,
        maxActivations: 3,
      },
    });
    ensureOk(product.status, 'creating a product', product.body);
    const bought = await box.api('POST', '/api/keys/purchase', {
      token: accounts.user.token,
      body: { productId: product.body._id, duration: 30 },
    });
    ensureOk(bought.status, 'buying a key', bought.body);
    const generated = await box.api('POST', '/api/keys/generate', {
      token: owner,
      body: { productId: product.body._id, quantity: 2, duration: 30 },
    });
    ensureOk(generated.status, 'generating keys', generated.body);
    const activated = await box.api('POST', '/api/v1/licenses/activate', {
      body: { key: bought.body.licenseKey.key, deviceFingerprint: 'fuzz-device-0001' },
    });
    if (activated.status >= 500) throw new Error(`fuzz world: activation answered ${activated.status}`);
    const hook = await box.api('POST', '/api/webhooks', {
      token: owner,
      body: { url: 'http://127.0.0.1:9/fuzz', events: ['key.purchased'], currentPassword: TEST_PASSWORD },
    });
    ensureOk(hook.status, 'creating a webhook endpoint', hook.body);
  }

  async function setUp() {
    for (const role of ROLES) await signIn(role);
    const token = await box.api('POST', '/api/users/api-tokens', {
      token: accounts.owner.token,
      body: { name: 'fuzz', role: 'owner', currentPassword: TEST_PASSWORD },
    });
    ensureOk(token.status, 'creating an API token', token.body);
    ownerApiToken = token.body.token;
    await furnish();
  }

  /**
   * After a request that changed something, puts back what the next request relies on: the
   * settings, and each caller still signed in with its role (a fuzzed request may have signed one
   * out, demoted, disabled or deleted them, or revoked the API token).
   */
  async function restore() {
    box.storeSettings(FUZZ_SETTINGS);
    clearSettingsCache();
    for (const role of ROLES) {
      const me = await box.api('GET', '/api/users/profile', { token: accounts[role].token });
      if (me.status !== 200 || me.body.role !== role || !me.body.isActive) await signIn(role);
    }
    const viaToken = await box.api('GET', '/api/users/profile', { token: ownerApiToken });
    if (viaToken.status !== 200 || viaToken.body.role !== 'owner') {
      const token = await box.api('POST', '/api/users/api-tokens', {
        token: accounts.owner.token,
        body: { name: 'fuzz', role: 'owner', currentPassword: TEST_PASSWORD },
      });
      ensureOk(token.status, 'creating an API token', token.body);
      ownerApiToken = token.body.token;
    }
  }

  function tokenOf(caller: Caller): string | undefined {
    if (caller === 'none') return undefined;
    if (caller === 'badSession') return 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2JvZHkiLCJzaWQiOiJub25lIn0.c2lnbmF0dXJl';
    if (caller === 'badApiToken') return 'kp_notarealtoken000000000000000000000000';
    if (caller === 'ownerApiToken') return ownerApiToken;
    return accounts[caller].token;
  }

  /** Every table a refused request must not change (sessions among them), and the settings. */
  async function snapshot() {
    const d1 = box.d1;
    const tables = Object.keys(WATCHED);
    const results = await d1.batch(tables.map((t) => d1.prepare(`SELECT * FROM ${t} ORDER BY rowid`)));
    const rows = Object.fromEntries(
      tables.map((t, i) => [t, (results[i].results as Record<string, unknown>[]).map((row) => withoutColumns(row, WATCHED[t]))]),
    );
    return { rows, settings: box.storedSettings() };
  }

  /** Ids and license keys of what exists, for parameters and fields that name something real. */
  async function known(): Promise<{ id: string[]; key: string[] }> {
    const d1 = box.d1;
    const tables = [
      'users',
      'products',
      'license_keys',
      'activations',
      'held_slots',
      'api_tokens',
      'payments',
      'webhook_endpoints',
      'webhook_deliveries',
    ];
    const results = await d1.batch([
      ...tables.map((t) => d1.prepare(`SELECT id FROM ${t} ORDER BY rowid DESC LIMIT 20`)),
      d1.prepare('SELECT key AS id FROM license_keys ORDER BY rowid DESC LIMIT 20'),
    ]);
    const found = results.map((r) => (r.results as { id: string }[]).map((row) => row.id));
    return { id: found.slice(0, -1).flat(), key: found[found.length - 1] };
  }

  await setUp();
  return { box, restore, tokenOf, snapshot, known, accounts: () => accounts };
}

function withoutColumns(row: Record<string, unknown>, columns: string[]) {
  const copy = { ...row };
  for (const c of columns) delete copy[c];
  return copy;
}
