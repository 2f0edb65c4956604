// /api/admin/analytics (owner): the figures behind /system-analytics.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { systemAnalytics } from '../domain/analytics';
import { queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { analyticsQuery, type Analytics, analyticsSchema } from '../schemas/analytics';
import { routeDocs } from '../lib/openapi';

const doc = routeDocs({ tag: 'Admin', access: 'owner' });

export const adminAnalyticsRoutes = new Hono<SignedInEnv>()
  .use(requireAuth({ role: 'owner' }))
  .get(
    '/',
    doc('getAnalytics', 'Sales, users and activations over a period', { 200: analyticsSchema }, { errors: [400] }),
    queryParams(analyticsQuery),
    async (c) => {
      const body: Analytics = await systemAnalytics(c.var.db, c.req.valid('query').days);
      return c.json(body, 200);
    },
  );
