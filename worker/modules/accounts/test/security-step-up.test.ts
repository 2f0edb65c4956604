// Step-up for sensitive actions (issue 18, ASVS 5.0 7.5.1): creating an API token, turning
// two-factor on or off, new recovery tokens and disconnecting Google need the current password or
// a current code in the body, or, for an account without a password, a sign-in in the last
// 5 minutes. Without it: 403 REAUTH_REQUIRED, and nothing changed.
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiTokens, recoveryTokens, users } from '../../../platform/db/schema';
import type { ApiErrorBody } from '../../../platform/api-client';
import { STEP_UP_RECENT_MS } from '../schemas/security';
import { api, db, openSessionAt, signedInUser, TEST_PASSWORD, type ApiResult } from '../../../test/helpers';
import { codeFor, enableTwoFactor } from '../../../test/security-helpers';

type Account = Awaited<ReturnType<typeof signedInUser>> & { secret?: string };
type Proof = Record<string, string>;

const userRow = (id: string) => db().select().from(users).where(eq(users.id, id)).get();
const rows = async (table: typeof apiTokens | typeof recoveryTokens, userId: string) =>
  (await db().select({ n: count() }).from(table).where(eq(table.userId, userId)).get())!.n;

/** Each action: what it needs first, the call, and whether it changed anything. */
const ACTIONS: Array<{
  name: string;
  role: 'user' | 'owner';
  twoFactor: boolean;
  prepare?: (a: Account) => Promise<void>;
  /** Read for its refusal; each action's success body differs. */
  call: (token: string, proof: Proof) => Promise<ApiResult<Partial<ApiErrorBody>>>;
  changed: (a: Account) => Promise<boolean>;
}> = [
  {
    name: 'creating an API token',
    role: 'owner',
    twoFactor: false,
    call: (token, proof) => api('POST', '/api/users/api-tokens', { token, body: { name: 'deploy', role: 'user', ...proof } }),
    changed: async (a) => (await rows(apiTokens, a.user.id)) > 0,
  },
  {
    name: 'starting two-factor setup',
    role: 'user',
    twoFactor: false,
    call: (token, proof) => api('POST', '/api/users/setup-2fa', { token, body: proof }),
    changed: async (a) => (await userRow(a.user.id))!.twoFactorPendingSecret !== null,
  },
  {
    name: 'turning two-factor off',
    role: 'user',
    twoFactor: true,
    call: (token, proof) => api('DELETE', '/api/users/disable-2fa', { token, body: proof }),
    changed: async (a) => !(await userRow(a.user.id))!.twoFactorEnabled,
  },
  {
    name: 'new recovery tokens',
    role: 'user',
    twoFactor: true,
    call: (token, proof) => api('POST', '/api/users/recovery-tokens', { token, body: proof }),
    changed: async (a) => (await rows(recoveryTokens, a.user.id)) > 0,
  },
  {
    name: 'disconnecting Google',
    role: 'user',
    twoFactor: false,
    prepare: async (a) => {
      await db()
        .update(users)
        .set({ googleId: `google-${a.user.id}`, googleEmail: a.email })
        .where(eq(users.id, a.user.id));
    },
    call: (token, proof) => api('DELETE', '/api/users/disconnect-google', { token, body: proof }),
    changed: async (a) => (await userRow(a.user.id))!.googleId === null,
  },
];

async function account(action: (typeof ACTIONS)[number], twoFactor = action.twoFactor): Promise<Account> {
  const a: Account = await signedInUser(action.role);
  if (twoFactor) a.secret = await enableTwoFactor(a.token);
  await action.prepare?.(a);
  return a;
}

const wrongCode = (secret: string) => String((Number(codeFor(secret, 1)) + 17) % 1_000_000).padStart(6, '0');

