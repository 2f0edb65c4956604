// /api/admin: the Overview tab's figures (owner and reseller, scoped) and audit log (owner), and a
// reseller's purchase for a customer or the owner's direct purchase, with what its screen shows.
// Middleware is per route: this app is mounted at /api/admin, which the other admin apps share.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { adminStats } from '../../reporting/admin-stats';
import { listAuditLog } from '../../audit/audit';
import { idempotencyClaim } from '../../../platform/idempotency';
import { purchaseForUser } from '../../resellers/purchase-for-user';
import { PURCHASE_STATUS } from '../purchase';
import { clientIp } from '../../../platform/request';
import { getSettings } from '../../settings/store';
import { jsonBody, pathParams, queryParams } from '../../../platform/validate';
import { purchaseForUserParams, purchaseForUserSchema, type PurchaseTerms, purchaseTermsSchema } from '../schemas/admin-keys';
import { auditLogQuery } from '../../audit/schemas';
import type { PurchaseForUserResponse } from '../../../platform/schemas/entities';
import { adminStatsSchema, auditLogResponseSchema, purchaseForUserResponseSchema } from '../../../platform/schemas/entities';
import { routeOperations } from '../../accounts/operation';

const op = routeOperations({ tag: 'Admin', access: 'reseller' });

export const adminRoutes = new Hono<SignedInEnv>()
  .get(
    '/stats',
    op('getAdminStats', "The Overview tab's figures (a reseller's are scoped to them)", { 200: adminStatsSchema }),
    async (c) => c.json(await adminStats(c.var.db, c.var.caller), 200),
  )
  .get(
    '/audit-log',
    op('getAuditLog', 'The audit log, paged and filtered', { 200: auditLogResponseSchema }, { access: 'owner', errors: [400] }),
    queryParams(auditLogQuery),
    async (c) => c.json(await listAuditLog(c.var.db, c.req.valid('query')), 200),
  )
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
