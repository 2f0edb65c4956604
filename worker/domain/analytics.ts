// System analytics (owner): the shop day by day over the last 7, 30 or 90 days. Each figure is one
// aggregate over an indexed time range, so the cost follows the period's rows, not the tables':
// revenue from the ledger (ledger_kind_created_idx), keys sold and sales by product from the keys
// (license_keys_created_idx; a bought key's purchasedAt is its createdAt), new users
// (users_created_idx) and activations (activations_activated_idx). Days are UTC days.
import { rawSql, runBatch, type DB } from '../db/client';
import type { Analytics, AnalyticsDay, ProductSales } from '../schemas/analytics';
import { DAY_MS } from './licensing';

type DayCount = { day: number; n: number };

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Each figure over [?1, ?2), in milliseconds. Exported so a test can check how SQLite answers each. */
export const ANALYTICS_SQL = {
  // Purchase rows carry the price as a debit; the free direct purchases have none.
  revenue: `SELECT created_at / ${DAY_MS} AS day, -SUM(credits_delta) AS n FROM ledger WHERE kind = 'purchase' AND created_at >= ?1 AND created_at < ?2 GROUP BY day`,
  keysSold: `SELECT created_at / ${DAY_MS} AS day, count(*) AS n FROM license_keys WHERE created_at >= ?1 AND created_at < ?2 AND purchased_at IS NOT NULL GROUP BY day`,
  salesByProduct: `SELECT product_id AS productId, max(product_name) AS name, max(product_key_tag) AS keyTag, count(*) AS keysSold, SUM(purchase_price) AS revenue
      FROM license_keys WHERE created_at >= ?1 AND created_at < ?2 AND purchased_at IS NOT NULL
     GROUP BY product_id ORDER BY keysSold DESC, revenue DESC, name`,
  newUsers: `SELECT created_at / ${DAY_MS} AS day, count(*) AS n FROM users WHERE created_at >= ?1 AND created_at < ?2 GROUP BY day`,
  activations: `SELECT activated_at / ${DAY_MS} AS day, count(*) AS n FROM activations WHERE activated_at >= ?1 AND activated_at < ?2 GROUP BY day`,
  // Card top-ups started in the period (payments_created_idx): those paid, what came back, disputes.
  payments: `SELECT count(paid_at) AS topUps, coalesce(SUM(CASE WHEN paid_at IS NOT NULL THEN amount_cents END), 0) AS toppedUpCents,
      coalesce(SUM(refunded_cents), 0) AS refundedCents, coalesce(SUM(refund_owed_cents), 0) AS owedCents, count(dispute_id) AS disputes
      FROM payments WHERE created_at >= ?1 AND created_at < ?2`,
};

type PaymentFigures = { topUps: number; toppedUpCents: number; refundedCents: number; owedCents: number; disputes: number };

export async function systemAnalytics(db: DB, days: number, now = Date.now()): Promise<Analytics> {
  const lastDay = Math.floor(now / DAY_MS);
  const firstDay = lastDay - days + 1;
  const from = firstDay * DAY_MS;
  const to = (lastDay + 1) * DAY_MS;

  const [revenue, sold, byProduct, newUsers, activated, paid] = (await runBatch(
    db,
    [
      ANALYTICS_SQL.revenue,
      ANALYTICS_SQL.keysSold,
      ANALYTICS_SQL.salesByProduct,
      ANALYTICS_SQL.newUsers,
      ANALYTICS_SQL.activations,
      ANALYTICS_SQL.payments,
    ].map((q) => rawSql(q, from, to)),
  )) as unknown[][];
  const cards = paid[0] as PaymentFigures;

  const byDay = (rows: unknown[]) => new Map((rows as DayCount[]).map((r) => [r.day, r.n]));
  const series = {
    revenue: byDay(revenue),
    keysSold: byDay(sold),
    newUsers: byDay(newUsers),
    activations: byDay(activated),
  };
  const daily: AnalyticsDay[] = Array.from({ length: days }, (_, i) => {
    const day = firstDay + i;
    return {
      date: isoDay(day),
      revenue: series.revenue.get(day) ?? 0,
      keysSold: series.keysSold.get(day) ?? 0,
      newUsers: series.newUsers.get(day) ?? 0,
      activations: series.activations.get(day) ?? 0,
    };
  });
  const sum = (field: keyof Omit<AnalyticsDay, 'date'>) => daily.reduce((total, d) => total + d[field], 0);
  return {
    days,
    from: isoDay(firstDay),
    to: isoDay(lastDay),
    daily,
    salesByProduct: (byProduct as ProductSales[]).map((p) => ({ ...p, revenue: p.revenue ?? 0 })),
    totals: { revenue: sum('revenue'), keysSold: sum('keysSold'), newUsers: sum('newUsers'), activations: sum('activations') },
    payments: {
      topUps: cards.topUps,
      toppedUp: cards.toppedUpCents / 100,
      refunded: cards.refundedCents / 100,
      refundOwed: cards.owedCents / 100,
      disputes: cards.disputes,
    },
  };
}
