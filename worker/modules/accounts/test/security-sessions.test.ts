import { env } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { securityLog, sessions } from '../../../platform/db/schema';
import { liveIsolateCaches } from '../../../platform/isolate-cache';
import { LAST_ACTIVE_WRITE_MS, type SessionRecord } from '../sessions';
import { describeUserAgent } from '../../../platform/user-agent';
import { api, db, liveSessions, signedInUser, TEST_PASSWORD } from '../../../test/helpers';

const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** Signs in from a given browser and place (Cloudflare's request data carries the place). */
async function signInFrom(email: string, userAgent: string, cf: Record<string, string>, ip: string) {
  const res = await exports.default.fetch(
    new Request('http://localhost/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent, 'cf-connecting-ip': ip },
      body: JSON.stringify({ email, password: TEST_PASSWORD }),
      cf,
    }),
  );
  expect(res.status).toBe(200);
  return (await res.json<{ token: string }>()).token;
}

describe('GET /api/users/sessions', () => {
  it('lists each session with device, browser, location, last activity and which one is this', async () => {
    const { email } = await signedInUser();
    const laptop = await signInFrom(email, CHROME_WINDOWS, { city: 'Berlin', region: 'Berlin', country: 'DE' }, '198.51.100.7');
    const phone = await signInFrom(email, SAFARI_IPHONE, { city: 'Lyon', country: 'FR' }, '198.51.100.8');
    const res = await api('GET', '/api/users/sessions', { token: laptop });
    expect(res.status).toBe(200);
    const sessions = res.body.sessions as Array<Record<string, unknown>>;
    expect(sessions).toHaveLength(3);
    const current = sessions.find((s) => s.current)!;
    expect(current).toMatchObject({
      device: 'Windows computer',
      browser: 'Chrome 126',
      location: 'Berlin, Berlin, DE',
      ipAddress: '198.51.100.7',
    });
    expect(Date.parse(current.lastActive as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(sessions.find((s) => s.device === 'iPhone')).toMatchObject({ browser: 'Safari 17', location: 'Lyon, FR', current: false });
    const fromPhone = await api('GET', '/api/users/sessions', { token: phone });
    expect(fromPhone.body.sessions.find((s) => s.current)!.device).toBe('iPhone');
    for (const s of sessions)
      expect(Object.keys(s).sort()).toEqual(['browser', 'createdAt', 'current', 'device', 'id', 'ipAddress', 'lastActive', 'location']);
  });

  it('shows only your own sessions', async () => {
    const a = await signedInUser();
    const b = await signedInUser();
    const mine = (await api('GET', '/api/users/sessions', { token: a.token })).body.sessions;
    const theirs = (await api('GET', '/api/users/sessions', { token: b.token })).body.sessions;
    expect(mine).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(mine[0].id).not.toBe(theirs[0].id);
  });
});

describe('last activity', () => {
  const record = async (userId: string) => {
    const [session] = await liveSessions(userId);
    return { ...session, lastActive: session.lastActive.getTime() };
  };
  /** The session's last call `ms` ago, as another isolate would have written it (this one forgets its own touch). */
  const backdate = async (session: Pick<SessionRecord, 'id'>, ms: number) => {
    const lastActive = Date.now() - ms;
    await db()
      .update(sessions)
      .set({ lastActive: new Date(lastActive) })
      .where(eq(sessions.id, session.id));
    liveIsolateCaches().get('session-last-touched')?.clear();
    return lastActive;
  };

  // Through both ways in: the plain session check (profile) and the one in a list's batch (My Keys).
  for (const path of ['/api/users/profile', '/api/users/my-keys']) {
    it(`is written after a request to ${path} once it is ${LAST_ACTIVE_WRITE_MS / 60_000} minutes old, and not before`, async () => {
      const { user, token } = await signedInUser();
      const recent = await backdate(await record(user.id), 60_000);
      expect((await api('GET', path, { token })).status).toBe(200);
      // The write would come in the request's waitUntil: give it time to land, were it made.
      await new Promise((r) => setTimeout(r, 200));
      expect((await record(user.id)).lastActive).toBe(recent);

      const stale = await backdate(await record(user.id), LAST_ACTIVE_WRITE_MS + 1000);
      const before = Date.now();
      expect((await api('GET', path, { token })).status).toBe(200);
      await vi.waitFor(async () => expect((await record(user.id)).lastActive).toBeGreaterThanOrEqual(before));
      expect(stale).toBeLessThan(before);
    });
  }
});

describe('DELETE /api/users/sessions/{id}', () => {
  it('ends another session, which is refused on its next request', async () => {
    const { email, token, user } = await signedInUser();
    const other = await signInFrom(email, SAFARI_IPHONE, {}, '198.51.100.9');
    expect((await api('GET', '/api/users/profile', { token: other })).status).toBe(200);
    const list = (await api('GET', '/api/users/sessions', { token })).body.sessions;
    const target = list.find((s) => !s.current)!;
    const res = await api('DELETE', `/api/users/sessions/${target.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Session terminated' });
    const refused = await api('GET', '/api/users/profile', { token: other });
    expect(refused.status).toBe(401);
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(200);
    expect((await api('GET', '/api/users/sessions', { token })).body.sessions).toHaveLength(1);
    const events = await db().select().from(securityLog).where(eq(securityLog.userId, user.id)).all();
    expect(events.map((e) => e.event)).toContain('session_terminated');
  });

  it('cannot end someone else’s session, and says not found for unknown ids', async () => {
    const a = await signedInUser();
    const b = await signedInUser();
    const theirs = (await api('GET', '/api/users/sessions', { token: b.token })).body.sessions[0].id;
    const res = await api('DELETE', `/api/users/sessions/${theirs}`, { token: a.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Session not found' });
    expect((await api('GET', '/api/users/profile', { token: b.token })).status).toBe(200);
    expect((await api('DELETE', '/api/users/sessions/not-a-real-session-id', { token: a.token })).status).toBe(404);
    expect((await api('DELETE', '/api/users/sessions/bad%20id', { token: a.token })).status).toBe(400);
  });

  it('ends this session when it names itself', async () => {
    const { token } = await signedInUser();
    const [mine] = (await api('GET', '/api/users/sessions', { token })).body.sessions;
    const res = await api('DELETE', `/api/users/sessions/${mine.id}`, { token });
    expect(res.body.message).toBe('Signed out of this device');
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(401);
  });
});

describe('GET /api/users/security-log', () => {
  it('records sign-ins, failures, sign-outs, password changes and session ends, newest first', async () => {
    const { email, token, user } = await signedInUser();
    await api('POST', '/api/auth/login', { body: { email, password: 'Wrong-password1' }, ip: '192.0.2.44' });
    const extra = (await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).body.token;
    await api('POST', '/api/auth/logout', { token: extra });
    await api('PUT', '/api/users/change-password', { token, body: { currentPassword: TEST_PASSWORD, newPassword: 'Changed9Pass' } });
    // Background writes settle before the read.
    await new Promise((r) => setTimeout(r, 100));
    const res = await api('GET', '/api/users/security-log', { token });
    expect(res.status).toBe(200);
    const logs = res.body.logs as Array<{ event: string; ipAddress: string; timestamp: string }>;
    const events = logs.map((l) => l.event);
    for (const event of ['login', 'login_failed', 'logout', 'password_changed']) expect(events).toContain(event);
    expect(logs.find((l) => l.event === 'login_failed')!.ipAddress).toBe('192.0.2.44');
    expect(events[0]).toBe('password_changed');
    const times = logs.map((l) => Date.parse(l.timestamp));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    for (const l of logs) expect(Object.keys(l).sort()).toEqual(['_id', 'event', 'ipAddress', 'timestamp']);
    // Only this account's entries.
    const stored = await db().select().from(securityLog).where(eq(securityLog.userId, user.id)).all();
    expect(logs).toHaveLength(stored.length);
  });

  it('needs a session', async () => {
    expect((await api('GET', '/api/users/security-log')).status).toBe(401);
    expect((await api('GET', '/api/users/sessions')).status).toBe(401);
    expect((await api('GET', '/api/users/security')).status).toBe(401);
  });
});

describe('GET /api/users/security', () => {
  it('gives the status of each protection', async () => {
    const { token } = await signedInUser();
    const res = await api('GET', '/api/users/security', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      twoFactorEnabled: false,
      googleConnected: false,
      recoveryTokens: 0,
      googleEmail: null,
      hasPassword: true,
      googleAvailable: Boolean(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET),
    });
  });
});

describe('describeUserAgent', () => {
  it.each([
    [CHROME_WINDOWS, 'Windows computer', 'Chrome 126'],
    [SAFARI_IPHONE, 'iPhone', 'Safari 17'],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Mac',
      'Safari 17',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 'Linux computer', 'Firefox 127'],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      'Android phone',
      'Chrome 126',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
      'Windows computer',
      'Edge 126',
    ],
    [null, 'Unknown device', 'Unknown browser'],
  ])('reads %s', (ua, device, browser) => {
    expect(describeUserAgent(ua)).toEqual({ device, browser });
  });
});
