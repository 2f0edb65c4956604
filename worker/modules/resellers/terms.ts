// The terms a reseller buys on: their tier (their own, else the default) with the keys they bought
// for customers this UTC day, and the settings' switches. The purchase screen shows them before
// confirming (GET /api/admin/purchase-terms); the purchase for a customer prices with them.
import { rawSql, sqlRows, type DB, type SqlStatement } from '../../platform/db/client';
import { DAY_MS, type Role } from '../../platform/vocabulary';
import type { Settings } from '../settings';
import type { PurchaseTerms } from './schemas';

export type ResellerTerms = NonNullable<PurchaseTerms['tier']>;

export type TierTermsRow = {
  id: string;
  name: string;
  discount_percent: number;
  commission_percent: number;
  product_ids: string | null;
  daily_key_cap: number | null;
  is_default: number;
  keys_today: number;
};

/** The reseller's tier and today's keys for customers (no row: no tier, or not a reseller). */
export const resellerTierStatement = (resellerId: string, now: number): SqlStatement =>
  rawSql(
    `SELECT t.id, t.name, t.discount_percent, t.commission_percent, t.product_ids, t.daily_key_cap, t.is_default,
            (SELECT count(*) FROM license_keys k
              WHERE k.created_by = ?1 AND k.generation_method = 'reseller' AND k.created_at >= ?2) AS keys_today
       FROM users u JOIN reseller_tiers t ON t.id = coalesce(u.reseller_tier_id, (SELECT id FROM reseller_tiers WHERE is_default = 1))
      WHERE u.id = ?1 AND u.role = 'reseller'`,
    resellerId,
    now - (now % DAY_MS),
  );

export function readTierTerms(rows: TierTermsRow[]): ResellerTerms | null {
  const t = rows[0];
  if (!t) return null;
  return {
    _id: t.id,
    name: t.name,
    discountPercent: t.discount_percent,
    commissionPercent: t.commission_percent,
    productIds: t.product_ids === null ? null : (JSON.parse(t.product_ids) as string[]),
    dailyKeyCap: t.daily_key_cap,
    isDefault: t.is_default === 1,
    keysBoughtToday: t.keys_today,
  };
}

export async function purchaseTerms(
  db: DB,
  settings: Pick<
    Settings,
    'defaultDailyDiscount' | 'enableDirectPurchases' | 'enableResellerPurchases' | 'resellersSellToOwnCustomersOnly'
  >,
  caller: { id: string; role: Role },
  now = Date.now(),
): Promise<PurchaseTerms> {
  const tier = caller.role === 'reseller' ? readTierTerms(await sqlRows<TierTermsRow>(db, resellerTierStatement(caller.id, now))) : null;
  return {
    defaultDailyDiscount: settings.defaultDailyDiscount,
    enableDirectPurchases: settings.enableDirectPurchases,
    enableResellerPurchases: settings.enableResellerPurchases,
    resellersSellToOwnCustomersOnly: settings.resellersSellToOwnCustomersOnly,
    tier,
  };
}
