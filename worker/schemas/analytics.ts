// System analytics (owner): the period the charts cover, and the figures the API returns.
import { z } from 'zod';

export const ANALYTICS_PERIODS = [7, 30, 90] as const;
export const DEFAULT_ANALYTICS_PERIOD = 30;

export const analyticsQuery = z.object({
  days: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z.coerce
      .number({ error: 'days must be 7, 30 or 90' })
      .refine((d) => (ANALYTICS_PERIODS as readonly number[]).includes(d), 'days must be 7, 30 or 90')
      .default(DEFAULT_ANALYTICS_PERIOD),
  ),
});
export type AnalyticsQuery = z.output<typeof analyticsQuery>;

/** One UTC day of the period. Revenue is in credits, as the shop's prices are. */
export type AnalyticsDay = { date: string; revenue: number; keysSold: number; newUsers: number; activations: number };
export type ProductSales = { productId: string; name: string; keyTag: string; keysSold: number; revenue: number };

export type Analytics = {
  days: number;
  /** The first and last UTC day of the period (YYYY-MM-DD), today included. */
  from: string;
  to: string;
  daily: AnalyticsDay[];
  salesByProduct: ProductSales[];
  totals: { revenue: number; keysSold: number; newUsers: number; activations: number };
  /** Card top-ups started in the period: how many were paid and for how much (USD), refunds, disputes. */
  payments: { topUps: number; toppedUp: number; refunded: number; refundOwed: number; disputes: number };
};
