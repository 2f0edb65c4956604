// /api/admin/keys: the key list of the admin panel (owner: every key; reseller: the keys they
// created), a key's history, and the owner's deletions, device removal and release of held device slots.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { bulkDeleteKeys, deleteKey, keyAdmin, listAdminKeys, releaseHeldSlot, releaseKeySeat, removeKeyActivation } from '../admin-keys';
import { inBackground, jsonText } from '../../../platform/request';
import { getSettings } from '../../settings';
import { regenerateKey, transferKey, transferredMessage } from '../key-care';
import { regenerateKeySchema, transferKeySchema } from '../schemas/key-care';
import { keyHistory } from '../key-history';
import { keyHistoryQuery, keyHistoryResponseSchema } from '../schemas/key-history';
import { jsonBody, pathParams, queryParams } from '../../../platform/validate';
import { activationParams, adminKeysQuery, bulkDeleteSchema, heldSlotParams, keyIdParam } from '../schemas/admin-keys';
import { keyEntitlementsSchema, keyUsageQuery, topUpSchema } from '../schemas/admin-keys';
import { keyUsage, setKeyEntitlements, topUpKey } from '../key-usage';
import { successMessageSchema } from '../../../platform/openapi';
import { routeOperations } from '../../accounts';
import {
  adminKeysResponseSchema,
  type BulkDeleteResponse,
  bulkDeleteResponseSchema,
  type KeyChangeResponse,
  keyChangeResponseSchema,
  keyTransferredResponseSchema,
  keyUsageResponseSchema,
} from '../schemas/answers';

const op = routeOperations({ tag: 'Admin', access: 'owner' });

