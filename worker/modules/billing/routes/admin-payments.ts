// /api/admin/payments (owner): every card top-up, paged, filtered by status and customer; writing off
// what a reversal left owed, and revoking the keys bought since a reversed payment.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { adminPayment, listPayments } from '../payments';
import { revokeKeysSincePayment, writeOffOwed } from '../reversals';
import { requestOrigin } from '../../../platform/request';
import { pathParams, queryParams } from '../../../platform/validate';
import {
  adminPaymentsQuery,
  paymentsResponseSchema,
  revokedKeysResponseSchema,
  sessionIdParam,
  writeOffResponseSchema,
} from '../schemas/payments';
import { routeOperations } from '../../accounts';

const op = routeOperations({ tag: 'Admin', access: 'owner' });

export const adminPaymentsRoutes = new Hono<SignedInEnv>()
  .get(
    '/',
    op('listPayments', 'Every card top-up, paged and filtered', { 200: paymentsResponseSchema }, { errors: [400] }),
    queryParams(adminPaymentsQuery),
    async (c) => c.json(await listPayments(c.var.db, c.req.valid('query')), 200),
  )
  .post(
    '/:id/write-off',
    op('writeOffOwed', 'Write off what a reversed payment left owed', { 200: writeOffResponseSchema }, { errors: [400, 404, 409] }),
    pathParams(sessionIdParam),
    async (c) => {
      const { id } = c.req.valid('param');
      const admin = { db: c.var.db, actor: c.var.caller, ip: requestOrigin(c).ipAddress };
      const cents = await writeOffOwed(admin, id);
      const payment = await adminPayment(c.var.db, id);
      return c.json({ payment, writtenOff: cents / 100, message: `$${(cents / 100).toFixed(2)} written off` }, 200);
    },
  )
  .post(
    '/:id/revoke-keys',
    op(
      'revokeKeysSincePayment',
      "Revoke every key the payment's customer bought since it was credited",
      { 200: revokedKeysResponseSchema },
      { errors: [400, 404, 409] },
    ),
    pathParams(sessionIdParam),
    async (c) => {
      const admin = { db: c.var.db, actor: c.var.caller, ip: requestOrigin(c).ipAddress };
      const revoked = await revokeKeysSincePayment(admin, c.req.valid('param').id);
      return c.json({ revoked, message: `${revoked.length} key${revoked.length === 1 ? '' : 's'} revoked` }, 200);
    },
  );
