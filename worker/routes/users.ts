// /api/users: the signed-in user's own things: profile, keys and devices, dashboard figures, account
// security (password, two-factor, sessions, Google, the security log) and API tokens.
import { desc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { runtimeLimit } from '../db/compiled';
import { securityLog, users } from '../db/schema';
import { createApiToken, deleteAllApiTokens, forgetApiTokenGrants, listApiTokens, revokeApiToken } from '../domain/api-tokens';
import { removeOwnDevice } from '../domain/devices';
import { assertMayConnectGoogle, assertMayDisconnectGoogle, disconnectGoogle, googleConfigured } from '../domain/google';
import { listOwnKeys } from '../domain/my-keys';
import { countRecoveryTokens, replaceRecoveryTokens } from '../domain/recovery';
import { recordSecurityEvent } from '../domain/security-log';
import { dashboardStats } from '../domain/stats';
import { beginTwoFactorSetup, disableTwoFactor, enableTwoFactor } from '../domain/two-factor';
import { toUserJson } from '../domain/users';
import { AppError, notFound } from '../lib/errors';
import { startGoogleFlow } from '../lib/google-flow';
import { hashPassword } from '../lib/password';
import { inBackground, jsonText, requestOrigin } from '../lib/request';
import { endAllSessions, endSession, findSession, listSessions } from '../lib/sessions';
import { confirmPassword, currentUser, stepUp } from '../lib/signed-in';
import { describeUserAgent } from '../lib/user-agent';
import { jsonBody, pathParams, queryParams } from '../lib/validate';
import { requireAuth, sessionOf } from '../middleware/auth';
import { apiTokenIdParam, createApiTokenSchema } from '../schemas/api-tokens';
import type { CreatedApiToken, SecurityInfo, SecurityLogEntry, SessionInfo } from '../schemas/entities';
import { myKeysQuerySchema, ownDeviceParams } from '../schemas/keys';
import { containsIdentity, PERSONAL_PASSWORD_MESSAGE } from '../schemas/password-policy';
import {
  changePasswordSchema,
  disableTwoFactorSchema,
  sessionIdSchema,
  stepUpFields,
  stepUpSchema,
  verifyTwoFactorSchema,
} from '../schemas/security';
import {
  apiTokensResponseSchema,
  createdApiTokenSchema,
  dashboardStatsSchema,
  deviceRemovedSchema,
  googleUrlSchema,
  myKeysResponseSchema,
  recoveryTokensResponseSchema,
  securityInfoSchema,
  securityLogResponseSchema,
  sessionsResponseSchema,
  twoFactorSetupResponseSchema,
  userSchema,
} from '../schemas/entities';
import { routeDocs, successMessageSchema } from '../lib/openapi';

const doc = routeDocs({ tag: 'Account security', access: 'session' });

const SECURITY_LOG_LIMIT = 100;
const createApiTokenRequest = createApiTokenSchema.extend(stepUpFields);

export const usersRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .get(
    '/my-keys',
    doc('listMyKeys', 'My license keys, paged', { 200: myKeysResponseSchema }, { tag: 'Account', access: 'user', errors: [400] }),
    queryParams(myKeysQuerySchema),
    async (c) => jsonText(c, await listOwnKeys(c.var.db, c.var.caller.id, c.req.valid('query'))),
  )
  .get('/profile', doc('getProfile', 'My account', { 200: userSchema }, { tag: 'Account', access: 'user', errors: [404] }), async (c) =>
    c.json(toUserJson(await currentUser(c)), 200),
  )
  .get(
    '/stats',
    doc('getDashboardStats', 'My dashboard figures', { 200: dashboardStatsSchema }, { tag: 'Account', access: 'user' }),
    async (c) => c.json(await dashboardStats(c.var.db, c.var.caller), 200),
  )
  .delete(
    '/my-keys/:keyId/activations/:activationId',
    doc(
      'removeMyDevice',
      'Remove a device from one of my keys',
      { 200: deviceRemovedSchema },
      { tag: 'Account', access: 'user', errors: [400, 404, 409] },
    ),
    pathParams(ownDeviceParams),
    async (c) => {
      const { keyId, activationId } = c.req.valid('param');
      const { slotFreesAt } = await removeOwnDevice(c.var.db, c.var.caller.id, keyId, activationId);
      const at = new Date(slotFreesAt).toISOString();
      // The slot stays held while an offline token the device may hold is still valid.
      return c.json(
        {
          success: true,
          message: `Device removed. Its slot frees at ${at}, once any offline token it holds has expired.`,
          slotFreesAt: at,
        },
        200,
      );
    },
  )
  .get(
    '/security',
    doc('getSecurityInfo', 'My account security at a glance', { 200: securityInfoSchema }, { errors: [404] }),
    async (c) => {
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
    },
  )
  .put(
    '/change-password',
    doc('changePassword', 'Change my password', { 200: successMessageSchema }, { errors: [400, 404] }),
    jsonBody(changePasswordSchema),
    async (c) => {
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
      if (currentPassword === newPassword)
        throw new AppError('VALIDATION_ERROR', 'New password must be different from the current password');
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
    },
  )
  // Step-up is asked here, before any secret is shown, not at verify-2fa.
  .post(
    '/setup-2fa',
    doc(
      'setupTwoFactor',
      'Begin turning on two-factor (step-up required)',
      { 200: twoFactorSetupResponseSchema },
      { errors: [400, 404, 409] },
    ),
    jsonBody(stepUpSchema),
    async (c) => {
      const user = await currentUser(c);
      if (user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is already enabled');
      await stepUp(c, user, c.req.valid('json'));
      return c.json(await beginTwoFactorSetup(c.env, c.var.db, user), 200);
    },
  )
  .post(
    '/verify-2fa',
    doc('verifyTwoFactor', 'Turn on two-factor with a first code', { 200: successMessageSchema }, { errors: [400, 404, 409] }),
    jsonBody(verifyTwoFactorSchema),
    async (c) => {
      const user = await currentUser(c);
      await enableTwoFactor(c.env, c.var.db, user, c.req.valid('json').code);
      await recordSecurityEvent(c.var.db, user.id, '2fa_enabled', requestOrigin(c));
      return c.json({ success: true, message: 'Two-factor authentication enabled' }, 200);
    },
  )
  // Extends the original call: step-up proof must come with it (docs/api.md, "Account security").
  .delete(
    '/disable-2fa',
    doc('disableTwoFactor', 'Turn off two-factor (step-up required)', { 200: successMessageSchema }, { errors: [400, 404, 409] }),
    jsonBody(disableTwoFactorSchema),
    async (c) => {
      const user = await currentUser(c);
      if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is not enabled');
      await stepUp(c, user, c.req.valid('json'));
      await disableTwoFactor(c.var.db, user.id);
      // A session that got in with the second factor must not outlive it elsewhere; this one stays.
      await endAllSessions(c.env.KV, user.id, sessionOf(c.var.caller).id);
      await recordSecurityEvent(c.var.db, user.id, '2fa_disabled', requestOrigin(c));
      return c.json({ success: true, message: 'Two-factor authentication disabled. Other sessions have been signed out.' }, 200);
    },
  )
  .post(
    '/recovery-tokens',
    doc(
      'generateRecoveryTokens',
      'Make a new set of recovery tokens (step-up required)',
      { 200: recoveryTokensResponseSchema },
      { errors: [400, 404, 409] },
    ),
    jsonBody(stepUpSchema),
    async (c) => {
      const user = await currentUser(c);
      if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Turn on two-factor authentication before generating recovery tokens');
      await stepUp(c, user, c.req.valid('json'));
      const tokens = await replaceRecoveryTokens(c.var.db, user.id);
      await recordSecurityEvent(c.var.db, user.id, 'recovery_tokens_generated', requestOrigin(c));
      return c.json({ tokens }, 200);
    },
  )
  .get('/sessions', doc('listSessions', 'My signed-in sessions', { 200: sessionsResponseSchema }), async (c) => {
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
  .delete(
    '/sessions/:id',
    doc('endSession', 'End one of my sessions', { 200: successMessageSchema }, { errors: [400, 404] }),
    pathParams(sessionIdSchema),
    async (c) => {
      const { id } = c.req.valid('param');
      const userId = c.var.caller.id;
      // The key holds the user id, so nobody can name another account's session.
      if (!(await findSession(c.env.KV, userId, id))) throw notFound('Session');
      await endSession(c.env.KV, userId, id);
      await recordSecurityEvent(c.var.db, userId, 'session_terminated', requestOrigin(c));
      return c.json(
        { success: true, message: id === sessionOf(c.var.caller).id ? 'Signed out of this device' : 'Session terminated' },
        200,
      );
    },
  )
  .get('/security-log', doc('getSecurityLog', 'My last security events', { 200: securityLogResponseSchema }), async (c) => {
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
  .post(
    '/connect-google',
    doc('connectGoogle', 'The address to connect a Google account', { 200: googleUrlSchema }, { errors: [403, 404, 409, 501] }),
    async (c) => {
      const user = await currentUser(c);
      if (user.googleId) throw new AppError('CONFLICT', 'A Google account is already connected. Disconnect it first.');
      assertMayConnectGoogle(user);
      const url = await startGoogleFlow(c, {
        intent: 'connect',
        rememberMe: false,
        userId: user.id,
        sessionId: sessionOf(c.var.caller).id,
      });
      return c.json({ url }, 200);
    },
  )
  .delete(
    '/disconnect-google',
    doc('disconnectGoogle', 'Disconnect my Google account (step-up required)', { 200: successMessageSchema }, { errors: [400, 404, 409] }),
    jsonBody(stepUpSchema),
    async (c) => {
      const user = await currentUser(c);
      assertMayDisconnectGoogle(user);
      await stepUp(c, user, c.req.valid('json'));
      await disconnectGoogle(c.var.db, user);
      await recordSecurityEvent(c.var.db, user.id, 'google_disconnected', requestOrigin(c));
      return c.json({ success: true, message: 'Google account disconnected' }, 200);
    },
  )
  // API tokens are managed from a signed-in session only: the auth middleware refuses API tokens
  // here, so a token cannot make more. Anyone may list and revoke their own (a demoted reseller can
  // clean up); making one needs reseller.
  .get('/api-tokens', doc('listApiTokens', 'My API tokens', { 200: apiTokensResponseSchema }, { tag: 'API tokens' }), async (c) =>
    c.json({ tokens: await listApiTokens(c.var.db, c.var.caller.id) }, 200),
  )
  .post(
    '/api-tokens',
    doc(
      'createApiToken',
      'Make an API token (step-up required); the secret is shown once',
      { 201: createdApiTokenSchema },
      { tag: 'API tokens', errors: [400, 404, 409] },
    ),
    requireAuth({ role: 'reseller' }),
    jsonBody(createApiTokenRequest),
    async (c) => {
      const { currentPassword, code, ...input } = c.req.valid('json');
      const account = await currentUser(c);
      // A token outlives the session that makes it, so making one needs proof beyond the session.
      await stepUp(c, account, { currentPassword, code });
      const created = await createApiToken(c.var.db, c.env.KV, c.var.caller, input);
      await inBackground(c, recordSecurityEvent(c.var.db, c.var.caller.id, 'api_token_created', requestOrigin(c)));
      const body: CreatedApiToken = { ...created, message: 'API token created. Copy it now: it is shown only once.' };
      return c.json(body, 201);
    },
  )
  .delete(
    '/api-tokens/:id',
    doc('revokeApiToken', 'Revoke one of my API tokens', { 200: successMessageSchema }, { tag: 'API tokens', errors: [400, 404] }),
    pathParams(apiTokenIdParam),
    async (c) => {
      const revoked = await revokeApiToken(c.var.db, c.env.KV, c.var.caller.id, c.req.valid('param').id);
      if (!revoked) throw notFound('API token');
      await inBackground(c, recordSecurityEvent(c.var.db, c.var.caller.id, 'api_token_revoked', requestOrigin(c)));
      return c.json({ success: true, message: `API token "${revoked.name}" revoked` }, 200);
    },
  );
