// The oracle of a reseller's statistics: the walk the statistics did before migration 0033 kept
// their figures (the reseller's ledger rows of the period and of all time, their customers and
// their keys for customers, read row by row), with one change the figures made on purpose: a
// ledger row counts under the product its key had when the row was written, so a key deleted
// since still counts under its product. `gone` names the keys deleted since, as they were.
import { DAY_MS, type KeyStatus } from '../../../platform/vocabulary';

export type GoneKey = { productId: string; name: string; keyTag: string; generationMethod: string };

export type WalkedFigures = {
  daily: { date: string; earned: number; spent: number }[];
  byProduct: {
    productId: string | null;
    name: string;
    keyTag: string | null;
    earned: number;
    spent: number;
    keysForCustomers: number;
    customerPurchases: number;
  }[];
  totals: { earned: number; spent: number; keysForCustomers: number; customerPurchases: number };
  allTime: { earned: number; spent: number; customers: number; customerPurchases: number; keysForCustomers: number };
  keysForCustomersByStatus: Record<KeyStatus, number>;
};

const all = async <T>(d1: D1Database, sql: string, ...params: unknown[]) =>
  (
    await d1
      .prepare(sql)
      .bind(...params)
      .all<T>()
  ).results;

/** The ledger's rows of the reseller (kinds commission and purchase), each with its key as it was when written. */
const ROWS = `SELECT l.kind, l.credits_delta, l.created_at,
        coalesce(k.product_id, g.value->>'productId') AS product_id, coalesce(k.product_name, g.value->>'name') AS product_name,
        coalesce(k.product_key_tag, g.value->>'keyTag') AS product_key_tag, coalesce(k.generation_method, g.value->>'generationMethod') AS generation_method
   FROM ledger l LEFT JOIN license_keys k ON k.id = l.reference LEFT JOIN json_each(?2) g ON g.key = l.reference
  WHERE l.user_id = ?1 AND l.kind IN ('commission', 'purchase')`;

/** What `resellerStatistics` answers for the period of `days` ending on `now`'s UTC day, walked from the rows; byProduct by product id. */
export async function walkResellerFigures(
  d1: D1Database,
  resellerId: string,
  days: number,
  now: number,
  gone: Map<string, GoneKey> = new Map(),
) {
  const rows = await all<{
    kind: string;
    credits_delta: number;
    created_at: number;
    product_id: string | null;
    product_name: string | null;
    product_key_tag: string | null;
    generation_method: string | null;
  }>(d1, ROWS, resellerId, JSON.stringify(Object.fromEntries(gone)));
  const lastDay = Math.floor(now / DAY_MS);
  const firstDay = lastDay - days + 1;
  const daily = Array.from({ length: days }, (_, i) => ({
    date: new Date((firstDay + i) * DAY_MS).toISOString().slice(0, 10),
    earned: 0,
    spent: 0,
  }));
  const products = new Map<string | null, WalkedFigures['byProduct'][number]>();
  const allTime = { earned: 0, spent: 0, customers: 0, customerPurchases: 0, keysForCustomers: 0 };
  for (const row of rows) {
    const commission = row.kind === 'commission';
    allTime.earned += commission ? row.credits_delta : 0;
    allTime.spent += commission ? 0 : -row.credits_delta;
    allTime.customerPurchases += commission ? 1 : 0;
    const day = Math.floor(row.created_at / DAY_MS);
    if (day < firstDay || day > lastDay) continue;
    daily[day - firstDay][commission ? 'earned' : 'spent'] += commission ? row.credits_delta : -row.credits_delta;
    const p = products.get(row.product_id) ?? {
      productId: row.product_id,
      name: row.product_name ?? 'Deleted keys',
      keyTag: row.product_key_tag,
      earned: 0,
      spent: 0,
      keysForCustomers: 0,
      customerPurchases: 0,
    };
    if (row.product_name !== null && row.product_name > p.name) p.name = row.product_name;
    if (row.product_key_tag !== null && (p.keyTag === null || row.product_key_tag > p.keyTag)) p.keyTag = row.product_key_tag;
    p.earned += commission ? row.credits_delta : 0;
    p.spent += commission ? 0 : -row.credits_delta;
    p.keysForCustomers += !commission && row.generation_method === 'reseller' ? 1 : 0;
    p.customerPurchases += commission ? 1 : 0;
    products.set(row.product_id, p);
  }
  const byProduct = [...products.values()].sort((a, b) => ((a.productId ?? '') < (b.productId ?? '') ? -1 : 1));
  const sum = (pick: (p: WalkedFigures['byProduct'][number]) => number) => byProduct.reduce((t, p) => t + pick(p), 0);
  const [customers] = await all<{ n: number }>(d1, 'SELECT count(*) AS n FROM users WHERE reseller_id = ?1', resellerId);
  allTime.customers = customers.n;
  const keysForCustomersByStatus: Record<KeyStatus, number> = { available: 0, used: 0, revoked: 0, expired: 0 };
  for (const k of await all<{ status: KeyStatus; expires_at: number | null }>(
    d1,
    `SELECT status, expires_at FROM license_keys WHERE created_by = ?1 AND generation_method = 'reseller'`,
    resellerId,
  )) {
    const lapsed = (k.status === 'used' || k.status === 'available') && k.expires_at !== null && k.expires_at <= now;
    keysForCustomersByStatus[lapsed ? 'expired' : k.status] += 1;
    allTime.keysForCustomers += 1;
  }
  const walked: WalkedFigures = {
    daily,
    byProduct,
    totals: {
      earned: sum((p) => p.earned),
      spent: sum((p) => p.spent),
      keysForCustomers: sum((p) => p.keysForCustomers),
      customerPurchases: sum((p) => p.customerPurchases),
    },
    allTime,
    keysForCustomersByStatus,
  };
  return walked;
}

/** The statistics as the oracle answers them: byProduct by product id (the screen's order, by credits, is checked apart). */
export const comparable = (stats: WalkedFigures): WalkedFigures => ({
  daily: stats.daily,
  byProduct: [...stats.byProduct].sort((a, b) => ((a.productId ?? '') < (b.productId ?? '') ? -1 : 1)),
  totals: stats.totals,
  allTime: stats.allTime,
  keysForCustomersByStatus: stats.keysForCustomersByStatus,
});
