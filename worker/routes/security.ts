// The signed-in user's own account security (mounted at /api/users beside the profile routes).
import { desc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { SignedInEnv } from '../context';
import { runtimeLimit } from '../db/compiled';
import { securityLog, users } from '../db/schema';
import { deleteAllApiTokens, forgetApiTokenGrants } from '../domain/api-tokens';
import { assertMayDisconnectGoogle, disconnectGoogle, googleConfigured } from '../domain/google';
import { countRecoveryTokens, replaceRecoveryTokens } from '../domain/recovery';
import { recordSecurityEvent } from '../domain/security-log';
import { confirmStepUp } from '../domain/step-up';
import { passwordAttempt, refund } from '../domain/throttle';
import { beginTwoFactorSetup, disableTwoFactor, enableTwoFactor } from '../domain/two-factor';
import { findUserById, type UserRow } from '../domain/users';
import { AppError, notFound } from '../lib/errors';
import { hashPassword, verifyPassword } from '../lib/password';
import { requestOrigin } from '../lib/request';
import { endAllSessions, endSession, findSession, listSessions } from '../lib/sessions';
import { describeUserAgent } from '../lib/user-agent';
import { jsonBody, pathParams } from '../lib/validate';
import { requireAuth, sessionOf } from '../middleware/auth';
import type { SecurityInfo, SecurityLogEntry, SessionInfo } from '../schemas/entities';
import { containsIdentity, PERSONAL_PASSWORD_MESSAGE } from '../schemas/password-policy';
import {
  changePasswordSchema,
  disableTwoFactorSchema,
  sessionIdSchema,
  stepUpSchema,
  verifyTwoFactorSchema,
  type StepUpProof,
} from '../schemas/security';
import { startGoogleFlow } from './google';

const SECURITY_LOG_LIMIT = 100;

async function currentUser(c: Context<SignedInEnv>) {
  const user = await findUserById(c.var.db, c.var.caller.id);
  if (!user) throw notFound('User');
  return user;
}

/** Checks the signed-in user's password, counting failures like sign-in does (5 a minute). */
async function confirmPassword(c: Context<SignedInEnv>, user: { email: string; passwordHash: string | null }, password: string) {
  const origin = requestOrigin(c);
  const attempt = await passwordAttempt(c.var.db, user.email, origin.ipAddress);
  if (!(await verifyPassword(password, user.passwordHash))) return false;
  await refund(c.var.db, attempt);
  return true;
}

/** Step-up for a sensitive action (domain/step-up.ts): 403 REAUTH_REQUIRED before anything changes. */
export const stepUp = (c: Context<SignedInEnv>, user: UserRow, proof: StepUpProof) =>
  confirmStepUp(c.env, c.var.db, user, sessionOf(c.var.caller), proof, requestOrigin(c).ipAddress);

export const securityRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .get('/security', async (c) => {
    const user = await currentUser(c);
    const info: SecurityInfo = {
      twoFactorEnabled: user.twoFactorEnabled,
      googleConnected: user.googleId !== null,
      recoveryTokens: user.twoFactorEnabled ? await countRecoveryTokens(c.var.db, user.id) : 0,
      googleEmail: user.googleEmail,
      hasPassword: user.passwordHash !== null,
      // Google's redirect is built from APP_URL only, so without it Google cannot work here.
      googleAvailable: googleConfigured(c.env) && Boolean(c.env.APP_URL?.trim()),
    };
    return c.json(info, 200);
  })
  .put('/change-password', jsonBody(changePasswordSchema), async (c) => {
    const { currentPassword, newPassword, keepApiTokens } = c.req.valid('json');
    const user = await currentUser(c);
    if (!user.passwordHash) {
      throw new AppError('VALIDATION_ERROR', 'This account has no password yet. Use "Forgot password" on the sign-in page to set one.');
    }
    // The policy's one rule the schema cannot see: the account's own name and address.
    if (containsIdentity(newPassword, user)) throw new AppError('VALIDATION_ERROR', PERSONAL_PASSWORD_MESSAGE);
    if (!(await confirmPassword(c, user, currentPassword))) {
      throw new AppError('VALIDATION_ERROR', 'Current password is incorrect');
    }
    if (currentPassword === newPassword) throw new AppError('VALIDATION_ERROR', 'New password must be different from the current password');
    const db = c.var.db;
    const setPassword = db
      .update(users)
      .set({ passwordHash: await hashPassword(newPassword), passwordChangedAt: new Date() })
      .where(eq(users.id, user.id));
    // Tokens made with the old password end with it, in the same batch, unless the user keeps them.
    if (keepApiTokens) await setPassword;
    else {
      const [, revoked] = await db.batch([setPassword, deleteAllApiTokens(db, user.id)]);
      await forgetApiTokenGrants(
        c.env.KV,
        revoked.map((r) => r.tokenHash),
      );
    }
    // Whoever else was signed in with the old password is signed out; this device stays in.
    await endAllSessions(c.env.KV, user.id, sessionOf(c.var.caller).id);
    await recordSecurityEvent(db, user.id, 'password_changed', requestOrigin(c));
    const ended = keepApiTokens
      ? 'Other sessions have been signed out.'
      : 'Other sessions have been signed out and your API tokens revoked.';
    return c.json({ success: true, message: `Password changed successfully. ${ended}` }, 200);
  })
  // Step-up is asked here, before any secret is shown, not at verify-2fa.
  .post('/setup-2fa', jsonBody(stepUpSchema), async (c) => {
    const user = await currentUser(c);
    if (user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is already enabled');
    await stepUp(c, user, c.req.valid('json'));
    return c.json(await beginTwoFactorSetup(c.env, c.var.db, user), 200);
  })
  .post('/verify-2fa', jsonBody(verifyTwoFactorSchema), async (c) => {
    const user = await currentUser(c);
    await enableTwoFactor(c.env, c.var.db, user, c.req.valid('json').code);
    await recordSecurityEvent(c.var.db, user.id, '2fa_enabled', requestOrigin(c));
    return c.json({ success: true, message: 'Two-factor authentication enabled' }, 200);
  })
  // Extends the original call: step-up proof must come with it (docs/api.md, "Account security").
  .delete('/disable-2fa', jsonBody(disableTwoFactorSchema), async (c) => {
    const user = await currentUser(c);
    if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is not enabled');
    await stepUp(c, user, c.req.valid('json'));
    await disableTwoFactor(c.var.db, user.id);
    // A session that got in with the second factor must not outlive it elsewhere; this one stays.
    await endAllSessions(c.env.KV, user.id, sessionOf(c.var.caller).id);
    await recordSecurityEvent(c.var.db, user.id, '2fa_disabled', requestOrigin(c));
    return c.json({ success: true, message: 'Two-factor authentication disabled. Other sessions have been signed out.' }, 200);
  })
  .post('/recovery-tokens', jsonBody(stepUpSchema), async (c) => {
    const user = await currentUser(c);
    if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Turn on two-factor authentication before generating recovery tokens');
    await stepUp(c, user, c.req.valid('json'));
    const tokens = await replaceRecoveryTokens(c.var.db, user.id);
    await recordSecurityEvent(c.var.db, user.id, 'recovery_tokens_generated', requestOrigin(c));
    return c.json({ tokens }, 200);
  })
  .get('/sessions', async (c) => {
    const records = await listSessions(c.env.KV, c.var.caller.id);
    const sessions: SessionInfo[] = records
      .sort((a, b) => b.lastActive - a.lastActive)
      .map((s) => ({
        id: s.id,
        ...describeUserAgent(s.userAgent),
        location: s.location,
        ipAddress: s.ipAddress,
        lastActive: new Date(s.lastActive).toISOString(),
        createdAt: new Date(s.createdAt).toISOString(),
        current: s.id === sessionOf(c.var.caller).id,
      }));
    return c.json({ sessions }, 200);
  })
  .delete('/sessions/:id', pathParams(sessionIdSchema), async (c) => {
    const { id } = c.req.valid('param');
    const userId = c.var.caller.id;
    // The key holds the user id, so nobody can name another account's session.
    if (!(await findSession(c.env.KV, userId, id))) throw notFound('Session');
    await endSession(c.env.KV, userId, id);
    await recordSecurityEvent(c.var.db, userId, 'session_terminated', requestOrigin(c));
    return c.json({ success: true, message: id === sessionOf(c.var.caller).id ? 'Signed out of this device' : 'Session terminated' }, 200);
  })
  .get('/security-log', async (c) => {
    const rows = await c.var.db
      .select({ id: securityLog.id, event: securityLog.event, ipAddress: securityLog.ipAddress, createdAt: securityLog.createdAt })
      .from(securityLog)
      .where(eq(securityLog.userId, c.var.caller.id))
      .orderBy(desc(securityLog.createdAt), desc(securityLog.id))
      .limit(runtimeLimit(SECURITY_LOG_LIMIT))
      .all();
    const logs: SecurityLogEntry[] = rows.map((r) => ({
      _id: r.id,
      event: r.event,
      ipAddress: r.ipAddress,
      timestamp: r.createdAt.toISOString(),
    }));
    return c.json({ logs }, 200);
  })
  // A plain navigation carries no bearer token, so the app asks here and then goes to the address.
  .post('/connect-google', async (c) => {
    const user = await currentUser(c);
    if (user.googleId) throw new AppError('CONFLICT', 'A Google account is already connected. Disconnect it first.');
    const url = await startGoogleFlow(c, { intent: 'connect', rememberMe: false, userId: user.id, sessionId: sessionOf(c.var.caller).id });
    return c.json({ url }, 200);
  })
  .delete('/disconnect-google', jsonBody(stepUpSchema), async (c) => {
    const user = await currentUser(c);
    assertMayDisconnectGoogle(user);
    await stepUp(c, user, c.req.valid('json'));
    await disconnectGoogle(c.var.db, user);
    await recordSecurityEvent(c.var.db, user.id, 'google_disconnected', requestOrigin(c));
    return c.json({ success: true, message: 'Google account disconnected' }, 200);
  });
