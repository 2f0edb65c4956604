// A reseller's statistics ("My Statistics"; the owner sees any reseller's, and compares them): credits
// earned in commissions and spent on keys, per UTC day and per product, their customers and their
// purchases, the keys bought for customers by status. The ledger is the source of every credit: a
// commission row and a purchase row each name their key (`reference`), and migration 0033's
// triggers add each to the reseller's figures under that key's product as it is written, so a key
// revoked or deleted since still counts what it earned or cost. The statistics read those figures
// (a row a day of the period, two rows a product, a row of all-time totals, a row a key status),
// never the reseller's ledger, customers or keys: the rows read do not grow with their sales. One
// batch, one round trip.
import { and, eq, sql } from 'drizzle-orm';
import { rawSql, runBatch, type DB } from '../../platform/db/client';
import { licenseKeys, resellerKeyCounts } from '../../platform/db/schema';
import { notFound } from '../../platform/errors';
import { DAY_MS } from '../../platform/vocabulary';
import { countedKeysByStatus, type KeyCounts } from '../keys';
import type { ResellerDay, ResellerFigures, ResellerProduct, ResellerStats, ResellersResponse } from './schemas';

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

export const referralPath = (code: string | null) => (code ? `/register?ref=${encodeURIComponent(code)}` : null);

type ResellerRow = {
  id: string;
  username: string;
  role: string;
  credits: number;
  referral_code: string | null;
  tier_id: string | null;
  tier_name: string | null;
  discount_percent: number | null;
  commission_percent: number | null;
};

/** The reseller (their effective tier joined), as the statistics and the purchase terms read it. */
export const RESELLER_WITH_TIER = `SELECT u.id, u.username, u.role, u.credits, u.referral_code,
       t.id AS tier_id, t.name AS tier_name, t.discount_percent, t.commission_percent
  FROM users u LEFT JOIN reseller_tiers t ON t.id = coalesce(u.reseller_tier_id, (SELECT id FROM reseller_tiers WHERE is_default = 1))
 WHERE u.id = ?1`;

/**
 * A reseller's keys for customers by status at `now`: their counters (reseller_key_counts), with
 * those whose expiry passed before the scheduled job marked them moved to expired. The creator's
 * column is `+created_by` so the lapsed keys come from license_keys_expiry_idx (the shop's few
 * lapsed keys), never from the creator's index (every key the reseller sold).
 */
const keysForCustomersByStatus = (db: DB, resellerId: string, now: number) =>
  countedKeysByStatus(
    db,
    {
      table: resellerKeyCounts,
      status: resellerKeyCounts.status,
      n: resellerKeyCounts.n,
      where: eq(resellerKeyCounts.resellerId, resellerId),
    },
    and(sql`+${licenseKeys.createdBy} = ${resellerId}`, eq(licenseKeys.generationMethod, 'reseller')),
    now,
  );

/**
 * The period [?2, ?3] (day numbers) by product: each product's running totals through the period's
 * last day minus those through the day before its first (an index seek each), for the products
 * with a ledger row in the period. CROSS JOIN keeps the products the outer loop: driven by the
 * running totals instead, SQLite would read every day the reseller ever sold on.
 */
const PERIOD_BY_PRODUCT = `SELECT nullif(p.product_id, '') AS productId, p.product_name AS name, p.product_key_tag AS keyTag,
       l.earned - coalesce(b.earned, 0) AS earned, l.spent - coalesce(b.spent, 0) AS spent,
       l.keys_for_customers - coalesce(b.keys_for_customers, 0) AS keysForCustomers,
       l.customer_purchases - coalesce(b.customer_purchases, 0) AS customerPurchases
  FROM reseller_products p
 CROSS JOIN reseller_product_days l ON l.reseller_id = p.reseller_id AND l.product_id = p.product_id
   AND l.day = (SELECT d.day FROM reseller_product_days d WHERE d.reseller_id = p.reseller_id AND d.product_id = p.product_id AND d.day <= ?3 ORDER BY d.day DESC LIMIT 1)
  LEFT JOIN reseller_product_days b ON b.reseller_id = p.reseller_id AND b.product_id = p.product_id
   AND b.day = (SELECT d.day FROM reseller_product_days d WHERE d.reseller_id = p.reseller_id AND d.product_id = p.product_id AND d.day < ?2 ORDER BY d.day DESC LIMIT 1)
 WHERE p.reseller_id = ?1 AND l.ledger_rows > coalesce(b.ledger_rows, 0)
 ORDER BY earned DESC, spent DESC, name`;

