// /api/users/my-keys/{keyId}/activations: a customer takes a device off one of their keys (once a day,
// within the swap budget), or asks to replace one; /swaps: what the budget has left.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { pathParams } from '../../../platform/validate';
import { deviceRemovedSchema, ownDeviceParams, ownKeyParams, ownKeySwapsSchema } from '../schemas';
import { ownKeySwaps, removeOwnDevice, requestDeviceReplacement, type OwnKeySwaps } from '../devices';
import { routeOperations } from '../../accounts';

const op = routeOperations({ tag: 'Account', access: 'user' });

const swapsJson = (s: OwnKeySwaps) => ({ ...s, nextSwapAt: s.nextSwapAt === null ? null : new Date(s.nextSwapAt).toISOString() });

export const myDevicesRoutes = new Hono<SignedInEnv>()
  .get(
    '/my-keys/:keyId/swaps',
    op('getMyKeySwaps', "One of my keys' device swap budget", { 200: ownKeySwapsSchema }, { errors: [400, 404] }),
    pathParams(ownKeyParams),
    async (c) => c.json(swapsJson(await ownKeySwaps(c.var.db, c.var.caller.id, c.req.valid('param').keyId)), 200),
  )
  .post(
    '/my-keys/:keyId/activations/:activationId/replace',
    op(
      'replaceMyDevice',
      'Replace a device of one of my keys: the next new device to activate the key takes its place',
      { 200: ownKeySwapsSchema },
      { errors: [400, 404, 409, 429] },
    ),
    pathParams(ownDeviceParams),
    async (c) => {
      const { keyId, activationId } = c.req.valid('param');
      return c.json(swapsJson(await requestDeviceReplacement(c.var.db, c.var.caller.id, keyId, activationId)), 200);
    },
  )
  .delete(
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
