// System analytics (owner): the shop day by day over the last 7, 30 or 90 days. The figures come
// from the rollups migration 0032's triggers keep per UTC day as rows go in and out (daily_figures:
// revenue, new accounts, activations; daily_sales: keys sold and their credits by product), so a
// period costs a row a day (and a day's products), whatever the shop's size: counted from the rows,
// 90 days of a 200,000-key shop read six million rows. Card top-ups are few: read from payments
// (payments_created_idx). Days are UTC days.
import { and, between, count, gte, lt, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { dailyFigures, dailySales, payments } from '../../platform/db/schema';
import type { Analytics, AnalyticsDay, ProductSales } from './schemas';
import { DAY_MS } from '../../platform/vocabulary';

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Each figure over the UTC days [firstDay, lastDay]. Exported so a test can check how SQLite answers each. */
export function analyticsQueries(db: DB, firstDay: number, lastDay: number) {
  const [start, end] = [new Date(firstDay * DAY_MS), new Date((lastDay + 1) * DAY_MS)];
  return {
    figures: db
      .select({
        day: dailyFigures.day,
        revenue: dailyFigures.revenue,
        newUsers: dailyFigures.newUsers,
        activations: dailyFigures.activations,
      })
      .from(dailyFigures)
      .where(between(dailyFigures.day, firstDay, lastDay)),
    keysSold: db
      .select({ day: dailySales.day, n: sql<number>`sum(${dailySales.keysSold})` })
      .from(dailySales)
      .where(between(dailySales.day, firstDay, lastDay))
      .groupBy(dailySales.day),
    // A product whose keys of the period were all deleted since has its rows at zero: not listed.
    salesByProduct: db
      .select({
        productId: dailySales.productId,
        name: sql<string>`max(${dailySales.productName})`.as('name'),
        keyTag: sql<string>`max(${dailySales.productKeyTag})`,
        keysSold: sql<number>`sum(${dailySales.keysSold})`.as('keysSold'),
        revenue: sql<number>`sum(${dailySales.revenue})`.as('revenue'),
      })
      .from(dailySales)
      .where(between(dailySales.day, firstDay, lastDay))
      .groupBy(dailySales.productId)
      .having(sql`sum(${dailySales.keysSold}) > 0`)
      .orderBy(sql`keysSold DESC`, sql`revenue DESC`, sql`name`),
    // Card top-ups started in the period (payments_created_idx): those paid, what came back, disputes.
    payments: db
      .select({
        topUps: count(payments.paidAt),
        toppedUpCents: sql<number>`coalesce(SUM(CASE WHEN ${payments.paidAt} IS NOT NULL THEN ${payments.amountCents} END), 0)`,
        refundedCents: sql<number>`coalesce(SUM(${payments.refundedCents}), 0)`,
        owedCents: sql<number>`coalesce(SUM(${payments.refundOwedCents}), 0)`,
        disputes: count(payments.disputeId),
      })
      .from(payments)
      .where(and(gte(payments.createdAt, start), lt(payments.createdAt, end))),
  };
}

export async function systemAnalytics(db: DB, days: number, now = Date.now()): Promise<Analytics> {
  const lastDay = Math.floor(now / DAY_MS);
  const firstDay = lastDay - days + 1;
  const q = analyticsQueries(db, firstDay, lastDay);
  const [figures, sold, byProduct, [cards]] = await db.batch([q.figures, q.keysSold, q.salesByProduct, q.payments]);

  const byDay = new Map(figures.map((f) => [f.day, f]));
  const soldByDay = new Map(sold.map((r) => [r.day, r.n]));
  const daily: AnalyticsDay[] = Array.from({ length: days }, (_, i) => {
    const day = firstDay + i;
    const f = byDay.get(day);
    return {
      date: isoDay(day),
      revenue: f?.revenue ?? 0,
      keysSold: soldByDay.get(day) ?? 0,
      newUsers: f?.newUsers ?? 0,
      activations: f?.activations ?? 0,
    };
  });
  const sum = (field: keyof Omit<AnalyticsDay, 'date'>) => daily.reduce((total, d) => total + d[field], 0);
  return {
    days,
    from: isoDay(firstDay),
    to: isoDay(lastDay),
    daily,
    salesByProduct: byProduct satisfies ProductSales[],
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
