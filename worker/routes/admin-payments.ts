// /api/admin/payments (owner): every card top-up, paged, filtered by status and customer.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { listPayments } from '../domain/payments';
import { queryParams } from '../lib/validate';
import { adminPaymentsQuery, paymentsResponseSchema } from '../schemas/payments';
import { routeOperations } from '../middleware/operation';

const op = routeOperations({ tag: 'Admin', access: 'owner' });

export const adminPaymentsRoutes = new Hono<SignedInEnv>()
  .get(
    '/',
    op('listPayments', 'Every card top-up, paged and filtered', { 200: paymentsResponseSchema }, { errors: [400] }),
    queryParams(adminPaymentsQuery),
    async (c) => c.json(await listPayments(c.var.db, c.req.valid('query')), 200),
  );