export async function resellerStatistics(db: DB, resellerId: string, days: number, now = Date.now()): Promise<ResellerStats> {
  const lastDay = Math.floor(now / DAY_MS);
  const firstDay = lastDay - days + 1;
  const byStatus = keysForCustomersByStatus(db, resellerId, now);
  const results = await runBatch(db, [
    rawSql(RESELLER_WITH_TIER, resellerId),
    rawSql(
      `SELECT day, earned, spent FROM reseller_days WHERE reseller_id = ?1 AND day >= ?2 AND day <= ?3`,
      resellerId,
      firstDay,
      lastDay,
    ),
    rawSql(PERIOD_BY_PRODUCT, resellerId, firstDay, lastDay),
    rawSql(
      `SELECT customers, earned, spent, customer_purchases AS customerPurchases FROM reseller_figures WHERE reseller_id = ?1`,
      resellerId,
    ),
    ...byStatus.statements,
  ]);
  const [[reseller], perDay, products, [figures], ...counts] = results as [
    ResellerRow[],
    Array<{ day: number; earned: number; spent: number }>,
    Array<Omit<ResellerProduct, 'name'> & { name: string | null }>,
    Array<{ customers: number; earned: number; spent: number; customerPurchases: number } | undefined>,
    ...unknown[],
  ];
  // A customer has no figures (migration 0033 keeps them for resellers and owners, counted afresh when an account becomes one).
  if (!reseller || reseller.role === 'user') throw notFound('Reseller');
  const keyCounts: KeyCounts = byStatus.read(counts);
  const allTime = figures ?? { customers: 0, earned: 0, spent: 0, customerPurchases: 0 };

  const byDay = new Map(perDay.map((r) => [r.day, r]));
  const daily: ResellerDay[] = Array.from({ length: days }, (_, i) => {
    const day = firstDay + i;
    return { date: isoDay(day), earned: byDay.get(day)?.earned ?? 0, spent: byDay.get(day)?.spent ?? 0 };
  });
  const byProduct: ResellerProduct[] = products.map((p) => ({ ...p, name: p.name ?? 'Deleted keys' }));
  const sum = (pick: (p: ResellerProduct) => number) => byProduct.reduce((total, p) => total + pick(p), 0);
  return {
    reseller: {
      _id: reseller.id,
      username: reseller.username,
      referralCode: reseller.role === 'reseller' ? reseller.referral_code : null,
      referralPath: reseller.role === 'reseller' ? referralPath(reseller.referral_code) : null,
      tier:
        reseller.role === 'reseller' && reseller.tier_id
          ? {
              _id: reseller.tier_id,
              name: reseller.tier_name!,
              discountPercent: reseller.discount_percent!,
              commissionPercent: reseller.commission_percent!,
            }
          : null,
      credits: reseller.credits,
    },
    days,
    from: isoDay(firstDay),
    to: isoDay(lastDay),
    daily,
    byProduct,
    totals: {
      earned: sum((p) => p.earned),
      spent: sum((p) => p.spent),
      keysForCustomers: sum((p) => p.keysForCustomers),
      customerPurchases: sum((p) => p.customerPurchases),
    },
    allTime: {
      earned: allTime.earned,
      spent: allTime.spent,
      customers: allTime.customers,
      customerPurchases: allTime.customerPurchases,
      keysForCustomers: keyCounts.available + keyCounts.used + keyCounts.revoked + keyCounts.expired,
    },
    keysForCustomersByStatus: keyCounts,
  };
}

type FiguresRow = {
  id: string;
  username: string;
  email: string;
  is_active: number;
  credits: number;
  referral_code: string | null;
  tier_id: string | null;
  tier_name: string | null;
  own_tier: string | null;
  customers: number;
  earned: number;
  spent: number;
  keys_for_customers: number;
  customer_purchases: number;
};

/** Every reseller's figures, all time, for the owner to compare: one page, by credits earned (a row or two a reseller: their figures and key counters). */
export async function listResellerFigures(db: DB, query: { page: number; limit: number }): Promise<ResellersResponse> {
  const [rows, [total]] = (await runBatch(db, [
    rawSql(
      `SELECT u.id, u.username, u.email, u.is_active, u.credits, u.referral_code, u.reseller_tier_id AS own_tier,
              t.id AS tier_id, t.name AS tier_name,
              coalesce(f.customers, 0) AS customers, coalesce(f.earned, 0) AS earned, coalesce(f.spent, 0) AS spent,
              (SELECT coalesce(sum(n), 0) FROM reseller_key_counts c WHERE c.reseller_id = u.id) AS keys_for_customers,
              coalesce(f.customer_purchases, 0) AS customer_purchases
         FROM users u LEFT JOIN reseller_tiers t ON t.id = coalesce(u.reseller_tier_id, (SELECT id FROM reseller_tiers WHERE is_default = 1))
         LEFT JOIN reseller_figures f ON f.reseller_id = u.id
        WHERE u.role = 'reseller'
        ORDER BY earned DESC, u.created_at DESC, u.id DESC LIMIT (?1 + 0) OFFSET (?2 + 0)`,
      query.limit,
      (query.page - 1) * query.limit,
    ),
    rawSql(`SELECT count(*) AS n FROM users WHERE role = 'reseller'`),
  ])) as [FiguresRow[], Array<{ n: number }>];
  const resellers: ResellerFigures[] = rows.map((r) => ({
    _id: r.id,
    username: r.username,
    email: r.email,
    isActive: r.is_active === 1,
    referralCode: r.referral_code,
    tier: r.tier_id ? { _id: r.tier_id, name: r.tier_name!, byDefault: r.own_tier === null } : null,
    credits: r.credits,
    customers: r.customers,
    earned: r.earned,
    spent: r.spent,
    keysForCustomers: r.keys_for_customers,
    customerPurchases: r.customer_purchases,
  }));
  return { resellers, total: total.n, totalPages: Math.ceil(total.n / query.limit) };
}
