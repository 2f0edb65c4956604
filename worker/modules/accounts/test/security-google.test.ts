// Google sign-in and connect, end to end against a local stand-in for Google's endpoints: the
// Worker's real arctic calls go out through fetch, which the stand-in answers as Google would
// (checking the client's credentials, the redirect address and the PKCE verifier).
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { app } from '../../../app';
import { securityLog, users } from '../../../platform/db/schema';
import { createUser } from '../users';
import { MAINTENANCE_MESSAGE } from '../../../platform/errors';
import type { TestAnswerBody } from '../../../platform/api-client';
import { TEST_PASSWORD, api, db, freshIp, liveSessions, signedInUser, uniqueName, withSettings } from '../../../test/helpers';
import { codeFor, enableTwoFactor } from '../../../test/security-helpers';
import { type Role } from '../../../platform/vocabulary';

const CLIENT_ID = 'keypanel-test.apps.googleusercontent.com';
const CLIENT_SECRET = 'google-test-secret';
const TOKEN_ENDPOINT = 'https://oauth2.googleapis.com/token';
const googleEnv = { ...env, GOOGLE_CLIENT_ID: CLIENT_ID, GOOGLE_CLIENT_SECRET: CLIENT_SECRET };

type Claims = Record<string, unknown>;

/** Google's authorization server, as far as this app can see it. */
class FakeGoogle {
  private grants = new Map<string, { challenge: string; redirectUri: string; claims: Claims }>();
  tokenCalls = 0;

  /** The person signs in at Google and consents; Google sends the browser back with a code. */
  approve(authorizationUrl: string, claims: Claims): { code: string; state: string } {
    const url = new URL(authorizationUrl);
    expect(url.origin + url.pathname).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    const code = crypto.randomUUID();
    this.grants.set(code, {
      challenge: url.searchParams.get('code_challenge')!,
      redirectUri: url.searchParams.get('redirect_uri')!,
      claims,
    });
    return { code, state: url.searchParams.get('state')! };
  }

  async token(request: Request): Promise<Response> {
    this.tokenCalls++;
    const form = new URLSearchParams(await request.text());
    const refuse = (error: string) => Response.json({ error }, { status: 400 });
    if (request.headers.get('authorization') !== `Basic ${btoa(`${CLIENT_ID}:${CLIENT_SECRET}`)}`)
      return Response.json({ error: 'invalid_client' }, { status: 401 });
    const grant = this.grants.get(form.get('code') ?? '');
    if (!grant || form.get('grant_type') !== 'authorization_code') return refuse('invalid_grant');
    this.grants.delete(form.get('code')!);
    if (form.get('redirect_uri') !== grant.redirectUri) return refuse('redirect_uri_mismatch');
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(form.get('code_verifier') ?? ''));
    if (encodeBase64urlNoPadding(new Uint8Array(digest)) !== grant.challenge) return refuse('invalid_grant');
    const now = Math.floor(Date.now() / 1000);
    const idToken = [
      { alg: 'RS256', typ: 'JWT' },
      { iss: 'https://accounts.google.com', aud: CLIENT_ID, iat: now, exp: now + 3600, ...grant.claims },
    ]
      .map((part) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(part))))
      .concat('c2lnbmF0dXJl')
      .join('.');
    return Response.json({
      access_token: 'ya29.test',
      expires_in: 3599,
      token_type: 'Bearer',
      scope: 'openid email profile',
      id_token: idToken,
    });
  }
}

let google: FakeGoogle;
beforeEach(() => {
  google = new FakeGoogle();
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (request.url === TOKEN_ENDPOINT) return google.token(request);
    return realFetch(input, init);
  });
});
afterEach(() => vi.restoreAllMocks());

/** A browser: keeps cookies across calls to the Worker configured for Google. */
class Browser {
  cookies = new Map<string, string>();
  ip = freshIp();

  async call<M extends string, P extends string>(
    method: M,
    path: P,
    options: { token?: string; body?: unknown; workerEnv?: typeof googleEnv } = {},
  ) {
    const headers: Record<string, string> = { 'cf-connecting-ip': this.ip };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.request(
      `http://localhost${path}`,
      { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), redirect: 'manual' },
      options.workerEnv ?? googleEnv,
    );
    for (const cookie of res.headers.getAll('set-cookie')) {
      const [pair] = cookie.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (/max-age=0/i.test(cookie) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as TestAnswerBody<M, P> };
  }

  /** Start → Google → callback → the app collects the outcome. */
  async signInWithGoogle(claims: Claims, tamper?: (approval: { code: string; state: string }) => { code: string; state: string }) {
    const start = await this.call('GET', '/api/auth/google/url');
    expect(start.status).toBe(200);
    return this.returnFromGoogle(start.body.url, claims, tamper);
  }

