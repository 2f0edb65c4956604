// /api/admin/payments (owner): every card top-up, paged, filtered by status and customer.
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { listPayments } from '../domain/payments';
import { queryParams } from '../lib/validate';
import { requireAuth, requireRole } from '../middleware/auth';
import { adminPaymentsQuery } from '../schemas/payments';

export const adminPaymentsRoutes = new Hono<AppEnv>()
  .use(requireAuth, requireRole('owner'))
  .get('/', queryParams(adminPaymentsQuery), async (c) => c.json(await listPayments(c.var.db, c.req.valid('query')), 200));
