// /api/admin/payments (owner): every card top-up, paged, filtered by status and customer.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { listPayments } from '../domain/payments';
import { queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { adminPaymentsQuery } from '../schemas/payments';

export const adminPaymentsRoutes = new Hono<SignedInEnv>()
  .use(requireAuth({ role: 'owner' }))
  .get('/', queryParams(adminPaymentsQuery), async (c) => c.json(await listPayments(c.var.db, c.req.valid('query')), 200));
