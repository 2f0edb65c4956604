// A key bought for a customer from the admin panel: a reseller pays with
// their own credits at the reseller price; the owner charges the customer, or nobody with
// bypassBalance. Both go through the one purchase function, so the debit, the key, the ledger and
// the audit row commit together and racing purchases never overspend.
import { eq } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { users } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import type { Actor } from '../../platform/db/schema';
import type { IdempotencyClaim } from '../../platform/idempotency';
import { findUserById } from '../accounts';
import { auditStatement } from '../audit';
import { purchaseKey } from '../keys';
import type { Settings } from '../settings';
import { resellerQuote } from './schemas';
import { type PurchaseReceipt } from '../keys/schemas/answers';

export type PurchaseForUserResult = {
  licenseKey: PurchaseReceipt & { purchasedBy: { _id: string; username: string } };
  /** The caller's own credits after the purchase (a reseller's go down; an owner's do not move). */
  resellerCredits: number;
  /** The credits left to whoever paid; null when nobody did. */
  remainingCredits: number | null;
  replayed: boolean;
};

export const DIRECT_PURCHASES_OFF = 'Direct purchases are turned off in the settings';
export const RESELLER_PURCHASES_OFF = 'Reseller purchases are turned off in the settings';

export async function purchaseForUser(
  ctx: { db: DB; actor: Actor; ip: string | null },
  settings: Pick<Settings, 'enableDirectPurchases' | 'enableResellerPurchases' | 'defaultDailyDiscount'>,
  order: { userId: string; productId: string; duration: number; bypassBalance: boolean },
  idempotency?: IdempotencyClaim,
): Promise<PurchaseForUserResult> {
  const { db, actor, ip } = ctx;
  const isOwner = actor.role === 'owner';
  if (isOwner && !settings.enableDirectPurchases) throw new AppError('PURCHASES_DISABLED', DIRECT_PURCHASES_OFF);
  if (!isOwner && !settings.enableResellerPurchases) throw new AppError('PURCHASES_DISABLED', RESELLER_PURCHASES_OFF);

  const customer = await findUserById(db, order.userId);
  if (!customer) throw notFound('User');
  if (!customer.isActive) throw new AppError('CONFLICT', `${customer.username}'s account is deactivated: keys cannot be bought for it`);
  // The reseller price is for selling on; a reseller's own key is bought in the shop at its price.
  if (!isOwner && customer.id === actor.id) {
    throw new AppError('VALIDATION_ERROR', 'Resellers buy keys for themselves in the shop; choose a customer here', {
      details: { field: 'userId' },
    });
  }

  // The reseller price is for customers: not for another reseller to sell on, nor for an owner.
  if (!isOwner && customer.role !== 'user') {
    throw new AppError('FORBIDDEN', 'Resellers buy keys for customers only; choose an account with the user role', {
      details: { field: 'userId' },
    });
  }

  const free = isOwner && order.bypassBalance;
  const payerId = free ? null : isOwner ? customer.id : actor.id;
  const paidBy = free ? 'nobody' : isOwner ? 'customer' : 'reseller';
  const result = await purchaseKey(db, {
    productId: order.productId,
    days: order.duration,
    buyerId: customer.id,
    payerId,
    actorId: actor.id,
    generationMethod: isOwner ? 'direct' : 'reseller',
    pricing: isOwner ? undefined : (product, days) => resellerQuote(product, days, settings.defaultDailyDiscount),
    alsoRun: (receipt) => [
      auditStatement(
        db,
        actor,
        'key.purchase_for_user',
        { type: 'license_key', id: receipt._id },
        {
          key: receipt.key,
          product: receipt.product,
          days: receipt.duration,
          cost: receipt.cost,
          customer: { _id: customer.id, username: customer.username },
          paidBy,
        },
        ip,
      ),
    ],
    idempotency,
  });

  const resellerCredits =
    payerId === actor.id && result.payerCredits !== null
      ? result.payerCredits
      : ((await db.select({ credits: users.credits }).from(users).where(eq(users.id, actor.id)).get())?.credits ?? 0);
  return {
    licenseKey: { ...result.licenseKey, purchasedBy: { _id: customer.id, username: customer.username } },
    resellerCredits,
    remainingCredits: result.payerCredits,
    replayed: result.replayed,
  };
}