  async returnFromGoogle(authorizationUrl: string, claims: Claims, tamper = (a: { code: string; state: string }) => a) {
    const { code, state } = tamper(google.approve(authorizationUrl, claims));
    const callback = await this.call(
      'GET',
      `/api/auth/google/callback?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
    );
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toBe('/login/google');
    return this.call('POST', '/api/auth/google/complete');
  }
}

const person = (extra: Claims = {}) => {
  const name = uniqueName('g');
  return { sub: `google-${crypto.randomUUID()}`, email: `${name}@gmail.test`, email_verified: true, name: `${name} Person`, ...extra };
};

/** Someone new signs in with Google and is refused with `status` and `code`: no account is opened for them. */
async function expectNewcomerRefused(status: number, code: string) {
  const claims = person();
  const done = await new Browser().signInWithGoogle(claims);
  expect(done.status).toBe(status);
  expect(done.body.code).toBe(code);
  expect(await db().select().from(users).where(eq(users.email, claims.email)).get()).toBeUndefined();
}

describe('starting Google sign-in', () => {
  it('sends the browser to Google with state and PKCE kept in a short-lived HttpOnly cookie', async () => {
    const browser = new Browser();
    const res = await browser.call('GET', '/api/auth/google');
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.host).toBe('accounts.google.com');
    expect(location.searchParams.get('redirect_uri')).toBe('http://localhost:8787/api/auth/google/callback');
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.searchParams.get('code_challenge')).toBeTruthy();
    const cookie = res.headers.getAll('set-cookie').find((c: string) => c.startsWith('kp_google_flow='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/api\/auth\/google/);
    expect(cookie).toMatch(/Max-Age=600/);
    // The verifier is in the cookie only, never in the address Google sees.
    expect(location.toString()).not.toContain(
      (JSON.parse(decodeURIComponent(browser.cookies.get('kp_google_flow')!).replace(/\.[^.]*$/, '')) as { verifier: string }).verifier,
    );
  });

  it('answers 404 NOT_CONFIGURED, saying what to set, when Google is not configured', async () => {
    for (const path of ['/api/auth/google', '/api/auth/google/url']) {
      const res = await api('GET', path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 'NOT_CONFIGURED',
        message:
          'Sign in with Google is not available on this server (it needs GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET). Please use your email and password.',
      });
    }
    const { token } = await signedInUser();
    const connect = await api('POST', '/api/users/connect-google', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(connect.status).toBe(404);
  });
});

describe('signing in with Google', () => {
  it('creates an account on first sign-in, hands over the token without a URL, and opens the same account next time', async () => {
    const browser = new Browser();
    const claims = person();
    const done = await browser.signInWithGoogle(claims);
    expect(done.status).toBe(200);
    expect(done.body.user).toMatchObject({ email: claims.email, googleConnected: true, role: 'user', credits: 0 });
    expect(done.body.user!.username).toMatch(/^g[a-z0-9]+Person$/);
    expect((await api('GET', '/api/users/profile', { token: done.body.token })).body._id).toBe(done.body.user!._id);
    // The outcome is collected once.
    expect(browser.cookies.has('kp_google_result')).toBe(false);
    const again = await browser.call('POST', '/api/auth/google/complete');
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('No Google sign-in is waiting here. Please start again.');

    const row = await db().select().from(users).where(eq(users.id, done.body.user!._id)).get();
    expect(row).toMatchObject({ googleId: claims.sub, googleEmail: claims.email, passwordHash: null });
    const events = (await db().select().from(securityLog).where(eq(securityLog.userId, row!.id)).all()).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['register', 'login']));

    const second = await new Browser().signInWithGoogle(claims);
    expect(second.body.user!._id).toBe(done.body.user!._id);
  });

  it('refuses a callback whose state does not match the browser’s (and never asks Google for tokens)', async () => {
    const browser = new Browser();
    const done = await browser.signInWithGoogle(person(), (a) => ({ ...a, state: `${a.state}x` }));
    expect(done.status).toBe(401);
    expect(done.body).toEqual({
      code: 'UNAUTHORIZED',
      message: 'Google sign-in could not be verified (state mismatch). Please try again.',
      details: { intent: 'signin' },
    });
    expect(google.tokenCalls).toBe(0);
  });

  it('refuses a callback in a browser that never started the flow (login CSRF)', async () => {
    const attacker = new Browser();
    const start = await attacker.call('GET', '/api/auth/google/url');
    const { code, state } = google.approve(start.body.url, person());
    const victim = new Browser();
    const callback = await victim.call('GET', `/api/auth/google/callback?code=${code}&state=${state}`);
    expect(callback.status).toBe(302);
    const done = await victim.call('POST', '/api/auth/google/complete');
    expect(done.status).toBe(401);
    expect(done.body.message).toBe('Your Google sign-in expired or was started in another browser. Please try again.');
    expect(google.tokenCalls).toBe(0);
  });

  it('refuses a tampered flow cookie', async () => {
    const browser = new Browser();
    const start = await browser.call('GET', '/api/auth/google/url');
    const value = decodeURIComponent(browser.cookies.get('kp_google_flow')!);
    const forged = value.replace('"intent":"signin"', '"intent":"connect"');
    browser.cookies.set('kp_google_flow', encodeURIComponent(forged));
    const done = await browser.returnFromGoogle(start.body.url, person());
    expect(done.status).toBe(401);
    expect(google.tokenCalls).toBe(0);
  });

  it('refuses when Google does not accept the code (PKCE verifier from another flow)', async () => {
    const browser = new Browser();
    const first = await browser.call('GET', '/api/auth/google/url');
    const firstCookie = browser.cookies.get('kp_google_flow')!;
    const second = await browser.call('GET', '/api/auth/google/url');
    const { code } = google.approve(second.body.url, person());
    // The first flow's cookie and state, the second flow's code: Google refuses the verifier.
    browser.cookies.set('kp_google_flow', firstCookie);
    const state = new URL(first.body.url).searchParams.get('state')!;
    await browser.call('GET', `/api/auth/google/callback?code=${code}&state=${state}`);
    const done = await browser.call('POST', '/api/auth/google/complete');
    expect(done.status).toBe(401);
    expect(done.body.message).toBe('Google did not confirm the sign-in. Please try again.');
    expect(google.tokenCalls).toBe(1);
  });

  it('refuses an unverified email, a token for another client, and a cancelled sign-in', async () => {
    const unverified = await new Browser().signInWithGoogle(person({ email_verified: false }));
    expect(unverified.status).toBe(403);
    expect(unverified.body.message).toBe('Your Google account has no verified email address.');
    const otherClient = await new Browser().signInWithGoogle(person({ aud: 'someone-else.apps.googleusercontent.com' }));
    expect(otherClient.status).toBe(401);
    expect(otherClient.body.message).toBe('Google sign-in could not be verified (wrong audience). Please try again.');

    const browser = new Browser();
    const start = await browser.call('GET', '/api/auth/google/url');
    const state = new URL(start.body.url).searchParams.get('state')!;
    await browser.call('GET', `/api/auth/google/callback?error=access_denied&state=${state}`);
    const cancelled = await browser.call('POST', '/api/auth/google/complete');
    expect(cancelled.status).toBe(401);
    expect(cancelled.body.message).toBe('Google sign-in was cancelled.');
  });

  it('does not take over an existing account that has the same email', async () => {
    const { email, user } = await signedInUser();
    const done = await new Browser().signInWithGoogle(person({ email }));
    expect(done.status).toBe(409);
    expect(done.body.message).toBe(
      'An account with this email already exists. Sign in with your password, then connect Google in Security settings.',
    );
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.googleId).toBeNull();
  });

  it('creates no account while registration is closed', () =>
    withSettings({ registrationEnabled: false }, () => expectNewcomerRefused(403, 'REGISTRATION_DISABLED')));

  it('does not skip two-factor: the account still gets the code step', async () => {
    const claims = person();
    const first = await new Browser().signInWithGoogle(claims);
    // No password: a sign-in moments ago is the step-up proof.
    const secret = await enableTwoFactor(first.body.token!, {});
    const done = await new Browser().signInWithGoogle(claims);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ requires2FA: true, challenge: expect.any(String) as unknown });
    const finished = await api('POST', '/api/auth/login/2fa', { body: { challenge: done.body.challenge, code: codeFor(secret, 1) } });
    expect(finished.status).toBe(200);
    expect(finished.body.user._id).toBe(first.body.user!._id);
  });
});

describe('connecting Google to a signed-in account', () => {
  async function connect(token: string, claims: Claims, browser = new Browser()) {
    const start = await browser.call('POST', '/api/users/connect-google', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(start.status).toBe(200);
    return browser.returnFromGoogle(start.body.url, claims);
  }

  it('links the Google account, then Google signs in to it, and it can be disconnected', async () => {
    const { token, user } = await signedInUser();
    const claims = person();
    const done = await connect(token, claims);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ connected: true, message: 'Google account connected' });
    const info = await api('GET', '/api/users/security', { token });
    expect(info.body).toMatchObject({ googleConnected: true, googleEmail: claims.email });
    const viaGoogle = await new Browser().signInWithGoogle(claims);
    expect(viaGoogle.body.user!._id).toBe(user.id);

    const again = await new Browser().call('POST', '/api/users/connect-google', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(again.status).toBe(409);

    const off = await api('DELETE', '/api/users/disconnect-google', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(off.status).toBe(200);
    expect((await api('GET', '/api/users/security', { token })).body).toMatchObject({ googleConnected: false, googleEmail: null });
    expect((await api('DELETE', '/api/users/disconnect-google', { token, body: { currentPassword: TEST_PASSWORD } })).status).toBe(409);
    const events = (await db().select().from(securityLog).where(eq(securityLog.userId, user.id)).all()).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['google_connected', 'google_disconnected']));
  });

  it('refuses a Google account that is linked to someone else', async () => {
    const claims = person();
    await new Browser().signInWithGoogle(claims);
    const { token, user } = await signedInUser();
    const done = await connect(token, claims);
    expect(done.status).toBe(409);
    expect(done.body).toMatchObject({
      message: 'This Google account is already connected to another account.',
      details: { intent: 'connect' },
    });
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.googleId).toBeNull();
  });

  it('does not finish for a session that ended meanwhile', async () => {
    const { token, user } = await signedInUser();
    const browser = new Browser();
    const start = await browser.call('POST', '/api/users/connect-google', { token, body: { currentPassword: TEST_PASSWORD } });
    await api('POST', '/api/auth/logout', { token });
    const done = await browser.returnFromGoogle(start.body.url, person());
    expect(done.status).toBe(401);
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.googleId).toBeNull();
  });

  it('will not disconnect the only way into an account', async () => {
    const first = await new Browser().signInWithGoogle(person());
    const res = await api('DELETE', '/api/users/disconnect-google', { token: first.body.token });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/^Google is the only way into this account/);
    expect((await api('GET', '/api/users/security', { token: first.body.token })).body).toMatchObject({
      googleConnected: true,
      hasPassword: false,
    });
  });

  it('lets a password account disconnect, and it still signs in with the password', async () => {
    const { token, email } = await signedInUser();
    await connect(token, person());
    expect((await api('DELETE', '/api/users/disconnect-google', { token, body: { currentPassword: TEST_PASSWORD } })).status).toBe(200);
    expect((await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).status).toBe(200);
  });
});

describe('Google sign-in during maintenance', () => {
  const inMaintenance = (work: () => Promise<void>) => withSettings({ maintenanceMode: true }, work);
  async function googleAccount(role: Role) {
    const claims = person();
    const user = await createUser(db(), {
      username: uniqueName('gm'),
      email: claims.email,
      password: null,
      role,
      googleId: claims.sub,
      googleEmail: claims.email,
    });
    return { claims, user };
  }

  it('lets an owner in, through the same browser navigations', () =>
    inMaintenance(async () => {
      const { claims, user } = await googleAccount('owner');
      const browser = new Browser();
      // What the original client does: navigate to the start, which sends the browser on to Google.
      const start = await browser.call('GET', '/api/auth/google');
      expect(start.status).toBe(302);
      const done = await browser.returnFromGoogle(start.headers.get('location')!, claims);
      expect(done.status).toBe(200);
      expect(done.body.user!._id).toBe(user.id);
      expect((await browser.call('GET', '/api/admin/stats', { token: done.body.token })).status).toBe(200);
    }));

  it('sends anyone else back to the app with the maintenance message, and gives no session', () =>
    inMaintenance(async () => {
      for (const role of ['user', 'reseller'] as const) {
        const { claims, user } = await googleAccount(role);
        // returnFromGoogle checks that the callback sends the browser to the app's page, not JSON.
        const done = await new Browser().signInWithGoogle(claims);
        expect(done.status, role).toBe(503);
        expect(done.body).toMatchObject({ code: 'MAINTENANCE', message: MAINTENANCE_MESSAGE });
        expect(await liveSessions(user.id)).toEqual([]);
      }
    }));

  it('opens no account for someone new, though registration is open', () => inMaintenance(() => expectNewcomerRefused(503, 'MAINTENANCE')));

  it('does not finish connecting a customer’s Google account started before it began', async () => {
    const { token, user } = await signedInUser();
    const browser = new Browser();
    const start = await browser.call('POST', '/api/users/connect-google', { token, body: { currentPassword: TEST_PASSWORD } });
    expect(start.status).toBe(200);
    await inMaintenance(async () => {
      const done = await browser.returnFromGoogle(start.body.url, person());
      expect(done.status).toBe(503);
      expect(done.body).toMatchObject({ code: 'MAINTENANCE', details: { intent: 'connect' } });
      expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.googleId).toBeNull();
    });
  });
});
