// /api/admin/keys: the key list of the admin panel (owner: every key; reseller: the keys they
// created), and the owner's deletions, device removal and release of held device slots.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { bulkDeleteKeys, deleteKey, listAdminKeys, releaseHeldSlot, removeKeyActivation } from '../domain/admin-keys';
import { jsonText } from '../lib/request';
import { keyAdmin } from '../lib/signed-in';
import { jsonBody, pathParams, queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { activationParams, adminKeysQuery, bulkDeleteSchema, heldSlotParams, keyIdParam } from '../schemas/admin-keys';
import type { BulkDeleteResponse, KeyChangeResponse } from '../schemas/entities';
import { adminKeysResponseSchema, bulkDeleteResponseSchema, keyChangeResponseSchema } from '../schemas/entities';
import { documented, successMessageSchema } from '../lib/openapi';

const owner = requireAuth({ role: 'owner' });

export const adminKeysRoutes = new Hono<SignedInEnv>()
  .use(requireAuth({ role: 'reseller' }))
  .get(
    '/',
    documented({
      operationId: 'listAdminKeys',
      summary: 'License keys, paged (a reseller sees the keys they made)',
      tag: 'Admin',
      access: 'reseller',
      responses: { 200: { description: 'OK', schema: adminKeysResponseSchema } },
      errors: [400],
    }),
    queryParams(adminKeysQuery),
    async (c) => jsonText(c, await listAdminKeys(c.var.db, c.var.caller, c.req.valid('query'))),
  )
  // Before '/:id', so 'bulk' is never read as a key id.
  .delete(
    '/bulk',
    documented({
      operationId: 'bulkDeleteKeys',
      summary: 'Delete many license keys',
      tag: 'Admin',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: bulkDeleteResponseSchema } },
      errors: [400],
    }),
    owner,
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
    documented({
      operationId: 'deleteKey',
      summary: 'Delete a license key',
      tag: 'Admin',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: successMessageSchema } },
      errors: [400, 404],
    }),
    owner,
    pathParams(keyIdParam),
    async (c) => {
      await deleteKey(keyAdmin(c), c.req.valid('param').id);
      return c.json({ success: true, message: 'License key deleted' }, 200);
    },
  )
  .delete(
    '/:id/activations/:activationId',
    documented({
      operationId: 'removeKeyActivation',
      summary: 'Remove a device from a license key',
      tag: 'Admin',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: keyChangeResponseSchema } },
      errors: [400, 404],
    }),
    owner,
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
  .delete(
    '/:id/held-slots/:slotId',
    documented({
      operationId: 'releaseHeldSlot',
      summary: 'Release a held device slot at once',
      tag: 'Admin',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: keyChangeResponseSchema } },
      errors: [400, 404],
    }),
    owner,
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
  );