export const adminKeysRoutes = new Hono<SignedInEnv>()
  .get(
    '/',
    op(
      'listAdminKeys',
      'License keys, paged (a reseller sees the keys they made)',
      { 200: adminKeysResponseSchema },
      { access: 'reseller', errors: [400] },
    ),
    queryParams(adminKeysQuery),
    async (c) => jsonText(c, await listAdminKeys(c.var.db, c.var.caller, c.req.valid('query'))),
  )
  // Before '/:id', so 'bulk' is never read as a key id.
  .delete(
    '/bulk',
    op('bulkDeleteKeys', 'Delete many license keys', { 200: bulkDeleteResponseSchema }, { errors: [400, 404] }),
    jsonBody(bulkDeleteSchema),
    async (c) => {
      const { keyIds, reason } = c.req.valid('json');
      const { deleted, notFound } = await bulkDeleteKeys(keyAdmin(c), keyIds, reason);
      const body: BulkDeleteResponse = {
        success: true,
        deleted,
        notFound,
        message: `${deleted} license ${deleted === 1 ? 'key' : 'keys'} deleted`,
      };
      return c.json(body, 200);
    },
  )
  .delete(
    '/:id',
    op('deleteKey', 'Delete a license key', { 200: successMessageSchema }, { errors: [400, 404] }),
    pathParams(keyIdParam),
    async (c) => {
      await deleteKey(keyAdmin(c), c.req.valid('param').id);
      return c.json({ success: true, message: 'License key deleted' }, 200);
    },
  )
  .delete(
    '/:id/activations/:activationId',
    op('removeKeyActivation', 'Remove a device from a license key', { 200: keyChangeResponseSchema }, { errors: [400, 404] }),
    pathParams(activationParams),
    async (c) => {
      const { id, activationId } = c.req.valid('param');
      const body: KeyChangeResponse = {
        success: true,
        message: 'Device removed from this license key',
        licenseKey: await removeKeyActivation(keyAdmin(c), id, activationId),
      };
      return c.json(body, 200);
    },
  )
  .get(
    '/:id/history',
    op(
      'keyHistory',
      "A key's history, newest first (a reseller: keys they bought for customers)",
      { 200: keyHistoryResponseSchema },
      { access: 'reseller', errors: [400, 404] },
    ),
    pathParams(keyIdParam),
    queryParams(keyHistoryQuery),
    async (c) => c.json(await keyHistory(keyAdmin(c), c.req.valid('param').id, 'admin', c.req.valid('query')), 200),
  )
  .post(
    '/:id/regenerate',
    op(
      'regenerateKey',
      "Replace a key's value: the old one stops validating at once (KEY_REGENERATED)",
      { 200: keyChangeResponseSchema },
      { errors: [400, 404, 409] },
    ),
    pathParams(keyIdParam),
    jsonBody(regenerateKeySchema),
    async (c) => {
      const licenseKey = await regenerateKey(keyAdmin(c), c.req.valid('param').id, c.req.valid('json'), 'admin');
      const body: KeyChangeResponse = { success: true, message: 'License key regenerated', licenseKey };
      return c.json(body, 200);
    },
  )
  .post(
    '/:id/transfer',
    op(
      'transferKey',
      "Give a customer's key to another account (a reseller: keys they bought for customers; step-up required)",
      { 200: keyTransferredResponseSchema },
      { access: 'reseller', proof: 'always', errors: [400, 403, 404, 409] },
    ),
    pathParams(keyIdParam),
    jsonBody(transferKeySchema),
    async (c) => {
      const moved = await transferKey(keyAdmin(c), c.req.valid('param').id, c.req.valid('json'), 'admin', {
        settings: await getSettings(c.env.KV),
        env: c.env,
        later: (work) => inBackground(c, work),
      });
      return c.json(
        {
          success: true as const,
          message: transferredMessage(moved),
          ...moved,
        },
        200,
      );
    },
  )
  .post(
    '/:id/activations/:activationId/release',
    op('releaseKeySeat', "Release a floating key's seat at once", { 200: keyChangeResponseSchema }, { errors: [400, 404] }),
    pathParams(activationParams),
    async (c) => {
      const { id, activationId } = c.req.valid('param');
      const body: KeyChangeResponse = {
        success: true,
        message: 'Seat released',
        licenseKey: await releaseKeySeat(keyAdmin(c), id, activationId),
      };
      return c.json(body, 200);
    },
  )
  .delete(
    '/:id/held-slots/:slotId',
    op('releaseHeldSlot', 'Release a held device slot at once', { 200: keyChangeResponseSchema }, { errors: [400, 404] }),
    pathParams(heldSlotParams),
    async (c) => {
      const { id, slotId } = c.req.valid('param');
      const body: KeyChangeResponse = {
        success: true,
        message: 'Device slot released',
        licenseKey: await releaseHeldSlot(keyAdmin(c), id, slotId),
      };
      return c.json(body, 200);
    },
  )
  .put(
    '/:id/entitlements',
    op(
      'setKeyEntitlements',
      "Set the entitlements granted to a key beyond its product's (its next licensing answer carries them)",
      { 200: keyChangeResponseSchema },
      { errors: [400, 404] },
    ),
    pathParams(keyIdParam),
    jsonBody(keyEntitlementsSchema),
    async (c) => {
      const licenseKey = await setKeyEntitlements(keyAdmin(c), c.req.valid('param').id, c.req.valid('json').entitlements);
      const body: KeyChangeResponse = { success: true, message: 'Entitlements saved', licenseKey };
      return c.json(body, 200);
    },
  )
  .get(
    '/:id/usage',
    op('getKeyUsage', "A key's entitlements, uses left and usage history", { 200: keyUsageResponseSchema }, { errors: [400, 404] }),
    pathParams(keyIdParam),
    queryParams(keyUsageQuery),
    async (c) => c.json(await keyUsage(c.var.db, c.req.valid('param').id, c.req.valid('query')), 200),
  )
  .post(
    '/:id/usage/top-up',
    op('topUpKey', "Add uses to a metered key's remaining uses", { 200: keyChangeResponseSchema }, { errors: [400, 404, 409] }),
    pathParams(keyIdParam),
    jsonBody(topUpSchema),
    async (c) => {
      const { amount } = c.req.valid('json');
      const licenseKey = await topUpKey(keyAdmin(c), c.req.valid('param').id, amount);
      const body: KeyChangeResponse = { success: true, message: `${amount} use${amount === 1 ? '' : 's'} added`, licenseKey };
      return c.json(body, 200);
    },
  );
