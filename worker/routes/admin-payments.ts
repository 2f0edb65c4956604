// /api/admin/payments (owner): every card top-up, paged, filtered by status and customer.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { listPayments } from '../domain/payments';
import { queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { adminPaymentsQuery, paymentsResponseSchema } from '../schemas/payments';
import { documented } from '../lib/openapi';

export const adminPaymentsRoutes = new Hono<SignedInEnv>().use(requireAuth({ role: 'owner' })).get(
  '/',
  documented({
    operationId: 'listPayments',
    summary: 'Every card top-up, paged and filtered',
    tag: 'Admin',
    access: 'owner',
    responses: { 200: { description: 'OK', schema: paymentsResponseSchema } },
    errors: [400],
  }),
  queryParams(adminPaymentsQuery),
  async (c) => c.json(await listPayments(c.var.db, c.req.valid('query')), 200),
);
