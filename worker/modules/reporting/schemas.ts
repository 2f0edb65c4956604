// System analytics (owner): the period the charts cover, and the figures the API returns.
import { z } from 'zod';
import { decimalInput } from '../../platform/schemas/amounts';
import { userSchema } from '../accounts/schemas/answers';
import { licenseKeySchema } from '../keys/schemas/answers';

export const ANALYTICS_PERIODS = [7, 30, 90] as const;
export const DEFAULT_ANALYTICS_PERIOD = 30;

export const analyticsQuery = z.object({
  days: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    decimalInput(
      z
        .number({ error: 'days must be 7, 30 or 90' })
        .refine((d) => (ANALYTICS_PERIODS as readonly number[]).includes(d), 'days must be 7, 30 or 90')
        .default(DEFAULT_ANALYTICS_PERIOD),
    ),
  ),
});
export type AnalyticsQuery = z.output<typeof analyticsQuery>;

/** One UTC day of the period. Revenue is in credits, as the shop's prices are. */
const analyticsDaySchema = z.object({
  date: z.string(),
  revenue: z.number(),
  keysSold: z.number(),
  newUsers: z.number(),
  activations: z.number(),
});
export type AnalyticsDay = z.infer<typeof analyticsDaySchema>;
const productSalesSchema = z.object({
  productId: z.string(),
  name: z.string(),
  keyTag: z.string(),
  keysSold: z.number(),
  revenue: z.number(),
});
export type ProductSales = z.infer<typeof productSalesSchema>;

export const analyticsSchema = z
  .object({
    days: z.number(),
    from: z.string().meta({ description: 'The first UTC day of the period (YYYY-MM-DD).' }),
    to: z.string().meta({ description: 'The last UTC day of the period (YYYY-MM-DD), today.' }),
    daily: z.array(analyticsDaySchema),
    salesByProduct: z.array(productSalesSchema),
    totals: z.object({ revenue: z.number(), keysSold: z.number(), newUsers: z.number(), activations: z.number() }),
    payments: z
      .object({ topUps: z.number(), toppedUp: z.number(), refunded: z.number(), refundOwed: z.number(), disputes: z.number() })
      .meta({ description: 'Card top-ups started in the period: how many were paid and for how much (USD), refunds, disputes.' }),
  })
  .meta({ id: 'Analytics' });
export type Analytics = z.infer<typeof analyticsSchema>;

export const dashboardStatsSchema = z
  .object({
    totalKeys: z.number(),
    availableKeys: z.number(),
    usedKeys: z.number(),
    expiredKeys: z.number(),
    revokedKeys: z.number(),
    totalProducts: z.number(),
    expiringSoonKeys: z.number().meta({ description: 'Active keys that expire within 7 days.' }),
    creditsSpent: z.number().meta({ description: 'Credits this user has paid for keys.' }),
  })
  .meta({ id: 'DashboardStats' });

export type DashboardStats = z.infer<typeof dashboardStatsSchema>;

export const recentUserSchema = userSchema.pick({ _id: true, username: true, email: true, role: true, createdAt: true });

export type RecentUser = z.infer<typeof recentUserSchema>;

export const adminStatsSchema = z
  .object({
    totalUsers: z.number(),
    totalKeys: z.number(),
    totalProducts: z.number(),
    totalRevenue: z.number().meta({ description: 'Credits.' }),
    usersByRole: z.object({ user: z.number(), reseller: z.number(), owner: z.number() }),
    keysByStatus: z.object({ available: z.number(), used: z.number(), revoked: z.number(), expired: z.number() }),
    recentActivity: z.object({ users: z.array(recentUserSchema), keys: z.array(licenseKeySchema) }),
  })
  .meta({ id: 'AdminStats' });

export type AdminStats = z.infer<typeof adminStatsSchema>;

/** Metered usage per product over the period (GET /api/admin/analytics/usage). */
export const usageAnalyticsSchema = z
  .object({
    days: z.number(),
    products: z.array(
      z.object({
        productId: z.string(),
        name: z.string(),
        keyTag: z.string(),
        usageAllowance: z.number().nullable(),
        consumed: z.number().meta({ description: 'Uses debited by the apps of its keys in the period.' }),
        toppedUp: z.number().meta({ description: 'Uses the owner added in the period.' }),
        keysUsing: z.number().meta({ description: 'Keys that debited at least once in the period.' }),
      }),
    ),
  })
  .meta({ id: 'UsageAnalytics' });
export type UsageAnalytics = z.infer<typeof usageAnalyticsSchema>;
