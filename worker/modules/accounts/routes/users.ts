// /api/users: the signed-in user's own things: profile, keys and devices, dashboard figures, account
// security (password, two-factor, sessions, Google, the security log) and API tokens.
import { desc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { runtimeLimit } from '../../../platform/db/compiled';
import { securityLog } from '../../../platform/db/schema';
import { createApiToken, listApiTokens, revokeApiToken } from '../api-tokens';
import { removeOwnDevice } from '../../licensing/devices';
import { assertMayConnectGoogle, assertMayDisconnectGoogle, disconnectGoogle, googleConfigured } from '../google';
import { listOwnKeys } from '../../keys/my-keys';
import { countRecoveryTokens, replaceRecoveryTokens } from '../recovery';
import { recordSecurityEvent } from '../security-log';
import { endSessionLogged } from '../sign-in';
import { dashboardStats } from '../../reporting/stats';
import { beginTwoFactorSetup, disableTwoFactor, enableTwoFactor } from '../two-factor';
import { setPasswordStatements } from '../credentials';
import { toUserJson } from '../users';
import { AppError, notFound } from '../../../platform/errors';
import { startGoogleFlow } from '../google-flow';
import { hashPassword } from '../../../platform/password';
import { inBackground, jsonText, requestOrigin } from '../../../platform/request';
import { idleLimitMs, listSessions } from '../sessions';
import { confirmPassword, currentUser } from '../signed-in';
import { describeUserAgent } from '../../../platform/user-agent';
import { jsonBody, pathParams, queryParams } from '../../../platform/validate';
import { sessionOf } from '../identify';
import { apiTokenIdParam, createApiTokenSchema } from '../schemas/api-tokens';
import type { CreatedApiToken, SecurityInfo, SecurityLogEntry, SessionInfo } from '../../../platform/schemas/entities';
import { myKeysQuerySchema, ownDeviceParams } from '../../keys/schemas/keys';
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
} from '../../../platform/schemas/entities';
import { successMessageSchema } from '../../../platform/openapi';
import { routeOperations } from '../operation';

// Account security takes a session, never an API token; the customer's own keys and figures take either.
const op = routeOperations({ tag: 'Account security', access: 'user', tokens: false });

const SECURITY_LOG_LIMIT = 100;
const createApiTokenRequest = createApiTokenSchema.extend(stepUpFields);

