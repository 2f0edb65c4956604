// /api/admin/analytics (owner): the figures behind /system-analytics.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { systemAnalytics } from '../domain/analytics';
import { queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { analyticsQuery, type Analytics, analyticsSchema } from '../schemas/analytics';
import { documented } from '../lib/openapi';

export const adminAnalyticsRoutes = new Hono<SignedInEnv>().use(requireAuth({ role: 'owner' })).get(
  '/',
  documented({
    operationId: 'getAnalytics',
    summary: 'Sales, users and activations over a period',
    tag: 'Admin',
    access: 'owner',
    responses: { 200: { description: 'OK', schema: analyticsSchema } },
    errors: [400],
  }),
  queryParams(analyticsQuery),
  async (c) => {
    const body: Analytics = await systemAnalytics(c.var.db, c.req.valid('query').days);
    return c.json(body, 200);
  },
);
