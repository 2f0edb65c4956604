// System analytics (owner): the shop day by day over the last 7, 30 or 90 days. Each figure is one
// aggregate over an indexed time range, so the cost follows the period's rows, not the tables':
// revenue from the ledger (ledger_kind_created_idx), keys sold and sales by product from the keys
// (license_keys_created_idx; a bought key's purchasedAt is its createdAt), new users
// (users_created_idx) and activations (activations_activated_idx). Days are UTC days.
import { and, count, eq, gte, isNotNull, lt, sql, type SQLWrapper } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { activations, ledger, licenseKeys, payments, users } from '../../platform/db/schema';
import type { Analytics, AnalyticsDay, ProductSales } from './schemas';
import { DAY_MS } from '../../platform/vocabulary';

type DayCount = { day: number; n: number };

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The UTC day of a time in milliseconds, as the day number each series groups by. */
const dayOf = (column: SQLWrapper) => sql<number>`${column} / ${sql.raw(String(DAY_MS))}`.as('day');
const byDayGroup = sql`day`;

/** Each figure over [from, to), in milliseconds. Exported so a test can check how SQLite answers each. */
export function analyticsQueries(db: DB, from: number, to: number) {
  const [start, end] = [new Date(from), new Date(to)];
  const sold = and(gte(licenseKeys.createdAt, start), lt(licenseKeys.createdAt, end), isNotNull(licenseKeys.purchasedAt));
  return {
    // Purchase rows carry the price as a debit; the free direct purchases have none.
    revenue: db
      .select({ day: dayOf(ledger.createdAt), n: sql<number>`-SUM(${ledger.creditsDelta})` })
      .from(ledger)
      .where(and(eq(ledger.kind, 'purchase'), gte(ledger.createdAt, start), lt(ledger.createdAt, end)))
      .groupBy(byDayGroup),
    keysSold: db
      .select({ day: dayOf(licenseKeys.createdAt), n: count() })
      .from(licenseKeys)
      .where(sold)
      .groupBy(byDayGroup),
    salesByProduct: db
      .select({
        productId: licenseKeys.productId,
        name: sql<string>`max(${licenseKeys.productName})`.as('name'),
        keyTag: sql<string>`max(${licenseKeys.productKeyTag})`,
        keysSold: count().as('keysSold'),
        revenue: sql<number | null>`SUM(${licenseKeys.purchasePrice})`.as('revenue'),
      })
      .from(licenseKeys)
      .where(sold)
      .groupBy(licenseKeys.productId)
      .orderBy(sql`keysSold DESC`, sql`revenue DESC`, sql`name`),
    newUsers: db
      .select({ day: dayOf(users.createdAt), n: count() })
      .from(users)
      .where(and(gte(users.createdAt, start), lt(users.createdAt, end)))
      .groupBy(byDayGroup),
    activations: db
      .select({ day: dayOf(activations.activatedAt), n: count() })
      .from(activations)
      .where(and(gte(activations.activatedAt, start), lt(activations.activatedAt, end)))
      .groupBy(byDayGroup),
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
  const from = firstDay * DAY_MS;
  const to = (lastDay + 1) * DAY_MS;

  const q = analyticsQueries(db, from, to);
  const [revenue, sold, byProduct, newUsers, activated, [cards]] = await db.batch([
    q.revenue,
    q.keysSold,
    q.salesByProduct,
    q.newUsers,
    q.activations,
    q.payments,
  ]);

  const byDay = (rows: DayCount[]) => new Map(rows.map((r) => [r.day, r.n]));
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
    salesByProduct: byProduct.map((p): ProductSales => ({ ...p, revenue: p.revenue ?? 0 })),
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
