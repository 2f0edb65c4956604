// /api/admin: a reseller's purchase for a customer, or the owner's direct purchase, with what its
// screen needs to show the price; a key's renewal by a reseller or the owner; the owner's reseller tiers, every reseller's figures and who
// belongs to whom. /api/reseller: a reseller's own statistics and customers (a reseller's API token
// reads them too). The reseller routes take the reseller from the caller, never from the request, so
// no reseller reads another's; the owner names any reseller in the path.
import { Hono, type Context } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { idempotencyClaim } from '../../platform/idempotency';
import { successMessageSchema } from '../../platform/openapi';
import { clientIp } from '../../platform/request';
import { jsonBody, pathParams, queryParams } from '../../platform/validate';
import { purchaseForUser } from './purchase-for-user';
import { renewForCustomer } from './renew-for-customer';
import { routeOperations } from '../accounts';
import { PURCHASE_STATUS, RENEWAL_STATUS } from '../keys';
import { adminRenewKeySchema, renewalResponseSchema } from '../keys/schemas/renewal';
import { keyIdParam } from '../keys/schemas/admin-keys';
import { getSettings } from '../settings';
import { listResellerCustomers, setCustomerReseller } from './customers';
import { listResellerFigures, resellerStatistics } from './statistics';
import { purchaseTerms } from './terms';
import { createTier, deleteTier, listTiers, setResellerTier, updateTier, type OwnerContext } from './tiers';
import {
  customerIdParam,
  purchaseForUserParams,
  type PurchaseForUserResponse,
  purchaseForUserResponseSchema,
  purchaseForUserSchema,
  purchaseTermsSchema,
  resellerCustomersQuery,
  resellerCustomersResponseSchema,
  resellerIdParam,
  resellersQuery,
  resellersResponseSchema,
  resellerStatsQuery,
  resellerStatsSchema,
  resellerTierInputSchema,
  resellerTierSchema,
  resellerTiersResponseSchema,
  setCustomerResellerSchema,
  setResellerTierSchema,
  tierIdParam,
} from './schemas';

const op = routeOperations({ tag: 'Admin', access: 'reseller' });
const resellerOp = routeOperations({ tag: 'Resellers', access: 'reseller' });
const ownerOp = routeOperations({ tag: 'Resellers', access: 'owner' });

const owner = (c: Context<SignedInEnv>): OwnerContext => ({ db: c.var.db, actor: c.var.caller, ip: clientIp(c) });
const changed = successMessageSchema;

