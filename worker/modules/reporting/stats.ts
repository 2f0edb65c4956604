import { and, count, eq, or, sql } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { ledger, licenseKeys, products } from '../../platform/db/schema';
import type { Actor } from '../../platform/db/schema';
import { DAY_MS } from '../../platform/vocabulary';
import { notPassedAt, passedAt } from '../../platform/db/expiry';

const EXPIRY_WARNING_MS = 7 * DAY_MS;

/**
 * The dashboard's figures for the signed-in user: a customer's own purchased keys, a reseller's
 * keys (created or bought), every key for the owner; products the user may buy (all for the owner).
 */
export async function dashboardStats(db: DB, user: Actor, now = Date.now()) {
  const scope =
    user.role === 'owner'
      ? undefined
      : user.role === 'reseller'
        ? or(eq(licenseKeys.createdBy, user.id), eq(licenseKeys.purchasedBy, user.id))
        : eq(licenseKeys.purchasedBy, user.id);
  // Four figures, one round trip.
  const [byStatus, [productCount], [expiring], [spent]] = await db.batch([
    db.select({ status: licenseKeys.status, n: count() }).from(licenseKeys).where(scope).groupBy(licenseKeys.status),
    db
      .select({ n: count() })
      .from(products)
      .where(user.role === 'owner' ? undefined : eq(products.isActive, true)),
    // Active keys whose expiry falls within the spec's 7-day warning.
    db
      .select({ n: count() })
      .from(licenseKeys)
      .where(
        and(
          scope,
          eq(licenseKeys.status, 'used'),
          notPassedAt(licenseKeys.expiresAt, new Date(now)),
          passedAt(licenseKeys.expiresAt, new Date(now + EXPIRY_WARNING_MS)),
        ),
      ),
    // Credits this user paid for keys, from the ledger: the user's rows (ledger_user_idx), filtered by
    // kind. The unary + keeps SQLite, which has no statistics, off ledger_kind_created_idx, which
    // would walk every purchase in the shop.
    db
      .select({ n: sql<number>`COALESCE(-SUM(${ledger.creditsDelta}), 0)` })
      .from(ledger)
      .where(and(eq(ledger.userId, user.id), sql`+${ledger.kind} = 'purchase'`)),
  ]);
  const keysByStatus = { available: 0, used: 0, expired: 0, revoked: 0 };
  for (const row of byStatus) keysByStatus[row.status] = row.n;
  return {
    totalKeys: byStatus.reduce((sum, r) => sum + r.n, 0),
    availableKeys: keysByStatus.available,
    usedKeys: keysByStatus.used,
    expiredKeys: keysByStatus.expired,
    revokedKeys: keysByStatus.revoked,
    totalProducts: productCount?.n ?? 0,
    expiringSoonKeys: expiring?.n ?? 0,
    creditsSpent: spent?.n ?? 0,
  };
}
