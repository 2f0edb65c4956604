// /api/admin/users/{userId}/purchase/{productId}: a reseller's purchase for a customer, or the
// owner's direct purchase; /api/admin/purchase-terms: what the purchase screen needs to show the
// price. Mounted at /api/admin, which other admin apps share: middleware is per route.
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { idempotencyClaim } from '../domain/idempotency';
import { purchaseForUser } from '../domain/purchase-for-user';
import { PURCHASE_STATUS } from '../domain/purchase';
import { clientIp } from '../lib/request';
import { getSettings } from '../lib/settings';
import { jsonBody, pathParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { purchaseForUserParams, purchaseForUserSchema, type PurchaseTerms } from '../schemas/admin-keys';
import type { PurchaseForUserResponse } from '../schemas/entities';

export const adminPurchaseRoutes = new Hono<AppEnv>()
  .get('/purchase-terms', requireAuth({ role: 'reseller' }), async (c) => {
    const { defaultDailyDiscount, enableDirectPurchases, enableResellerPurchases } = await getSettings(c.env.KV);
    const terms: PurchaseTerms = { defaultDailyDiscount, enableDirectPurchases, enableResellerPurchases };
    return c.json(terms, 200);
  })
  .post(
    '/users/:userId/purchase/:productId',
    requireAuth({ role: 'reseller' }),
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