const resellerRoutes = new Hono<SignedInEnv>()
  .get(
    '/purchase-terms',
    op('getPurchaseTerms', 'What the purchase screen needs to show the price (a reseller: their tier)', { 200: purchaseTermsSchema }),
    async (c) => c.json(await purchaseTerms(c.var.db, await getSettings(c.env.KV), c.var.caller), 200),
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
  )
  .post(
    '/keys/:id/renew',
    op(
      'renewKeyForCustomer',
      "Renew a key: a reseller's for a customer at their tier's price; the owner's any key, free or charged to an account (audited)",
      { 200: { description: 'Renewed (or replayed, with Idempotent-Replayed: true)', schema: renewalResponseSchema } },
      { errors: [400, 402, 403, 404, 409], idempotent: true },
    ),
    pathParams(keyIdParam),
    jsonBody(adminRenewKeySchema),
    async (c) => {
      const id = c.req.valid('param').id;
      const { days, chargeTo } = c.req.valid('json');
      const actor = c.var.caller;
      const claim = idempotencyClaim('renew-for-customer', actor.id, c.req.header('idempotency-key'), `${id}:${days}:${chargeTo ?? ''}`);
      const { replayed, ...body } = await renewForCustomer(
        { db: c.var.db, actor, ip: clientIp(c) },
        await getSettings(c.env.KV),
        { keyId: id, days, chargeTo },
        claim,
      );
      if (replayed) c.header('Idempotent-Replayed', 'true');
      return c.json(body, RENEWAL_STATUS);
    },
  )
  .put(
    '/users/:id/reseller',
    ownerOp('setCustomerReseller', 'Give a customer to a reseller, or to none (audited)', { 200: changed }, { errors: [400, 404, 409] }),
    pathParams(customerIdParam),
    jsonBody(setCustomerResellerSchema),
    async (c) => {
      const { resellerId } = c.req.valid('json');
      await setCustomerReseller(owner(c), c.req.valid('param').id, resellerId);
      return c.json(
        { success: true as const, message: resellerId ? 'Customer given to the reseller' : 'Customer belongs to no reseller now' },
        200,
      );
    },
  )
  .get('/reseller-tiers', ownerOp('listResellerTiers', 'Every reseller tier', { 200: resellerTiersResponseSchema }), async (c) =>
    c.json({ tiers: await listTiers(c.var.db) }, 200),
  )
  .post(
    '/reseller-tiers',
    ownerOp('createResellerTier', 'Add a reseller tier', { 201: resellerTierSchema }, { errors: [400, 409] }),
    jsonBody(resellerTierInputSchema),
    async (c) => c.json(await createTier(owner(c), c.req.valid('json')), 201),
  )
  .put(
    '/reseller-tiers/:id',
    ownerOp('updateResellerTier', 'Change a reseller tier', { 200: resellerTierSchema }, { errors: [400, 404, 409] }),
    pathParams(tierIdParam),
    jsonBody(resellerTierInputSchema),
    async (c) => c.json(await updateTier(owner(c), c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .delete(
    '/reseller-tiers/:id',
    ownerOp('deleteResellerTier', 'Delete a reseller tier (its resellers go to the default tier)', { 200: changed }, { errors: [404] }),
    pathParams(tierIdParam),
    async (c) => {
      await deleteTier(owner(c), c.req.valid('param').id);
      return c.json({ success: true as const, message: 'Tier deleted' }, 200);
    },
  )
  .get(
    '/resellers',
    ownerOp('listResellers', "Every reseller's figures, to compare", { 200: resellersResponseSchema }, { errors: [400] }),
    queryParams(resellersQuery),
    async (c) => c.json(await listResellerFigures(c.var.db, c.req.valid('query')), 200),
  )
  .put(
    '/resellers/:id/tier',
    ownerOp('setResellerTier', 'Put a reseller in a tier, or the default (audited)', { 200: changed }, { errors: [400, 404, 409] }),
    pathParams(resellerIdParam),
    jsonBody(setResellerTierSchema),
    async (c) => {
      await setResellerTier(owner(c), c.req.valid('param').id, c.req.valid('json').tierId);
      return c.json({ success: true as const, message: 'Reseller tier changed' }, 200);
    },
  )
  .get(
    '/resellers/:id/stats',
    ownerOp('getResellerStatsOf', "A reseller's statistics", { 200: resellerStatsSchema }, { errors: [400, 404] }),
    pathParams(resellerIdParam),
    queryParams(resellerStatsQuery),
    async (c) => c.json(await resellerStatistics(c.var.db, c.req.valid('param').id, c.req.valid('query').days), 200),
  )
  .get(
    '/resellers/:id/customers',
    ownerOp('listResellerCustomersOf', "A reseller's customers", { 200: resellerCustomersResponseSchema }, { errors: [400] }),
    pathParams(resellerIdParam),
    queryParams(resellerCustomersQuery),
    async (c) => c.json(await listResellerCustomers(c.var.db, c.req.valid('param').id, c.req.valid('query')), 200),
  );

/** The calling reseller's own figures and customers: the reseller is the caller, whatever the request says. */
const ownRoutes = new Hono<SignedInEnv>()
  .get(
    '/stats',
    resellerOp('getMyResellerStats', 'My statistics as a reseller', { 200: resellerStatsSchema }, { errors: [400] }),
    queryParams(resellerStatsQuery),
    async (c) => c.json(await resellerStatistics(c.var.db, c.var.caller.id, c.req.valid('query').days), 200),
  )
  .get(
    '/customers',
    resellerOp('listMyCustomers', 'My customers and their purchases', { 200: resellerCustomersResponseSchema }, { errors: [400] }),
    queryParams(resellerCustomersQuery),
    async (c) => c.json(await listResellerCustomers(c.var.db, c.var.caller.id, c.req.valid('query')), 200),
  );

export const resellersMounts = [
  ['/api/admin', resellerRoutes],
  ['/api/reseller', ownRoutes],
] as const;
