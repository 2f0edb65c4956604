import { count, eq, or } from 'drizzle-orm';
import type { DB } from '../db/client';
import { licenseKeys, products } from '../db/schema';
import type { SessionUser } from '../lib/sessions';

/**
 * The dashboard's figures for the signed-in user: a customer's own purchased keys, a reseller's
 * keys (created or bought), every key for the owner; products the user may buy (all for the owner).
 */
export async function dashboardStats(db: DB, user: SessionUser) {
  const scope =
    user.role === 'owner'
      ? undefined
      : user.role === 'reseller'
        ? or(eq(licenseKeys.createdBy, user.id), eq(licenseKeys.purchasedBy, user.id))
        : eq(licenseKeys.purchasedBy, user.id);
  const [byStatus, productCount] = await Promise.all([
    db.select({ status: licenseKeys.status, n: count() }).from(licenseKeys).where(scope).groupBy(licenseKeys.status).all(),
    db
      .select({ n: count() })
      .from(products)
      .where(user.role === 'owner' ? undefined : eq(products.isActive, true))
      .get(),
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
  };
}

