import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { securityLog, users } from '../../../platform/db/schema';
import { verifySessionToken } from '../sessions';
import { TEST_PASSWORD, api, db, signedInUser, uniqueName, withSettings } from '../../../test/helpers';

const newAccount = () => {
  const username = uniqueName('reg');
  return { username, email: `${username}@Example.com`, password: 'Sturdy-secret-1', confirmPassword: 'Sturdy-secret-1' };
};

describe('POST /api/auth/register', () => {
  it('creates a user and signs them in', async () => {
    const account = newAccount();
    const res = await api('POST', '/api/auth/register', { body: account });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Registration successful',
      user: { username: account.username, email: account.email.toLowerCase(), role: 'user', balance: 0, credits: 0, isActive: true },
    });
    expect(res.body.user._id).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.user).not.toHaveProperty('passwordHash');
    expect(JSON.stringify(res.body)).not.toContain('pbkdf2');
    const profile = await api('GET', '/api/users/profile', { token: res.body.token });
    expect(profile.status).toBe(200);
    expect(profile.body.username).toBe(account.username);
    const row = await db().select().from(users).where(eq(users.id, res.body.user._id)).get();
    expect(row?.passwordHash).toMatch(/^pbkdf2-sha256\$v1\$100000\$/);
  });

  it.each([
    [{ username: 'ab' }, 'Username must be at least 3 characters'],
    [{ username: 'a'.repeat(31) }, 'Username must be at most 30 characters'],
    [{ username: '' }, 'Username is required'],
    [{ email: 'not-an-email' }, 'Please enter a valid email address'],
    [{ email: '' }, 'Email is required'],
    [{ password: '12345', confirmPassword: '12345' }, 'Password must be at least 10 characters'],
    [{ confirmPassword: 'different' }, 'Passwords do not match'],
  ])('rejects %o with "%s" and creates nothing', async (override, message) => {
    const account = { ...newAccount(), ...override };
    const res = await api('POST', '/api/auth/register', { body: account });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    const count = await db()
      .select()
      .from(users)
      .where(eq(users.email, String(account.email).toLowerCase()))
      .all();
    expect(count).toHaveLength(0);
  });

  it('rejects a missing password field', async () => {
    const { password: _, ...account } = newAccount();
    const res = await api('POST', '/api/auth/register', { body: account });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Password is required');
  });

  it('refuses a taken email or username with 409', async () => {
    const account = newAccount();
    expect((await api('POST', '/api/auth/register', { body: account })).status).toBe(201);
    const sameEmail = await api('POST', '/api/auth/register', { body: { ...newAccount(), email: account.email.toUpperCase() } });
    expect(sameEmail.status).toBe(409);
    const sameName = await api('POST', '/api/auth/register', { body: { ...newAccount(), username: account.username.toUpperCase() } });
    expect(sameName.status).toBe(409);
    expect(sameName.body).toEqual({ code: 'CONFLICT', message: 'This username is already taken' });
  });

  it('is closed when registration is disabled', () =>
    withSettings({ registrationEnabled: false }, async () => {
      const res = await api('POST', '/api/auth/register', { body: newAccount() });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('REGISTRATION_DISABLED');
    }));
});

