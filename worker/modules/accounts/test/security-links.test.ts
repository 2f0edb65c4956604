// Links come from configuration (issue 18): reset links and the Google redirect are built from
// APP_URL only, never from the request's Host header; without APP_URL nothing is sent, and the log
// says why.
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { app } from '../../../app';
import type { Env } from '../../../platform/env';
import { readOutbox } from '../../../platform/mail';
import type { TestAnswerBody } from '../../../platform/api-client';
import { freshIp, signedInUser, TEST_PASSWORD } from '../../../test/helpers';
import { waitForMail } from '../../../test/security-helpers';

const APP_URL = env.APP_URL;
const googleEnv = { ...env, GOOGLE_CLIENT_ID: 'keypanel-test.apps.googleusercontent.com', GOOGLE_CLIENT_SECRET: 'google-test-secret' };
const unconfigured = { ...env, APP_URL: undefined };

/** A call whose address and Host header name an attacker's server. */
async function forged<P extends string, M extends string = 'GET'>(
  path: P,
  workerEnv: Env,
  init: { method?: M; body?: unknown; token?: string } = {},
) {
  const headers: Record<string, string> = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'cf-connecting-ip': freshIp() };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await app.request(
    `https://evil.example${path}`,
    { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) },
    workerEnv,
  );
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as TestAnswerBody<M, P> };
}

afterEach(() => vi.restoreAllMocks());

describe('reset links', () => {
  it('point at APP_URL whatever Host the request names', async () => {
    const { email } = await signedInUser();
    expect((await forged('/api/auth/forgot-password', env, { method: 'POST', body: { email } })).status).toBe(200);
    const [mail] = await waitForMail(email);
    expect(mail.text).toContain(`${APP_URL}/reset-password#token=`);
    expect(mail.text).not.toContain('evil.example');
  });

  it('are not sent without APP_URL: 404 NOT_CONFIGURED for every address, and the log says why', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { email } = await signedInUser();
    const known = await forged('/api/auth/forgot-password', unconfigured, { method: 'POST', body: { email } });
    const unknown = await forged('/api/auth/forgot-password', unconfigured, { method: 'POST', body: { email: `nobody-${email}` } });
    expect(known).toEqual(unknown);
    expect(known.status).toBe(404);
    expect(known.body.code).toBe('NOT_CONFIGURED');
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^APP_URL is not set: refusing to build a password reset link/));
    expect(await readOutbox(env.KV, email)).toEqual([]);
  });
});

describe('the Google redirect', () => {
  it('is built from APP_URL whatever Host the request names', async () => {
    const res = await forged('/api/auth/google/url', googleEnv);
    expect(res.status).toBe(200);
    expect(new URL(res.body.url).searchParams.get('redirect_uri')).toBe(`${APP_URL}/api/auth/google/callback`);
    const { token } = await signedInUser();
    const connect = await forged('/api/users/connect-google', googleEnv, {
      method: 'POST',
      token,
      body: { currentPassword: TEST_PASSWORD },
    });
    expect(new URL(connect.body.url).searchParams.get('redirect_uri')).toBe(`${APP_URL}/api/auth/google/callback`);
  });

  it('is not offered without APP_URL, and the log says why', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const noUrl = { ...googleEnv, APP_URL: undefined };
    const res = await forged('/api/auth/google/url', noUrl);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_CONFIGURED');
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^APP_URL is not set: refusing to build the Google redirect/));
    const { token } = await signedInUser();
    expect((await forged('/api/users/security', noUrl, { token })).body.googleAvailable).toBe(false);
    expect((await forged('/api/users/security', googleEnv, { token })).body.googleAvailable).toBe(true);
  });
});
