// Who may call what, generated from the OpenAPI document for every operation it lists: each
// operation's declared policy (`x-keypanel`: the least role, whether API tokens and read-only
// tokens may call it, whether it needs proof) is tried by every kind of caller, and a refusal must
// be the exact 401 or 403 and change nothing. A new operation is covered without anyone writing its
// matrix; one without a declaration has no policy in the document and fails here.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import document from '../../docs/openapi.json';
import { PROOF_NEEDS_SESSION_MESSAGE, SESSION_ONLY_MESSAGE } from '../modules/accounts/identify';
import { TEST_PASSWORD } from './helpers';
import { SECURITY_LOG_NEEDS_SESSION } from '../modules/portability/export';
import { newId } from '../platform/ids';
import { fuzzWorld } from './fuzz/world';
import { isAtLeast, type Role } from '../platform/vocabulary';

type Policy = {
  access: 'public' | Role;
  tokens: boolean;
  reads: boolean;
  proof: 'always' | 'conditional' | null;
  servedInMaintenance: boolean;
};
type Operation = { operationId: string; security?: Record<string, string[]>[]; 'x-keypanel'?: Policy };

const operations = Object.entries(document.paths as unknown as Record<string, Record<string, Operation>>).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), template, ...op })),
);

/** Every kind of caller: no one, a session of each role, and API tokens (write and read-only). */
const CALLERS = ['guest', 'user', 'reseller', 'owner', 'ownerToken', 'ownerReadToken', 'resellerToken'] as const;
type Caller = (typeof CALLERS)[number];

const ROLE_REFUSED = 'You do not have permission to do this';
const READ_ONLY = 'This API token is read-only';

/** What the declaration lets this caller get: through (any answer the operation itself gives), or the exact refusal. */
function expected(policy: Policy, caller: Caller): 'through' | { status: 401 | 403; message?: string } {
  if (policy.access === 'public') return 'through';
  if (caller === 'guest') return { status: 401 };
  const token = caller.endsWith('Token');
  const role: Role = caller.startsWith('owner') ? 'owner' : caller.startsWith('reseller') ? 'reseller' : 'user';
  if (token && !policy.tokens)
    return { status: 403, message: policy.proof === 'always' ? PROOF_NEEDS_SESSION_MESSAGE : SESSION_ONLY_MESSAGE };
  if (caller === 'ownerReadToken' && !policy.reads) return { status: 403, message: READ_ONLY };
  if (!isAtLeast(role, policy.access)) return { status: 403, message: ROLE_REFUSED };
  return 'through';
}

/** A concrete path: every parameter a well-formed id that names nothing (a refusal comes before any lookup). */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, '0123456789abcdef01234567');

let world: Awaited<ReturnType<typeof fuzzWorld>>;
const tokens = {} as Record<Caller, string | undefined>;

async function makeToken(owner: string, body: object) {
  const res = await world.box.api('POST', '/api/users/api-tokens', {
    token: owner,
    body: { name: 'access', currentPassword: TEST_PASSWORD, ...body },
  });
  if (res.status !== 201) throw new Error(`could not make an API token: ${JSON.stringify(res.body)}`);
  return res.body.token;
}

/**
 * Every caller signed in again and every token made again where an operation let through ended
 * one (signing out, say): each operation starts from callers who are all live.
 */
async function refresh() {
  await world.restore();
  const accounts = world.accounts();
  Object.assign(tokens, { guest: undefined, user: accounts.user.token, reseller: accounts.reseller.token, owner: accounts.owner.token });
  const wanted = {
    ownerToken: [accounts.owner.token, { role: 'owner' }],
    ownerReadToken: [accounts.owner.token, { role: 'owner', readOnly: true }],
    resellerToken: [accounts.reseller.token, { role: 'reseller' }],
  } as const;
  for (const [caller, [owner, body]] of Object.entries(wanted) as [Caller, readonly [string, object]][]) {
    const live = tokens[caller] && (await world.box.api('GET', '/api/users/profile', { token: tokens[caller] })).status === 200;
    if (!live) tokens[caller] = await makeToken(owner, body);
  }
}

beforeAll(async () => {
  world = await fuzzWorld(env.ACCESS_DB);
}, 60_000);

describe('every operation declares its policy, and the document states it', () => {
  it.each(operations.map((op) => [op.operationId, op] as const))('%s', (_, op) => {
    const policy = op['x-keypanel'];
    expect(policy, `${op.method} ${op.template} has no declaration`).toBeDefined();
    const schemes = (op.security ?? []).flatMap((s) => Object.entries(s));
    if (policy!.access === 'public') expect(schemes).toEqual([]);
    else {
      expect(schemes).toContainEqual(['session', [policy!.access]]);
      const token = schemes.find(([name]) => name === 'apiToken');
      expect(Boolean(token)).toBe(policy!.tokens);
      if (token) expect(token[1]).toEqual(policy!.reads ? [policy!.access] : [policy!.access, 'write']);
    }
  });
});

