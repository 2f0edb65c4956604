// /api/users/my-keys/{keyId}/activations: a customer takes a device off one of their keys, once a day.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { pathParams } from '../../../platform/validate';
import { deviceRemovedSchema, ownDeviceParams } from '../schemas';
import { removeOwnDevice } from '../devices';
import { routeOperations } from '../../accounts';

const op = routeOperations({ tag: 'Account', access: 'user' });

export const myDevicesRoutes = new Hono<SignedInEnv>().delete(
  '/my-keys/:keyId/activations/:activationId',
  op('removeMyDevice', 'Remove a device from one of my keys', { 200: deviceRemovedSchema }, { errors: [400, 404, 409] }),
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
);
