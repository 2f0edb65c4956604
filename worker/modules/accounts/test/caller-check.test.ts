// The caller check has two forms: a write's guard (the trigger of migration 0016) and a read's
// SELECT (CALLER_CHECK_SQL in platform/db/session.ts). For every state a caller can be in, both must give
// the same verdict, or reads and writes would disagree about who is calling.
import { env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiTokens, ledger, sessions, users } from '../../../platform/db/schema';
import { CALLER_CHECK_SQL, GUARD_SQL, openRequestD1, type RequestD1 } from '../../../platform/db/session';
import { api, db, openSessionAt, signedInUser, TEST_PASSWORD } from '../../../test/helpers';
import { sandbox } from '../../../test/sandbox';
import { passThrough } from '../../../platform/proxy';
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
      .bind(...params, null)
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

describe('a write that committed answers as one (issue 42)', () => {
  const credits = (userId: string) => rawRead(`SELECT credits FROM users WHERE id = ?1`, userId);
  const rawRead = (sql: string, ...params: unknown[]) => ({ sql, params });
  const run = (d1: RequestD1, statement: { sql: string; params: unknown[] }) =>
    d1.batch<Record<string, unknown>>([d1.prepare(statement.sql).bind(...statement.params)]);

  it('a request whose write committed reads its answer back after its caller ended; a new request is refused', async () => {
    const { check, user } = await sessionCaller();
    const request = openRequestD1(env.DB, { write: true, bookmark: null });
    request.checkCaller({ ...check, role: 'reseller' });
    await run(request, { sql: 'UPDATE users SET credits = credits + 7 WHERE id = ?1', params: [user.id] });
    // The caller is signed out everywhere (a demotion ends the sessions) between the commit and the read-back.
    await db().update(users).set({ credentialEpoch: 5 }).where(eq(users.id, user.id));
    const [after] = await run(request, credits(user.id));
    expect(after.results).toEqual([{ credits: 7 }]);
    // A further write of the same request still carries the guard, and is refused.
    await expect(run(request, { sql: 'UPDATE users SET credits = credits + 1 WHERE id = ?1', params: [user.id] })).rejects.toMatchObject({
      status: 401,
    });
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.credits).toBe(7);
    // The next request of that session is refused, as always.
    const next = openRequestD1(env.DB, { write: true, bookmark: null });
    next.checkCaller({ ...check, role: 'reseller', now: Date.now() });
    await expect(run(next, credits(user.id))).rejects.toMatchObject({ status: 401 });
  });

  it('a round trip that only read lets nothing through: a write after the caller ended is refused', async () => {
    const { check, user } = await sessionCaller();
    const request = openRequestD1(env.DB, { write: true, bookmark: null });
    request.checkCaller({ ...check, role: 'reseller' });
    await run(request, credits(user.id));
    await db().update(users).set({ credentialEpoch: 5 }).where(eq(users.id, user.id));
    await expect(run(request, { sql: 'UPDATE users SET credits = credits + 7 WHERE id = ?1', params: [user.id] })).rejects.toMatchObject({
      status: 401,
    });
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.credits).toBe(0);
  });

  /**
   * The Worker's D1, where `onCommit` runs after each batch that wrote and before the request sees
   * its results: between a write's commit and whatever the request does next.
   */
  function betweenRoundTrips(real: D1Database, onCommit: () => Promise<void>): D1Database {
    const session = (s: D1DatabaseSession): D1DatabaseSession =>
      new Proxy(s, {
        get(target, prop) {
          if (prop !== 'batch') return passThrough(target, prop);
          return async (statements: D1PreparedStatement[]) => {
            const results = await target.batch(statements);
            if (results.some((r) => (r.meta?.rows_written ?? 0) > 0)) await onCommit();
            return results;
          };
        },
      });
    return new Proxy(real, {
      get(target, prop) {
        if (prop === 'withSession') return (arg?: string) => session(target.withSession(arg));
        return passThrough(target, prop);
      },
    });
  }

  it('of 24 balance changes sent while their owner is demoted, each is answered 2xx exactly when it committed', async () => {
    let armed = false;
    let commits = 0;
    let actorId = '';
    // The demotion lands right after the third change commits, before that request answers; the
    // others race it. It is what PUT /api/admin/users/{id} with role user writes: the role, and
    // the credential epoch that signs the account out.
    const box = await sandbox({
      wrapD1: (d1) =>
        betweenRoundTrips(d1, async () => {
          if (!armed || ++commits !== 3) return;
          await env.DB.prepare(`UPDATE users SET role = 'user', credential_epoch = credential_epoch + 1 WHERE id = ?1`).bind(actorId).run();
        }),
    });
    const actor = await box.signedInUser('owner');
    const customer = await box.signedInUser('user');
    actorId = actor.user.id;
    armed = true;
    const answers = await Promise.all(
      Array.from({ length: 24 }, () =>
        box.api('POST', `/api/admin/users/${customer.user.id}/balance`, { token: actor.token, body: { type: 'credits', amount: 1 } }),
      ),
    );
    armed = false;
    const committed = await db()
      .select()
      .from(ledger)
      .where(and(eq(ledger.userId, customer.user.id), eq(ledger.actorId, actor.user.id)))
      .all();
    for (const a of answers) expect([200, 401, 403], JSON.stringify(a.body)).toContain(a.status);
    expect(committed.length).toBeGreaterThanOrEqual(3);
    expect(answers.filter((a) => a.status === 200).length).toBe(committed.length);
    expect((await db().select().from(users).where(eq(users.id, customer.user.id)).get())?.credits).toBe(committed.length);
    // And the demoted owner's next change is refused.
    const next = await box.api('POST', `/api/admin/users/${customer.user.id}/balance`, {
      token: actor.token,
      body: { type: 'credits', amount: 1 },
    });
    expect(next.status).toBe(401);
  });
});