export const usersRoutes = new Hono<SignedInEnv>()
  .get(
    '/my-keys',
    op('listMyKeys', 'My license keys, paged', { 200: myKeysResponseSchema }, { tag: 'Account', tokens: true, errors: [400] }),
    queryParams(myKeysQuerySchema),
    async (c) => jsonText(c, await listOwnKeys(c.var.db, c.var.caller.id, c.req.valid('query'))),
  )
  .get('/profile', op('getProfile', 'My account', { 200: userSchema }, { tag: 'Account', tokens: true, errors: [404] }), async (c) =>
    c.json(toUserJson(await currentUser(c)), 200),
  )
  .get(
    '/stats',
    op('getDashboardStats', 'My dashboard figures', { 200: dashboardStatsSchema }, { tag: 'Account', tokens: true }),
    async (c) => c.json(await dashboardStats(c.var.db, c.var.caller), 200),
  )
  .delete(
    '/my-keys/:keyId/activations/:activationId',
    op(
      'removeMyDevice',
      'Remove a device from one of my keys',
      { 200: deviceRemovedSchema },
      { tag: 'Account', tokens: true, errors: [400, 404, 409] },
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
  .get('/security', op('getSecurityInfo', 'My account security at a glance', { 200: securityInfoSchema }, { errors: [404] }), async (c) => {
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
  .put(
    '/change-password',
    op('changePassword', 'Change my password', { 200: successMessageSchema }, { errors: [400, 404] }),
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
      // Whoever else was signed in with the old password is signed out, and the tokens made with it
      // end, unless the user keeps them; this device stays in. One batch.
      await db.batch([
        ...setPasswordStatements(db, user.id, await hashPassword(newPassword), new Date(), {
          sessionId: sessionOf(c.var.caller).id,
          apiTokens: keepApiTokens,
        }),
      ]);
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
    op(
      'setupTwoFactor',
      'Begin turning on two-factor (step-up required)',
      { 200: twoFactorSetupResponseSchema },
      { proof: 'always', errors: [400, 404, 409] },
    ),
    jsonBody(stepUpSchema),
    async (c) => {
      const user = await currentUser(c);
      if (user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is already enabled');
      return c.json(await beginTwoFactorSetup(c.env, c.var.db, user), 200);
    },
  )
  .post(
    '/verify-2fa',
    op('verifyTwoFactor', 'Turn on two-factor with a first code', { 200: successMessageSchema }, { errors: [400, 404, 409] }),
    jsonBody(verifyTwoFactorSchema),
    async (c) => {
      const user = await currentUser(c);
      await enableTwoFactor(c.env, c.var.db, user, c.req.valid('json').code, sessionOf(c.var.caller).id);
      await recordSecurityEvent(c.var.db, user.id, '2fa_enabled', requestOrigin(c));
      return c.json(
        { success: true, message: 'Two-factor authentication enabled. Other sessions have been signed out and your API tokens revoked.' },
        200,
      );
    },
  )
  // Extends the original call: step-up proof must come with it (docs/api.md, "Account security").
  .delete(
    '/disable-2fa',
    op(
      'disableTwoFactor',
      'Turn off two-factor (step-up required)',
      { 200: successMessageSchema },
      { proof: 'always', errors: [400, 404, 409] },
    ),
    jsonBody(disableTwoFactorSchema),
    async (c) => {
      const user = await currentUser(c);
      if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor authentication is not enabled');
      await disableTwoFactor(c.var.db, user.id, sessionOf(c.var.caller).id);
      await recordSecurityEvent(c.var.db, user.id, '2fa_disabled', requestOrigin(c));
      return c.json(
        {
          success: true,
          message: 'Two-factor authentication disabled. Other sessions have been signed out and your API tokens revoked.',
        },
        200,
      );
    },
  )
  .post(
    '/recovery-tokens',
    op(
      'generateRecoveryTokens',
      'Make a new set of recovery tokens (step-up required)',
      { 200: recoveryTokensResponseSchema },
      { proof: 'always', errors: [400, 404, 409] },
    ),
    jsonBody(stepUpSchema),
    async (c) => {
      const user = await currentUser(c);
      if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Turn on two-factor authentication before generating recovery tokens');
      const tokens = await replaceRecoveryTokens(c.var.db, user.id);
      await recordSecurityEvent(c.var.db, user.id, 'recovery_tokens_generated', requestOrigin(c));
      return c.json({ tokens }, 200);
    },
  )
  .get('/sessions', op('listSessions', 'My signed-in sessions', { 200: sessionsResponseSchema }), async (c) => {
    const records = await listSessions(c.var.db, c.var.caller.id, await idleLimitMs(c.env.KV));
    const sessions: SessionInfo[] = records.map((s) => ({
      id: s.id,
      ...describeUserAgent(s.userAgent),
      location: s.location,
      ipAddress: s.ipAddress,
      lastActive: s.lastActive.toISOString(),
      createdAt: s.createdAt.toISOString(),
      current: s.id === sessionOf(c.var.caller).id,
    }));
    return c.json({ sessions }, 200);
  })
  .delete(
    '/sessions/:id',
    op('endSession', 'End one of my sessions', { 200: successMessageSchema }, { errors: [400, 404] }),
    pathParams(sessionIdSchema),
    async (c) => {
      const { id } = c.req.valid('param');
      const userId = c.var.caller.id;
      // Only the caller's own: nobody can name another account's session.
      if (!(await endSessionLogged(c.var.db, userId, id, 'session_terminated', requestOrigin(c)))) throw notFound('Session');
      return c.json(
        { success: true, message: id === sessionOf(c.var.caller).id ? 'Signed out of this device' : 'Session terminated' },
        200,
      );
    },
  )
  .get('/security-log', op('getSecurityLog', 'My last security events', { 200: securityLogResponseSchema }), async (c) => {
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
    op(
      'connectGoogle',
      'The address to connect a Google account (step-up required)',
      { 200: googleUrlSchema },
      { proof: 'always', errors: [400, 404, 409, 501] },
    ),
    jsonBody(stepUpSchema),
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
    op(
      'disconnectGoogle',
      'Disconnect my Google account (step-up required)',
      { 200: successMessageSchema },
      { proof: 'always', errors: [400, 404, 409] },
    ),
    jsonBody(stepUpSchema),
    async (c) => {
      const user = await currentUser(c);
      assertMayDisconnectGoogle(user);
      await disconnectGoogle(c.var.db, user);
      await recordSecurityEvent(c.var.db, user.id, 'google_disconnected', requestOrigin(c));
      return c.json({ success: true, message: 'Google account disconnected' }, 200);
    },
  )
  // API tokens are managed from a signed-in session only: the auth middleware refuses API tokens
  // here, so a token cannot make more. Anyone may list and revoke their own (a demoted reseller can
  // clean up); making one needs reseller.
  .get('/api-tokens', op('listApiTokens', 'My API tokens', { 200: apiTokensResponseSchema }, { tag: 'API tokens' }), async (c) =>
    c.json({ tokens: await listApiTokens(c.var.db, c.var.caller.id) }, 200),
  )
  .post(
    '/api-tokens',
    op(
      'createApiToken',
      'Make an API token (step-up required); the secret is shown once',
      { 201: createdApiTokenSchema },
      { tag: 'API tokens', access: 'reseller', proof: 'always', errors: [400, 404, 409] },
    ),
    jsonBody(createApiTokenRequest),
    async (c) => {
      // A token outlives the session that makes it, so making one needs proof (the declaration's).
      const { name, role, readOnly } = c.req.valid('json');
      const created = await createApiToken(c.var.db, c.var.caller, { name, role, readOnly });
      await inBackground(c, recordSecurityEvent(c.var.db, c.var.caller.id, 'api_token_created', requestOrigin(c)));
      const body: CreatedApiToken = { ...created, message: 'API token created. Copy it now: it is shown only once.' };
      return c.json(body, 201);
    },
  )
  .delete(
    '/api-tokens/:id',
    op('revokeApiToken', 'Revoke one of my API tokens', { 200: successMessageSchema }, { tag: 'API tokens', errors: [400, 404] }),
    pathParams(apiTokenIdParam),
    async (c) => {
      const revoked = await revokeApiToken(c.var.db, c.var.caller.id, c.req.valid('param').id);
      if (!revoked) throw notFound('API token');
      await inBackground(c, recordSecurityEvent(c.var.db, c.var.caller.id, 'api_token_revoked', requestOrigin(c)));
      return c.json({ success: true, message: `API token "${revoked.name}" revoked` }, 200);
    },
  );
