// A reseller's statistics ("My Statistics"; the owner sees any reseller's, and compares them): credits
// earned in commissions and spent on keys, per UTC day and per product, their customers and their
// purchases, the keys bought for customers by status. The ledger is the source of every credit: a
// commission row and a purchase row each name their key (`reference`), so a key revoked or deleted
// since still counts what it earned or cost. One batch, one round trip; every statement is scoped by
// the reseller's id (ledger_user_idx, license_keys_creator_idx, users_reseller_idx).
import { and, eq } from 'drizzle-orm';
import { rawSql, runBatch, type DB } from '../../platform/db/client';
import { licenseKeys } from '../../platform/db/schema';
import { notFound } from '../../platform/errors';
import { DAY_MS } from '../../platform/vocabulary';
import { keysByStatus, type KeyCounts } from '../keys';
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
 * Credits of a kind per day over [from, to): commissions earned (+) or keys paid (-). `+kind` keeps
 * SQLite on the reseller's own rows (ledger_user_idx), never the shop's rows of that kind.
 */
const perDay = (kind: 'commission' | 'purchase') =>
  `SELECT created_at / ${DAY_MS} AS day, abs(sum(credits_delta)) AS n FROM ledger
    WHERE user_id = ?1 AND +kind = '${kind}' AND created_at >= ?2 AND created_at < ?3 GROUP BY day`;

export async function resellerStatistics(db: DB, resellerId: string, days: number, now = Date.now()): Promise<ResellerStats> {
  const lastDay = Math.floor(now / DAY_MS);
  const firstDay = lastDay - days + 1;
  const [from, to] = [firstDay * DAY_MS, (lastDay + 1) * DAY_MS];
  const forCustomers = and(eq(licenseKeys.createdBy, resellerId), eq(licenseKeys.generationMethod, 'reseller'));
  const byStatus = keysByStatus(db, forCustomers, now);
  const results = await runBatch(db, [
    rawSql(RESELLER_WITH_TIER, resellerId),
    rawSql(perDay('commission'), resellerId, from, to),
    rawSql(perDay('purchase'), resellerId, from, to),
    // The period by product: the ledger's rows with the key each names (a deleted key: no product).
    rawSql(
      `SELECT k.product_id AS productId, max(k.product_name) AS name, max(k.product_key_tag) AS keyTag,
              coalesce(sum(CASE WHEN l.kind = 'commission' THEN l.credits_delta END), 0) AS earned,
              coalesce(-sum(CASE WHEN l.kind = 'purchase' THEN l.credits_delta END), 0) AS spent,
              count(CASE WHEN l.kind = 'purchase' AND k.generation_method = 'reseller' THEN 1 END) AS keysForCustomers,
              count(CASE WHEN l.kind = 'commission' THEN 1 END) AS customerPurchases
         FROM ledger l LEFT JOIN license_keys k ON k.id = l.reference
        WHERE l.user_id = ?1 AND +l.kind IN ('commission', 'purchase') AND l.created_at >= ?2 AND l.created_at < ?3
        GROUP BY k.product_id ORDER BY earned DESC, spent DESC, name`,
      resellerId,
      from,
      to,
    ),
    // All time.
    rawSql(
      `SELECT coalesce(sum(CASE WHEN kind = 'commission' THEN credits_delta END), 0) AS earned,
              coalesce(-sum(CASE WHEN kind = 'purchase' THEN credits_delta END), 0) AS spent,
              count(CASE WHEN kind = 'commission' THEN 1 END) AS customerPurchases
         FROM ledger WHERE user_id = ?1 AND +kind IN ('commission', 'purchase')`,
      resellerId,
    ),
    rawSql(`SELECT count(*) AS n FROM users WHERE reseller_id = ?1`, resellerId),
    ...byStatus.statements,
  ]);
  const [[reseller], earned, spent, products, [allTime], [customers], ...counts] = results as [
    ResellerRow[],
    Array<{ day: number; n: number }>,
    Array<{ day: number; n: number }>,
    Array<Omit<ResellerProduct, 'name'> & { name: string | null }>,
    Array<{ earned: number; spent: number; customerPurchases: number }>,
    Array<{ n: number }>,
    ...unknown[],
  ];
  if (!reseller) throw notFound('Reseller');
  const keyCounts: KeyCounts = byStatus.read(counts);

  const earnedBy = new Map(earned.map((r) => [r.day, r.n]));
  const spentBy = new Map(spent.map((r) => [r.day, r.n]));
  const daily: ResellerDay[] = Array.from({ length: days }, (_, i) => {
    const day = firstDay + i;
    return { date: isoDay(day), earned: earnedBy.get(day) ?? 0, spent: spentBy.get(day) ?? 0 };
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
      customers: customers.n,
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

/** Every reseller's figures, all time, for the owner to compare: one page, by credits earned. */
export async function listResellerFigures(db: DB, query: { page: number; limit: number }): Promise<ResellersResponse> {
  const [rows, [total]] = (await runBatch(db, [
    rawSql(
      `SELECT u.id, u.username, u.email, u.is_active, u.credits, u.referral_code, u.reseller_tier_id AS own_tier,
              t.id AS tier_id, t.name AS tier_name,
              (SELECT count(*) FROM users c WHERE c.reseller_id = u.id) AS customers,
              (SELECT coalesce(sum(credits_delta), 0) FROM ledger l WHERE l.user_id = u.id AND +l.kind = 'commission') AS earned,
              (SELECT coalesce(-sum(credits_delta), 0) FROM ledger l WHERE l.user_id = u.id AND +l.kind = 'purchase') AS spent,
              (SELECT count(*) FROM license_keys k WHERE k.created_by = u.id AND k.generation_method = 'reseller') AS keys_for_customers,
              (SELECT count(*) FROM ledger l WHERE l.user_id = u.id AND +l.kind = 'commission') AS customer_purchases
         FROM users u LEFT JOIN reseller_tiers t ON t.id = coalesce(u.reseller_tier_id, (SELECT id FROM reseller_tiers WHERE is_default = 1))
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
