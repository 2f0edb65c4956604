// /api/users: the signed-in user's own account: profile, security (password, two-factor, sessions,
// Google, the security log) and API tokens. Their keys and figures are the keys and reporting modules'.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { notFound } from '../../../platform/errors';
import { successMessageSchema } from '../../../platform/openapi';
import { inBackground, requestOrigin } from '../../../platform/request';
import { jsonBody, pathParams } from '../../../platform/validate';
import { createApiToken, listApiTokens, revokeApiToken } from '../api-tokens';
import { changePassword } from '../credentials';
import { assertMayConnectGoogle, disconnectGoogle } from '../google';
import { startGoogleFlow } from '../google-flow';
import { sessionOf } from '../identify';
import { routeOperations } from '../operation';
import { newRecoveryTokens } from '../recovery';
import { apiTokenIdParam, createApiTokenSchema } from '../schemas/api-tokens';
import {
  changePasswordSchema,
  disableTwoFactorSchema,
  sessionIdSchema,
  stepUpFields,
  stepUpSchema,
  verifyTwoFactorSchema,
} from '../schemas/security';
import { mySessions, securityInfo, securityLogOf } from '../security';
import { idleLimitMs } from '../sessions';
import { currentUser } from '../signed-in';
import { endSessionLogged } from '../sign-in';
import { beginTwoFactorSetup, disableTwoFactor, enableTwoFactor } from '../two-factor';
import { setLanguage, toUserJson } from '../users';
import { updateProfileSchema } from '../schemas/profile';
import {
  apiTokensResponseSchema,
  type CreatedApiToken,
  createdApiTokenSchema,
  googleUrlSchema,
  recoveryTokensResponseSchema,
  securityInfoSchema,
  securityLogResponseSchema,
  sessionsResponseSchema,
  twoFactorSetupResponseSchema,
  userSchema,
} from '../schemas/answers';

// Account security takes a session, never an API token; the customer's own keys and figures take either.
const op = routeOperations({ tag: 'Account security', access: 'user', tokens: false });

const createApiTokenRequest = createApiTokenSchema.extend(stepUpFields);

export const usersRoutes = new Hono<SignedInEnv>()
  .get('/profile', op('getProfile', 'My account', { 200: userSchema }, { tag: 'Account', tokens: true, errors: [404] }), async (c) =>
    c.json(toUserJson(await currentUser(c)), 200),
  )
  .patch(
    '/profile',
    op(
      'updateProfile',
      'Change my profile: the language the web app speaks',
      { 200: userSchema },
      { tag: 'Account', tokens: true, errors: [400, 404] },
    ),
    jsonBody(updateProfileSchema),
    async (c) => c.json(await setLanguage(c.var.db, await currentUser(c), c.req.valid('json').language), 200),
  )
  .get('/security', op('getSecurityInfo', 'My account security at a glance', { 200: securityInfoSchema }, { errors: [404] }), async (c) =>
    c.json(await securityInfo(c.env, c.var.db, await currentUser(c)), 200),
  )
  .put(
    '/change-password',
    op('changePassword', 'Change my password', { 200: successMessageSchema }, { errors: [400, 404] }),
    jsonBody(changePasswordSchema),
    async (c) => {
      const from = { sessionId: sessionOf(c.var.caller).id, origin: requestOrigin(c) };
      const message = await changePassword(c.var.db, await currentUser(c), c.req.valid('json'), from);
      return c.json({ success: true, message }, 200);
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
    async (c) => c.json(await beginTwoFactorSetup(c.env, c.var.db, await currentUser(c)), 200),
  )
  .post(
    '/verify-2fa',
    op('verifyTwoFactor', 'Turn on two-factor with a first code', { 200: successMessageSchema }, { errors: [400, 404, 409] }),
    jsonBody(verifyTwoFactorSchema),
    async (c) => {
      const from = { sessionId: sessionOf(c.var.caller).id, origin: requestOrigin(c) };
      await enableTwoFactor(c.env, c.var.db, await currentUser(c), c.req.valid('json').code, from);
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
      await disableTwoFactor(c.var.db, await currentUser(c), { sessionId: sessionOf(c.var.caller).id, origin: requestOrigin(c) });
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
    async (c) => c.json({ tokens: await newRecoveryTokens(c.var.db, await currentUser(c), requestOrigin(c)) }, 200),
  )
  .get('/sessions', op('listSessions', 'My signed-in sessions', { 200: sessionsResponseSchema }), async (c) => {
    const sessions = await mySessions(c.var.db, c.var.caller.id, sessionOf(c.var.caller).id, await idleLimitMs(c.env.KV));
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
  .get('/security-log', op('getSecurityLog', 'My last security events', { 200: securityLogResponseSchema }), async (c) =>
    c.json({ logs: await securityLogOf(c.var.db, c.var.caller.id) }, 200),
  )
  // A plain navigation carries no bearer token, so the app asks here and then goes to the address.
  .post(
    '/connect-google',
    op(
      'connectGoogle',
      'The address to connect a Google account (step-up required)',
      { 200: googleUrlSchema },
      { proof: 'always', errors: [400, 404, 409] },
    ),
    jsonBody(stepUpSchema),
    async (c) => {
      const user = await currentUser(c);
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
      await disconnectGoogle(c.var.db, await currentUser(c), requestOrigin(c));
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
      const from = { origin: requestOrigin(c), later: (work: Promise<unknown> | undefined) => inBackground(c, work) };
      const created = await createApiToken(c.var.db, c.var.caller, { name, role, readOnly }, from);
      const body: CreatedApiToken = { ...created, message: 'API token created. Copy it now: it is shown only once.' };
      return c.json(body, 201);
    },
  )
  .delete(
    '/api-tokens/:id',
    op('revokeApiToken', 'Revoke one of my API tokens', { 200: successMessageSchema }, { tag: 'API tokens', errors: [400, 404] }),
    pathParams(apiTokenIdParam),
    async (c) => {
      const from = { origin: requestOrigin(c), later: (work: Promise<unknown> | undefined) => inBackground(c, work) };
      const revoked = await revokeApiToken(c.var.db, c.var.caller.id, c.req.valid('param').id, from);
      return c.json({ success: true, message: `API token "${revoked.name}" revoked` }, 200);
    },
  );
