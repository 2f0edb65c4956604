// Metered usage per product over a period: the uses its keys' apps debited, the uses the owner
// added, and how many keys used any, summed from the keys' usage history (usage_events_product_idx).
import { and, desc, eq, gte, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { products, usageEvents } from '../../platform/db/schema';
import { DAY_MS } from '../../platform/vocabulary';
import type { UsageAnalytics } from './schemas';

export async function usageAnalytics(db: DB, days: number, now = Date.now()): Promise<UsageAnalytics> {
  const consumed = sql<number>`coalesce(sum(CASE WHEN ${usageEvents.kind} = 'consume' THEN ${usageEvents.amount} END), 0)`;
  const rows = await db
    .select({
      productId: products.id,
      name: products.name,
      keyTag: products.keyTag,
      usageAllowance: products.usageAllowance,
      consumed,
      toppedUp: sql<number>`coalesce(sum(CASE WHEN ${usageEvents.kind} = 'top_up' THEN ${usageEvents.amount} END), 0)`,
      keysUsing: sql<number>`count(DISTINCT CASE WHEN ${usageEvents.kind} = 'consume' THEN ${usageEvents.keyId} END)`,
    })
    .from(usageEvents)
    .innerJoin(products, eq(products.id, usageEvents.productId))
    .where(and(gte(usageEvents.at, new Date(now - days * DAY_MS))))
    .groupBy(products.id)
    .orderBy(desc(consumed), products.name)
    .all();
  return { days, products: rows };
}
