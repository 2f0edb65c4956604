// The figures: a customer's dashboard (/api/users/stats), the admin Overview (/api/admin/stats,
// a reseller's scoped to them) and System Analytics (/api/admin/analytics, owner).
import { Hono } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { queryParams } from '../../platform/validate';
import { adminStats } from './admin-stats';
import { systemAnalytics } from './analytics';
import { adminStatsSchema, type Analytics, analyticsQuery, analyticsSchema, dashboardStatsSchema, usageAnalyticsSchema } from './schemas';
import { dashboardStats } from './stats';
import { usageAnalytics } from './usage';
import { routeOperations } from '../accounts';

const dashboardOp = routeOperations({ tag: 'Account', access: 'user' });
const adminOp = routeOperations({ tag: 'Admin', access: 'reseller' });

const dashboardRoutes = new Hono<SignedInEnv>().get(
  '/stats',
  dashboardOp('getDashboardStats', 'My dashboard figures', { 200: dashboardStatsSchema }),
  async (c) => c.json(await dashboardStats(c.var.db, c.var.caller), 200),
);

const adminRoutes = new Hono<SignedInEnv>()
  .get(
    '/stats',
    adminOp('getAdminStats', "The Overview tab's figures (a reseller's are scoped to them)", { 200: adminStatsSchema }),
    async (c) => c.json(await adminStats(c.var.db, c.var.caller), 200),
  )
  .get(
    '/analytics',
    adminOp('getAnalytics', 'Sales, users and activations over a period', { 200: analyticsSchema }, { access: 'owner', errors: [400] }),
    queryParams(analyticsQuery),
    async (c) => {
      const body: Analytics = await systemAnalytics(c.var.db, c.req.valid('query').days);
      return c.json(body, 200);
    },
  )
  .get(
    '/analytics/usage',
    adminOp(
      'getUsageAnalytics',
      'Metered usage per product over a period',
      { 200: usageAnalyticsSchema },
      { access: 'owner', errors: [400] },
    ),
    queryParams(analyticsQuery),
    async (c) => c.json(await usageAnalytics(c.var.db, c.req.valid('query').days), 200),
  );

export const reportingMounts = [
  ['/api/users', dashboardRoutes],
  ['/api/admin', adminRoutes],
] as const;
