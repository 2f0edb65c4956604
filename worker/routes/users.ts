import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { removeOwnDevice } from '../domain/devices';
import { listOwnKeys } from '../domain/my-keys';
import { dashboardStats } from '../domain/stats';
import { findUserById, toUserJson } from '../domain/users';
import { notFound } from '../lib/errors';
import { jsonText } from '../lib/request';
import { pathParams, queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { myKeysQuerySchema, ownDeviceParams } from '../schemas/keys';

export const usersRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .get('/my-keys', queryParams(myKeysQuerySchema), async (c) =>
    jsonText(c, await listOwnKeys(c.var.db, c.var.caller.id, c.req.valid('query'))),
  )
  .get('/profile', async (c) => {
    const user = await findUserById(c.var.db, c.var.caller.id);
    if (!user) throw notFound('User');
    return c.json(toUserJson(user), 200);
  })
  .get('/stats', async (c) => c.json(await dashboardStats(c.var.db, c.var.caller), 200))
  .delete('/my-keys/:keyId/activations/:activationId', pathParams(ownDeviceParams), async (c) => {
    const { keyId, activationId } = c.req.valid('param');
    const { slotFreesAt } = await removeOwnDevice(c.var.db, c.var.caller.id, keyId, activationId);
    const at = new Date(slotFreesAt).toISOString();
    // The slot stays held while an offline token the device may hold is still valid.
    return c.json(
      { success: true, message: `Device removed. Its slot frees at ${at}, once any offline token it holds has expired.`, slotFreesAt: at },
      200,
    );
  });
