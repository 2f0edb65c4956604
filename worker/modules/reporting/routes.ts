// /api/admin/analytics (owner): the figures behind /system-analytics.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { systemAnalytics } from './analytics';
import { queryParams } from '../../platform/validate';
import { analyticsQuery, type Analytics, analyticsSchema } from './schemas';
import { routeOperations } from '../accounts/operation';

const op = routeOperations({ tag: 'Admin', access: 'owner' });

export const adminAnalyticsRoutes = new Hono<SignedInEnv>().get(
  '/',
  op('getAnalytics', 'Sales, users and activations over a period', { 200: analyticsSchema }, { errors: [400] }),
  queryParams(analyticsQuery),
  async (c) => {
    const body: Analytics = await systemAnalytics(c.var.db, c.req.valid('query').days);
    return c.json(body, 200);
  },
);
