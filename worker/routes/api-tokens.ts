// /api/users/api-tokens: an owner's or a reseller's tokens for scripts and the CLI. Managed from a
// signed-in session only: the auth middleware refuses API tokens here, so a token cannot make more.
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { createApiToken, listApiTokens, revokeApiToken } from '../domain/api-tokens';
import { recordSecurityEvent } from '../domain/security-log';
import { findUserById } from '../domain/users';
import { notFound } from '../lib/errors';
import { inBackground, requestOrigin } from '../lib/request';
import { jsonBody, pathParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { apiTokenIdParam, createApiTokenSchema } from '../schemas/api-tokens';
import { stepUpFields } from '../schemas/security';
import { stepUp } from './security';
import type { CreatedApiToken } from '../schemas/entities';

const createApiTokenRequest = createApiTokenSchema.extend(stepUpFields);

// Middleware per route: this app shares /api/users with the profile and security apps. Anyone
// signed in may list and revoke their tokens (a demoted reseller can clean up); creating needs reseller.
export const apiTokensRoutes = new Hono<AppEnv>()
  .get('/api-tokens', requireAuth(), async (c) => c.json({ tokens: await listApiTokens(c.var.db, c.var.caller.id) }, 200))
  .post('/api-tokens', requireAuth({ role: 'reseller' }), jsonBody(createApiTokenRequest), async (c) => {
    const { currentPassword, code, ...input } = c.req.valid('json');
    const account = await findUserById(c.var.db, c.var.caller.id);
    if (!account) throw notFound('User');
    // A token outlives the session that makes it, so making one needs proof beyond the session.
    await stepUp(c, account, { currentPassword, code });
    const created = await createApiToken(c.var.db, c.env.KV, c.var.caller, input);
    await inBackground(c, recordSecurityEvent(c.var.db, c.var.caller.id, 'api_token_created', requestOrigin(c)));
    const body: CreatedApiToken = { ...created, message: 'API token created. Copy it now: it is shown only once.' };
    return c.json(body, 201);
  })
  .delete('/api-tokens/:id', requireAuth(), pathParams(apiTokenIdParam), async (c) => {
    const revoked = await revokeApiToken(c.var.db, c.env.KV, c.var.caller.id, c.req.valid('param').id);
    if (!revoked) throw notFound('API token');
    await inBackground(c, recordSecurityEvent(c.var.db, c.var.caller.id, 'api_token_revoked', requestOrigin(c)));
    return c.json({ success: true, message: `API token "${revoked.name}" revoked` }, 200);
  });