describe('the role matrix of every operation, from its declaration', () => {
  for (const op of operations) {
    const policy = op['x-keypanel']!;
    it(`${op.operationId} (${op.method} ${op.template}): ${policy.access}${policy.tokens ? '' : ', no tokens'}`, async () => {
      await refresh();
      for (const caller of CALLERS) {
        const outcome = expected(policy, caller);
        const before = outcome === 'through' ? null : await world.snapshot();
        const body = op.method === 'GET' || op.method === 'HEAD' ? undefined : {};
        const res = await world.box.api(op.method, concrete(op.template), { token: tokens[caller], body });
        const what = `${caller}: ${res.status} ${JSON.stringify(res.body)}`;
        if (outcome === 'through') {
          // Whatever the operation answers to an empty request, it is not an access refusal.
          expect(res.status, what).not.toBe(401);
          if (res.status === 403)
            expect([ROLE_REFUSED, SESSION_ONLY_MESSAGE, PROOF_NEEDS_SESSION_MESSAGE, READ_ONLY], what).not.toContain(res.body.message);
        } else {
          expect(res.status, what).toBe(outcome.status);
          expect(res.body.code, what).toBe(outcome.status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN');
          if (outcome.message) expect(res.body.message, what).toBe(outcome.message);
        }
        if (outcome !== 'through') expect(await world.snapshot(), `${caller} changed something`).toEqual(before);
      }
    });
  }
});

describe('proof', () => {
  const needingProof = operations.filter((op) => op['x-keypanel']?.proof === 'always');

  it('is declared where power is granted', () => {
    expect(needingProof.map((op) => op.operationId).sort()).toEqual(
      [
        'connectGoogle',
        'createApiToken',
        'createWebhook',
        'disableTwoFactor',
        'disconnectGoogle',
        'generateRecoveryTokens',
        'rotateWebhookSecret',
        'setupTwoFactor',
        'transferKey',
        'transferMyKey',
      ].sort(),
    );
    expect(
      operations
        .filter((op) => op['x-keypanel']?.proof === 'conditional')
        .map((op) => op.operationId)
        .sort(),
    ).toEqual(['createUser', 'importKeys', 'updateUser', 'updateWebhook'].sort());
  });

  /** A body each operation needing proof would take, but for the proof. */
  const VALID: Record<string, object> = {
    connectGoogle: {},
    createApiToken: { name: 'ci', role: 'user' },
    createWebhook: { url: 'http://127.0.0.1:9/access', events: ['key.purchased'] },
    disableTwoFactor: {},
    disconnectGoogle: {},
    generateRecoveryTokens: {},
    rotateWebhookSecret: {},
    setupTwoFactor: {},
    transferKey: { to: 'someone@example.com' },
    transferMyKey: { to: 'someone@example.com' },
  };

  for (const op of needingProof) {
    it(`${op.operationId}: refused without proof, with a wrong one and for every token, and nothing changes`, async () => {
      await refresh();
      const session = tokens.owner;
      const path = concrete(op.template);
      const body = VALID[op.operationId];
      const before = await world.snapshot();
      // A code where two-factor is off: a wrong proof that uses up no password attempts.
      for (const proof of [{}, { code: '000000' }]) {
        const res = await world.box.api(op.method, path, { token: session, body: { ...body, ...proof } });
        expect(res.status, JSON.stringify(res.body)).toBe(403);
        expect(res.body.code).toBe('REAUTH_REQUIRED');
      }
      for (const caller of ['ownerToken', 'resellerToken'] as const) {
        const res = await world.box.api(op.method, path, { token: tokens[caller], body: { ...body, currentPassword: TEST_PASSWORD } });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: 'FORBIDDEN', message: PROOF_NEEDS_SESSION_MESSAGE });
      }
      expect(await world.snapshot()).toEqual(before);
    });
  }
});