describe.each(ACTIONS)('step-up for $name', (action) => {
  it('is refused with 403 REAUTH_REQUIRED and changes nothing without proof, or with a wrong one', async () => {
    // Two-factor on where the action allows it, so a wrong code is tried too (setup needs it off).
    const withCode = action.name !== 'starting two-factor setup';
    const a = await account(action, withCode);
    const methods = withCode ? ['currentPassword', 'code'] : ['currentPassword'];
    const missing = await action.call(a.token, {});
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ code: 'REAUTH_REQUIRED', details: { methods } });
    const wrongPassword = await action.call(a.token, { currentPassword: 'Wrong-password-1' });
    expect(wrongPassword.status).toBe(403);
    expect(wrongPassword.body).toEqual({ code: 'REAUTH_REQUIRED', message: 'Password is incorrect', details: { methods } });
    if (withCode) {
      const badCode = await action.call(a.token, { code: wrongCode(a.secret!) });
      expect(badCode.status).toBe(403);
      expect(badCode.body).toMatchObject({ code: 'REAUTH_REQUIRED', message: 'Invalid two-factor code' });
    }
    expect(await action.changed(a)).toBe(false);
  });

  it('goes ahead with the current password', async () => {
    const a = await account(action);
    expect(await action.changed(a)).toBe(false);
    const res = await action.call(a.token, { currentPassword: TEST_PASSWORD });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    expect(await action.changed(a)).toBe(true);
  });

  if (action.name === 'starting two-factor setup') {
    it('does not take a code while two-factor is off (there is none to give)', async () => {
      const a = await account(action);
      const res = await action.call(a.token, { code: '123456' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'REAUTH_REQUIRED', details: { methods: ['currentPassword'] } });
      expect(await action.changed(a)).toBe(false);
    });
  } else {
    it('goes ahead with a current two-factor code, once', async () => {
      const a = await account(action, true);
      const code = codeFor(a.secret!, 1);
      const res = await action.call(a.token, { code });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      expect(await action.changed(a)).toBe(true);
    });
  }
});

describe('step-up for an account without a password', () => {
  /** A Google-only account (no password), with a session opened `ageMs` ago. */
  async function passwordless(role: 'user' | 'owner', ageMs: number) {
    const a = await signedInUser(role);
    await db()
      .update(users)
      .set({ passwordHash: null, googleId: `google-${a.user.id}` })
      .where(eq(users.id, a.user.id));
    return { ...a, token: await openSessionAt(a.user, Date.now() - ageMs, false) };
  }

  it('accepts a sign-in within the last 5 minutes, for every action it can take', async () => {
    const owner = await passwordless('owner', 60_000);
    expect((await api('POST', '/api/users/api-tokens', { token: owner.token, body: { name: 'ci', role: 'user' } })).status).toBe(201);
    const secret = await enableTwoFactor(owner.token, {});
    expect((await api('POST', '/api/users/recovery-tokens', { token: owner.token, body: {} })).status).toBe(200);
    expect((await api('DELETE', '/api/users/disable-2fa', { token: owner.token })).status).toBe(200);
    expect(secret).toBeTruthy();
  });

  it('refuses an older sign-in, and says what would do', async () => {
    const owner = await passwordless('owner', STEP_UP_RECENT_MS + 30_000);
    const token = await api('POST', '/api/users/api-tokens', { token: owner.token, body: { name: 'ci', role: 'user' } });
    expect(token.status).toBe(403);
    expect(token.body).toEqual({
      code: 'REAUTH_REQUIRED',
      message: 'For your security, sign in again and retry within 5 minutes.',
      details: { methods: ['recentSignIn'] },
    });
    const setup = await api('POST', '/api/users/setup-2fa', { token: owner.token });
    expect(setup.status).toBe(403);
    // A password it does not have is no proof either.
    expect((await api('POST', '/api/users/setup-2fa', { token: owner.token, body: { currentPassword: TEST_PASSWORD } })).status).toBe(403);
    expect(await rows(apiTokens, owner.user.id)).toBe(0);
    expect((await userRow(owner.user.id))!.twoFactorPendingSecret).toBeNull();
  });

  it('takes a current code from an account with two-factor on, however old the sign-in', async () => {
    const fresh = await passwordless('user', 0);
    const secret = await enableTwoFactor(fresh.token, {});
    const token = await openSessionAt(fresh.user, Date.now() - 60 * 60_000, false);
    const bare = await api('POST', '/api/users/recovery-tokens', { token });
    expect(bare.status).toBe(403);
    expect(bare.body.details).toEqual({ methods: ['code', 'recentSignIn'] });
    expect((await api('POST', '/api/users/recovery-tokens', { token, body: { code: codeFor(secret, 1) } })).status).toBe(200);
  });
});
