// The local mailbox of a server started as `npm start` starts it: a new account's verification mail
// is there with no setup, on the page and through `keypanel mail list`, and its link works; the
// owner reads each mail's state with `keypanel mail status`.
import { describe, expect, it } from 'vitest';
import { apiCall, baseURL, json, keypanel, ownerSession, signedInHome, unique } from './helpers';

/** The mailbox page until it holds a mail to `email`. */
async function mailboxWith(email: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await (await fetch(new URL('/dev/mailbox', baseURL()))).text();
    if (page.includes(email) || Date.now() > deadline) return page;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the local mailbox', () => {
  it("holds a new account's verification mail, whose link works, and `keypanel mail list` prints it", async () => {
    const username = unique('mailbox');
    const email = `${username}@example.com`;
    const registered = await apiCall('POST', '/api/auth/register', { body: { username, email, password: 'Mailbox-Harbor-42' } });
    expect(registered.status).toBe(201);

    const page = await mailboxWith(email);
    expect(page).toContain('Verify your email address for KeyPanel');
    const link = page.match(/href="(http[^"]*\/verify-email#token=([A-Za-z0-9_-]+))"/);
    expect(link, 'a clickable verification link').not.toBeNull();
    // The link's page sends its token to the API, as the browser would.
    const verified = await apiCall('POST', '/api/auth/verify-email', { body: { token: link![2] } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const profile = await apiCall('GET', '/api/users/profile', { token: registered.body.token });
    expect((profile.body as { emailVerified: boolean }).emailVerified).toBe(true);

    const listed = await keypanel(['mail', 'list', '--format', 'json'], { home: signedInHome(await ownerSession()) });
    expect(listed.code, listed.stderr).toBe(0);
    const mails = json<Array<{ to: string; subject: string; text: string }>>(listed.stdout);
    expect(mails.find((m) => m.to === email)?.text).toContain('/verify-email#token=');

    const status = await keypanel(['mail', 'status', '--format', 'json', '--limit', '100'], { home: signedInHome(await ownerSession()) });
    expect(status.code, status.stderr).toBe(0);
    expect(json<Array<{ to: string; kind: string; state: string }>>(status.stdout)).toContainEqual(
      expect.objectContaining({ to: email, kind: 'verification', state: 'sent' }),
    );
    const bad = await keypanel(['mail', 'status', '--state', 'lost'], { home: signedInHome(await ownerSession()) });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('lost');
  });
});
