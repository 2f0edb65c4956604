// /api/keys: a customer buys a key with their own credits; the owner revokes and generates keys.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { keyAdmin, revokeKey } from '../admin-keys';
import { idempotencyClaim } from '../../../platform/idempotency';
import { generateKeys } from '../key-generation';
import { PURCHASE_STATUS, purchaseKey } from '../purchase';
import { jsonBody, pathParams } from '../../../platform/validate';
import { generateKeysSchema, keyIdParam, revokeKeySchema } from '../schemas/admin-keys';
import { purchaseSchema } from '../schemas/keys';
import { routeOperations } from '../../accounts';
import { getSettings } from '../../settings';
import { purchaseReceipt } from '../receipts';
import {
  type GenerateKeysResponse,
  generateKeysResponseSchema,
  type KeyChangeResponse,
  keyChangeResponseSchema,
  type PurchaseResponse,
  purchaseResponseSchema,
} from '../schemas/answers';

const op = routeOperations({ tag: 'Keys', access: 'owner' });

export const keysRoutes = new Hono<SignedInEnv>()
  .post(
    '/purchase',
    op(
      'purchaseKey',
      'Buy a license key with my credits',
      { 201: { description: 'Bought (or replayed, with Idempotent-Replayed: true)', schema: purchaseResponseSchema } },
      { access: 'user', errors: [400, 402, 403, 404, 409], idempotent: true },
    ),
    jsonBody(purchaseSchema),
    async (c) => {
      const { productId, duration } = c.req.valid('json');
      const me = c.var.caller.id;
      const mailed = (await getSettings(c.env.KV)).emailNotificationsEnabled;
      const result = await purchaseKey(c.var.db, {
        productId,
        days: duration,
        buyerId: me,
        payerId: me,
        actorId: me,
        generationMethod: 'purchase',
        idempotency: idempotencyClaim('purchase', me, c.req.header('idempotency-key'), `${productId}:${duration}`),
        // The buyer's receipt, with the key (a notice they may turn off), when the shop sends notices.
        alsoRun: mailed ? (receipt) => [purchaseReceipt(me, receipt, Date.now())] : undefined,
      });
      const body: PurchaseResponse = { licenseKey: result.licenseKey, remainingCredits: result.payerCredits ?? 0 };
      if (result.replayed) c.header('Idempotent-Replayed', 'true');
      return c.json(body, PURCHASE_STATUS);
    },
  )
  .put(
    '/:id/revoke',
    op('revokeKey', 'Revoke a license key', { 200: keyChangeResponseSchema }, { errors: [400, 404, 409] }),
    pathParams(keyIdParam),
    jsonBody(revokeKeySchema),
    async (c) => {
      const body: KeyChangeResponse = {
        success: true,
        message: 'License key revoked',
        licenseKey: await revokeKey(keyAdmin(c), c.req.valid('param').id, c.req.valid('json').reason),
      };
      return c.json(body, 200);
    },
  )
  .post(
    '/generate',
    op(
      'generateKeys',
      'Generate license keys for a product',
      { 201: { description: 'Generated', schema: generateKeysResponseSchema } },
      { errors: [400, 404, 409] },
    ),
    jsonBody(generateKeysSchema),
    async (c) => {
      const result = await generateKeys(keyAdmin(c), await getSettings(c.env.KV), c.req.valid('json'));
      const body: GenerateKeysResponse = {
        ...result,
        message: `Generated ${result.generated} license ${result.generated === 1 ? 'key' : 'keys'}`,
      };
      return c.json(body, 201);
    },
  );
