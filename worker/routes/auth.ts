import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { users } from '../db/schema';
import { recordSecurityEvent } from '../domain/security-log';
import { createUser, findUserByEmail, toUserJson } from '../domain/users';
import { AppError } from '../lib/errors';
import { verifyPassword } from '../lib/password';
import { inBackground, requestOrigin } from '../lib/request';
import { createSession, endSession } from '../lib/sessions';
import { getSettings } from '../lib/settings';
import { jsonBody } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { loginSchema, registerSchema } from '../schemas/auth';

// One answer for an unknown email and a wrong password, so neither reveals an account.
const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Invalid email or password');

export const auth = new Hono<AppEnv>()
  .post('/register', jsonBody(registerSchema), async (c) => {
    const settings = await getSettings(c.env.KV);
    if (!settings.registrationEnabled) {
      throw new AppError('REGISTRATION_DISABLED', 'Registration is currently closed. Please contact the administrator.');
    }
    const { username, email, password } = c.req.valid('json');
    const origin = requestOrigin(c);
    const user = await createUser(c.var.db, { username, email, password });
    const { token } = await createSession(c.env, user.id, origin);
    await c.var.db.update(users).set({ lastLogin: new Date() }).where(eq(users.id, user.id));
    await inBackground(c, recordSecurityEvent(c.var.db, user.id, 'register', origin));
    return c.json(
      { success: true, token, user: toUserJson({ ...user, lastLogin: new Date() }), message: 'Registration successful' },
      201,
    );
  })
  .post('/login', jsonBody(loginSchema), async (c) => {
    const { email, password, rememberMe } = c.req.valid('json');
    const origin = requestOrigin(c);
    const user = await findUserByEmail(c.var.db, email);
    const ok = await verifyPassword(password, user?.passwordHash ?? null);
    if (!user || !ok) {
      if (user) await inBackground(c, recordSecurityEvent(c.var.db, user.id, 'login_failed', origin));
      throw invalidCredentials();
    }
    if (!user.isActive) throw new AppError('ACCOUNT_DISABLED', 'This account has been deactivated. Please contact support.');
    const { token } = await createSession(c.env, user.id, origin, rememberMe);
    const lastLogin = new Date();
    await c.var.db.update(users).set({ lastLogin }).where(eq(users.id, user.id));
    await inBackground(c, recordSecurityEvent(c.var.db, user.id, 'login', origin));
    return c.json({ token, user: toUserJson({ ...user, lastLogin }) }, 200);
  })
  .post('/logout', requireAuth, async (c) => {
    const { session, user } = c.var;
    await endSession(c.env.KV, user.id, session.id);
    await inBackground(c, recordSecurityEvent(c.var.db, user.id, 'logout', requestOrigin(c)));
    return c.json({ success: true, message: 'Logged out' }, 200);
  });
