// System analytics (owner): the period the charts cover, and the figures the API returns.
import { z } from 'zod';
import { decimalInput } from '../../platform/schemas/amounts';

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