describe('POST /api/auth/login', () => {
  it('returns a token and the user, and records the sign-in', async () => {
    const { email, user } = await signedInUser();
    const res = await api('POST', '/api/auth/login', { body: { email: email.toUpperCase(), password: TEST_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.token?.split('.')).toHaveLength(3);
    expect(res.body.user).toMatchObject({ _id: user.id, email, role: 'user' });
    expect(res.body.user?.lastLogin).not.toBeNull();
    const events = await db().select().from(securityLog).where(eq(securityLog.userId, user.id)).all();
    expect(events.map((e) => e.event)).toContain('login');
  });

  it('gives the same answer for an unknown email and a wrong password', async () => {
    const { email } = await signedInUser();
    const wrong = await api('POST', '/api/auth/login', { body: { email, password: 'wrong-password' } });
    const unknown = await api('POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ code: 'INVALID_CREDENTIALS', message: 'Invalid email or password' });
  });

  it('rejects a token pasted as the email', async () => {
    const res = await api('POST', '/api/auth/login', { body: { email: 'eyJhbGciOi.abc.def', password: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid email format. Please enter a valid email address.');
  });

  it('requires email and password', async () => {
    expect((await api('POST', '/api/auth/login', { body: { password: 'x' } })).body.message).toBe('Email is required');
    expect((await api('POST', '/api/auth/login', { body: { email: 'a@b.co' } })).body.message).toBe('Password is required');
  });

  it('makes a 24-hour session, or 30 days with rememberMe', async () => {
    const { email } = await signedInUser();
    const decode = (t = '') => JSON.parse(atob(t.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp: number; iat: number };
    const short = await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
    const long = await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD, rememberMe: true } });
    const shortClaims = decode(short.body.token);
    const longClaims = decode(long.body.token);
    expect(shortClaims.exp - shortClaims.iat).toBe(24 * 3600);
    expect(longClaims.exp - longClaims.iat).toBe(30 * 24 * 3600);
  });

  it('refuses a deactivated account, and its existing sessions stop working', async () => {
    const { email, user, token } = await signedInUser();
    const owner = await signedInUser('owner');
    const setActive = (isActive: boolean) => api('PUT', `/api/admin/users/${user.id}`, { token: owner.token, body: { isActive } });
    expect((await setActive(false)).status).toBe(200);
    const login = await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
    expect(login.status).toBe(403);
    expect(login.body.code).toBe('ACCOUNT_DISABLED');
    const profile = await api('GET', '/api/users/profile', { token });
    expect(profile.status).toBe(401);
    // Reactivating does not bring the ended session back.
    expect((await setActive(true)).status).toBe(200);
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(401);
  });
});

describe('sessions and tokens', () => {
  it('logout ends the session on the server', async () => {
    const { token } = await signedInUser();
    expect((await api('GET', '/api/users/profile', { token })).status).toBe(200);
    const out = await api('POST', '/api/auth/logout', { token });
    expect(out.status).toBe(200);
    const after = await api('GET', '/api/users/profile', { token });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('UNAUTHORIZED');
  });

  it('needs a token for the profile', async () => {
    const res = await api('GET', '/api/users/profile');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: 'Please sign in to continue' });
  });

  it('refuses a token with alg none', async () => {
    const { user, token } = await signedInUser();
    const { sid } = decodeJwt(token);
    const unsigned = new UnsecuredJWT({ sid }).setSubject(user.id).setIssuedAt().setExpirationTime('1h').encode();
    expect((await api('GET', '/api/users/profile', { token: unsigned })).status).toBe(401);
  });

  it('refuses a tampered token', async () => {
    const { token } = await signedInUser();
    const other = await signedInUser();
    const [header, , signature] = token.split('.');
    const forged = [header, other.token.split('.')[1], signature].join('.');
    expect((await api('GET', '/api/users/profile', { token: forged })).status).toBe(401);
    // One character of the signature changed: its first, whose six bits all count (a last character's
    // low bits are padding, so changing only those could leave the signature as it was).
    const flipped = `${header}.${token.split('.')[1]}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect((await api('GET', '/api/users/profile', { token: flipped })).status).toBe(401);
  });

  it('refuses a token signed with another secret or another algorithm', async () => {
    const { user, token } = await signedInUser();
    const { sid } = decodeJwt(token);
    const wrongSecret = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-that-is-long-enough-0123456789'));
    expect((await api('GET', '/api/users/profile', { token: wrongSecret })).status).toBe(401);
    const hs512 = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject(user.id)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(env.JWT_SECRET));
    expect((await api('GET', '/api/users/profile', { token: hs512 })).status).toBe(401);
  });

  it('refuses an expired token', async () => {
    const { user, token } = await signedInUser();
    const { sid } = decodeJwt(token);
    const expired = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(env.JWT_SECRET));
    expect((await api('GET', '/api/users/profile', { token: expired })).status).toBe(401);
  });

  it('refuses a token this Worker accepted before, once it has expired or under another secret', async () => {
    const { token } = await signedInUser();
    const { exp } = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp: number };
    // Accepted, and so remembered as verified.
    expect(await verifySessionToken(env.JWT_SECRET, token)).not.toBeNull();
    expect(await verifySessionToken(env.JWT_SECRET, token, exp * 1000 - 1)).not.toBeNull();
    expect(await verifySessionToken(env.JWT_SECRET, token, exp * 1000)).toBeNull();
    expect(await verifySessionToken('another-secret-that-is-long-enough-0123456789', token)).toBeNull();
  });
});
