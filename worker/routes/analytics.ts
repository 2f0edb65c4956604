// /api/admin/analytics (owner): the figures behind /system-analytics.
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { systemAnalytics } from '../domain/analytics';
import { queryParams } from '../lib/validate';
import { requireAuth, requireRole } from '../middleware/auth';
import { analyticsQuery, type Analytics } from '../schemas/analytics';

export const analyticsRoutes = new Hono<AppEnv>()
  .use(requireAuth, requireRole('owner'))
  .get('/', queryParams(analyticsQuery), async (c) => {
    const body: Analytics = await systemAnalytics(c.env.DB, c.req.valid('query').days);
    return c.json(body, 200);
  });
