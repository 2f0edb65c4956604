import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { removeOwnDevice } from '../domain/devices';
import { listOwnKeys } from '../domain/my-keys';
import { dashboardStats } from '../domain/stats';
import { findUserById, toUserJson } from '../domain/users';
import { notFound } from '../lib/errors';
import { jsonText } from '../lib/request';
import { pathParams, queryParams } from '../lib/validate';
import { batchRunner, callerId, requireAuth, requireAuthInBatch } from '../middleware/auth';
import { myKeysQuerySchema, ownDeviceParams } from '../schemas/keys';

export const usersRoutes = new Hono<AppEnv>()
  // Before requireAuth below: the session's checks ride in the page's own batch.
  .get('/my-keys', requireAuthInBatch, queryParams(myKeysQuerySchema), async (c) =>
    jsonText(c, await listOwnKeys(c.var.db, callerId(c), c.req.valid('query'), batchRunner(c))),
  )
  .use(requireAuth)
  .get('/profile', async (c) => {
    const user = await findUserById(c.var.db, c.var.user.id);
    if (!user) throw notFound('User');
    return c.json(toUserJson(user), 200);
  })
  .get('/stats', async (c) => c.json(await dashboardStats(c.var.db, c.var.user), 200))
  .delete('/my-keys/:keyId/activations/:activationId', pathParams(ownDeviceParams), async (c) => {
    const { keyId, activationId } = c.req.valid('param');
    const { slotFreesAt } = await removeOwnDevice(c.env.DB, c.var.user.id, keyId, activationId);
    const at = new Date(slotFreesAt).toISOString();
    // The slot stays held while an offline token the device may hold is still valid.
    return c.json({ success: true, message: `Device removed. Its slot frees at ${at}, once any offline token it holds has expired.`, slotFreesAt: at }, 200);
  });
