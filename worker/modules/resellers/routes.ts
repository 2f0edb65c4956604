// /api/admin: a reseller's purchase for a customer, or the owner's direct purchase, with what its
// screen needs to show the price.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { idempotencyClaim } from '../../platform/idempotency';
import { clientIp } from '../../platform/request';
import { jsonBody, pathParams } from '../../platform/validate';
import { purchaseForUser } from './purchase-for-user';
import { routeOperations } from '../accounts';
import { PURCHASE_STATUS } from '../keys';
import { getSettings } from '../settings';
import {
  purchaseForUserParams,
  type PurchaseForUserResponse,
  purchaseForUserResponseSchema,
  purchaseForUserSchema,
  type PurchaseTerms,
  purchaseTermsSchema,
} from './schemas';

const op = routeOperations({ tag: 'Admin', access: 'reseller' });

const resellerRoutes = new Hono<SignedInEnv>()
  .get(
    '/purchase-terms',
    op('getPurchaseTerms', 'What the purchase screen needs to show the price', { 200: purchaseTermsSchema }),
    async (c) => {
      const { defaultDailyDiscount, enableDirectPurchases, enableResellerPurchases } = await getSettings(c.env.KV);
      const terms: PurchaseTerms = { defaultDailyDiscount, enableDirectPurchases, enableResellerPurchases };
      return c.json(terms, 200);
    },
  )
  .post(
    '/users/:userId/purchase/:productId',
    op(
      'purchaseForUser',
      'Buy a key for a customer (reseller) or directly (owner)',
      { 201: { description: 'Bought (or replayed, with Idempotent-Replayed: true)', schema: purchaseForUserResponseSchema } },
      { errors: [400, 402, 404, 409], idempotent: true },
    ),
    pathParams(purchaseForUserParams),
    jsonBody(purchaseForUserSchema),
    async (c) => {
      const { userId, productId } = c.req.valid('param');
      const { duration, bypassBalance } = c.req.valid('json');
      const actor = c.var.caller;
      const idempotency = idempotencyClaim(
        'purchase-for-user',
        actor.id,
        c.req.header('idempotency-key'),
        `${userId}:${productId}:${duration}:${bypassBalance}`,
      );
      const { replayed, ...body } = await purchaseForUser(
        { db: c.var.db, actor, ip: clientIp(c) },
        await getSettings(c.env.KV),
        { userId, productId, duration, bypassBalance },
        idempotency,
      );
      if (replayed) c.header('Idempotent-Replayed', 'true');
      const answer: PurchaseForUserResponse = { ...body, message: `License key purchased for ${body.licenseKey.purchasedBy.username}` };
      return c.json(answer, PURCHASE_STATUS);
    },
  );

export const resellersMounts = [['/api/admin', resellerRoutes]] as const;