describe('conditional proof', () => {
  /** Refused without proof and for every token (proof or not), changing nothing. */
  async function refusedWithoutProof(method: string, path: string, body: object) {
    const before = await world.snapshot();
    const res = await world.box.api(method, path, { token: tokens.owner, body });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.code).toBe('REAUTH_REQUIRED');
    for (const caller of ['ownerToken', 'resellerToken'] as const) {
      const viaToken = await world.box.api(method, path, { token: tokens[caller], body: { ...body, currentPassword: TEST_PASSWORD } });
      expect(viaToken.status, `${caller}: ${JSON.stringify(viaToken.body)}`).toBe(403);
      expect(viaToken.body.code).toBe('FORBIDDEN');
    }
    expect(await world.snapshot()).toEqual(before);
  }

  it('updateUser: reactivating a deactivated reseller or owner needs proof, as raising a role does', async () => {
    await refresh();
    const made = await world.box.api('POST', '/api/admin/users', {
      token: tokens.owner,
      body: {
        username: `react-${newId().slice(-8)}`,
        email: `react-${newId()}@example.com`,
        password: 'Sturdy-Walrus-Lamp-42',
        role: 'reseller',
        currentPassword: TEST_PASSWORD,
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const path = `/api/admin/users/${made.body.user._id}`;
    expect((await world.box.api('PUT', path, { token: tokens.owner, body: { isActive: false } })).status).toBe(200);
    await refusedWithoutProof('PUT', path, { isActive: true });
    const proven = await world.box.api('PUT', path, { token: tokens.owner, body: { isActive: true, currentPassword: TEST_PASSWORD } });
    expect(proven.status, JSON.stringify(proven.body)).toBe(200);
  });

  it("importKeys: the owner's proof, which keeps an imported reseller's role, comes only from a signed-in session", async () => {
    await refresh();
    const row = { type: 'user', id: newId(), email: `imp-${newId()}@example.com`, username: `imp${newId().slice(-8)}`, role: 'reseller' };
    const body = { format: 'keypanel', rows: [{ line: 1, record: row }] };
    for (const caller of ['ownerToken'] as const) {
      const before = await world.snapshot();
      const res = await world.box.api('POST', '/api/admin/import', {
        token: tokens[caller],
        body: { ...body, currentPassword: TEST_PASSWORD },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect(await world.snapshot()).toEqual(before);
    }
  });
});

describe("a customer's key is theirs alone", () => {
  // Every operation on one of My Keys, from the document: another account (whatever its role) asking
  // for a customer's key gets what a missing key gets, and nothing changes.
  const onMyKey = operations.filter((op) => op.template.startsWith('/api/users/my-keys/{'));
  const BODIES: Record<string, object> = {
    regenerateMyKey: { reason: 'Not mine' },
    transferMyKey: { to: 'someone@example.com', currentPassword: TEST_PASSWORD },
    renewMyKey: { days: 1 },
    setMyKeyAutoRenew: { days: 1 },
  };

  it('covers reading, transferring and regenerating', () => {
    expect(onMyKey.map((op) => op.operationId)).toEqual(expect.arrayContaining(['myKeyHistory', 'regenerateMyKey', 'transferMyKey']));
  });

  for (const op of onMyKey) {
    it(`${op.operationId}: another account's key is not found, as a missing one`, async () => {
      await refresh();
      // The customer signed in now (a fuzzed request may have replaced them) holds a key of their own.
      const owned = { id: newId() };
      await world.box.d1
        .prepare(
          `INSERT INTO license_keys (id, key, status, product_id, product_name, product_key_tag, product_type, duration, max_activations, purchased_at, purchased_by, created_at)
           SELECT ?1, 'ACCESS-' || ?1, 'used', p.id, p.name, p.key_tag, p.product_type, 30, 3, ?3, ?2, ?3 FROM products p ORDER BY p.rowid LIMIT 1`,
        )
        .bind(owned.id, world.accounts().user.id, Date.now())
        .run();
      const body = op.method === 'GET' ? undefined : (BODIES[op.operationId] ?? {});
      const before = await world.snapshot();
      for (const caller of ['reseller', 'owner'] as const) {
        const path = (id: string) => op.template.replace(/\{[^}]+\}/, id).replace(/\{[^}]+\}/g, '0123456789abcdef01234567');
        const theirs = await world.box.api(op.method, path(owned.id), { token: tokens[caller], body });
        const missing = await world.box.api(op.method, path('0123456789abcdef01234567'), { token: tokens[caller], body });
        expect(theirs.status, `${caller}: ${JSON.stringify(theirs.body)}`).toBe(404);
        expect(theirs.body).toEqual(missing.body);
      }
      expect(await world.snapshot()).toEqual(before);
    });
  }
});

describe('refusals inside operations (issue 42)', () => {
  // Refusals an operation's declaration cannot state: an API token is let into my-data but not to its security log.
  it('exportMyData: every API token is refused the security log (as getSecurityLog refuses it), and nothing changes', async () => {
    await refresh();
    const before = await world.snapshot();
    for (const caller of ['ownerToken', 'ownerReadToken', 'resellerToken'] as const) {
      const res = await world.box.api('GET', '/api/users/my-data?table=security', { token: tokens[caller] });
      expect(res.status, caller).toBe(403);
      expect(res.body).toEqual({ code: 'FORBIDDEN', message: SECURITY_LOG_NEEDS_SESSION });
      const page = await world.box.api('GET', '/api/users/security-log', { token: tokens[caller] });
      expect(page.status, caller).toBe(403);
    }
    for (const caller of ['user', 'reseller', 'owner'] as const) {
      expect((await world.box.api('GET', '/api/users/my-data?table=security', { token: tokens[caller] })).status, caller).toBe(200);
    }
    expect(await world.snapshot()).toEqual(before);
  });
});
