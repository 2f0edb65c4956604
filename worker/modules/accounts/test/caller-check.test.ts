// The caller check has two forms: a write's guard (the trigger of migration 0016) and a read's
// SELECT (CALLER_CHECK_SQL in platform/db/session.ts). For every state a caller can be in, both must give
// the same verdict, or reads and writes would disagree about who is calling.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiTokens, sessions, users } from '../../../platform/db/schema';
import { CALLER_CHECK_SQL, GUARD_SQL } from '../../../platform/db/session';
import { api, db, openSessionAt, signedInUser, TEST_PASSWORD } from '../../../test/helpers';
import { DAY_MS } from '../../../platform/vocabulary';

type Kind = 'session' | 'apiToken';
type Check = { kind: Kind; credentialId: string; userId: string; role: string; now: number; idleMs: number };

const IDLE_MS = 7 * DAY_MS;

async function verdicts(check: Check) {
  const params = [check.kind, check.credentialId, check.userId, check.role, check.now, check.idleMs];
  const read = await env.DB.prepare(CALLER_CHECK_SQL)
    .bind(...params)
    .first<{ caller: string }>();
  let write = 'ok';
  try {
    await env.DB.prepare(GUARD_SQL)
      .bind(...params)
      .run();
  } catch (err) {
    write = /CALLER_[A-Z]+/.exec(String(err))?.[0] ?? String(err);
  }
  return { read: read?.caller, write };
}

async function sessionCaller() {
  const { user, token } = await signedInUser('reseller');
  const [row] = await db().select().from(sessions).where(eq(sessions.userId, user.id)).all();
  return {
    user,
    token,
    check: { kind: 'session' as const, credentialId: row.id, userId: user.id, role: 'reseller', now: Date.now(), idleMs: IDLE_MS },
  };
}

describe('the read check and the write guard agree', () => {
  const cases: [string, () => Promise<{ check: Check; expected: string }>][] = [
    ['a live session', async () => ({ check: (await sessionCaller()).check, expected: 'ok' })],
    [
      'an ended session',
      async () => {
        const { check } = await sessionCaller();
        await db().delete(sessions).where(eq(sessions.id, check.credentialId));
        return { check, expected: 'CALLER_ENDED' };
      },
    ],
    [
      'a session from before the credential epoch moved',
      async () => {
        const { check, user } = await sessionCaller();
        await db().update(users).set({ credentialEpoch: 1 }).where(eq(users.id, user.id));
        return { check, expected: 'CALLER_ENDED' };
      },
    ],
    [
      'an expired session',
      async () => {
        const { user } = await signedInUser('reseller');
        await openSessionAt(user, Date.now() - 31 * DAY_MS);
        const rows = await db().select().from(sessions).where(eq(sessions.userId, user.id)).all();
        const old = rows.find((r) => r.expiresAt.getTime() < Date.now())!;
        return {
          check: { kind: 'session', credentialId: old.id, userId: user.id, role: 'reseller', now: Date.now(), idleMs: 90 * DAY_MS },
          expected: 'CALLER_ENDED',
        };
      },
    ],
    [
      'an idle session',
      async () => {
        const { check } = await sessionCaller();
        await db()
          .update(sessions)
          .set({ lastActive: new Date(Date.now() - IDLE_MS - 1000) })
          .where(eq(sessions.id, check.credentialId));
        return { check, expected: 'CALLER_ENDED' };
      },
    ],
    [
      'a deactivated account',
      async () => {
        const { check, user } = await sessionCaller();
        await db().update(users).set({ isActive: false }).where(eq(users.id, user.id));
        return { check, expected: 'CALLER_INACTIVE' };
      },
    ],
    [
      'a changed role',
      async () => {
        const { check, user } = await sessionCaller();
        await db().update(users).set({ role: 'user' }).where(eq(users.id, user.id));
        return { check, expected: 'CALLER_ROLE' };
      },
    ],
    [
      'another account’s session',
      async () => {
        const { check } = await sessionCaller();
        const other = await signedInUser('reseller');
        return { check: { ...check, userId: other.user.id }, expected: 'CALLER_ENDED' };
      },
    ],
    [
      'a live API token, then a revoked one',
      async () => {
        const { user, token } = await signedInUser('owner');
        const made = await api('POST', '/api/users/api-tokens', {
          token,
          body: { name: 'check', role: 'owner', currentPassword: TEST_PASSWORD },
        });
        const check: Check = {
          kind: 'apiToken',
          credentialId: made.body.apiToken._id,
          userId: user.id,
          role: 'owner',
          now: Date.now(),
          idleMs: 0,
        };
        expect(await verdicts(check)).toEqual({ read: 'ok', write: 'ok' });
        await db().delete(apiTokens).where(eq(apiTokens.id, check.credentialId));
        return { check, expected: 'CALLER_ENDED' };
      },
    ],
  ];

  it.each(cases)('%s', async (_, make) => {
    const { check, expected } = await make();
    expect(await verdicts(check)).toEqual({ read: expected, write: expected });
  });
});
