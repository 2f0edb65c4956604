// /api/admin/users/{userId}/purchase/{productId}: a reseller's purchase for a customer, or the
// owner's direct purchase. Mounted beside the user management routes, which share the path.
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { idempotencyClaim } from '../domain/idempotency';
import { purchaseForUser } from '../domain/purchase-for-user';
import { PURCHASE_STATUS } from '../domain/purchase';
import { clientIp } from '../lib/request';
import { getSettings } from '../lib/settings';
import { jsonBody, pathParams } from '../lib/validate';
import { requireAuth, requireRole } from '../middleware/auth';
import { purchaseForUserParams, purchaseForUserSchema } from '../schemas/admin-keys';

export const adminPurchaseRoutes = new Hono<AppEnv>()
  .use(requireAuth)
  .post('/:userId/purchase/:productId', requireRole('reseller'), pathParams(purchaseForUserParams), jsonBody(purchaseForUserSchema), async (c) => {
    const { userId, productId } = c.req.valid('param');
    const { duration, bypassBalance } = c.req.valid('json');
    const actor = c.var.user;
    const idempotency = idempotencyClaim('purchase-for-user', actor.id, c.req.header('idempotency-key'), `${userId}:${productId}:${duration}:${bypassBalance}`);
    const { replayed, ...body } = await purchaseForUser(
      { db: c.var.db, actor, ip: clientIp(c) },
      await getSettings(c.env.KV),
      { userId, productId, duration, bypassBalance },
      idempotency,
    );
    if (replayed) c.header('Idempotent-Replayed', 'true');
    return c.json({ ...body, message: `License key purchased for ${body.licenseKey.purchasedBy.username}` }, PURCHASE_STATUS);
  });
