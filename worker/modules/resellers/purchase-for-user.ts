// A key bought for a customer from the admin panel: a reseller pays with
// their own credits at the reseller price; the owner charges the customer, or nobody with
// bypassBalance. Both go through the one purchase function, so the debit, the key, the ledger and
// the audit row commit together and racing purchases never overspend.
import { eq } from 'drizzle-orm';
import { runBatch, type DB, type Statement } from '../../platform/db/client';
import { dbErrorText } from '../../platform/db/errors';
import { users } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import type { Actor } from '../../platform/db/schema';
import { findReplay, type IdempotencyClaim } from '../../platform/idempotency';
import { auditStatement } from '../audit';
import { purchaseKey, purchaseReceipt } from '../keys';
import type { Settings } from '../settings';
import { priceForReseller, tierSells } from './schemas';
import { readTierTerms, resellerTierStatement, type ResellerTerms, type TierTermsRow } from './terms';
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
  settings: Pick<
    Settings,
    | 'enableDirectPurchases'
    | 'enableResellerPurchases'
    | 'defaultDailyDiscount'
    | 'resellersSellToOwnCustomersOnly'
    | 'emailNotificationsEnabled'
  >,
  order: { userId: string; productId: string; duration: number; bypassBalance: boolean },
  idempotency?: IdempotencyClaim,
): Promise<PurchaseForUserResult> {
  const { db, actor, ip } = ctx;
  const isOwner = actor.role === 'owner';
  if (isOwner && !settings.enableDirectPurchases) throw new AppError('PURCHASES_DISABLED', DIRECT_PURCHASES_OFF);
  if (!isOwner && !settings.enableResellerPurchases) throw new AppError('PURCHASES_DISABLED', RESELLER_PURCHASES_OFF);

  // The customer, and a reseller's tier with what they bought today, in one round trip.
  const reads: Statement[] = [db.select().from(users).where(eq(users.id, order.userId))];
  if (!isOwner) reads.push(resellerTierStatement(actor.id, Date.now()));
  const [customers, tierRows] = (await runBatch(db, reads)) as [Array<typeof users.$inferSelect>, TierTermsRow[] | undefined];
  const customer = customers[0];
  const tier = tierRows ? readTierTerms(tierRows) : null;
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

  if (!isOwner && settings.resellersSellToOwnCustomersOnly && customer.resellerId !== actor.id) {
    throw new AppError('FORBIDDEN', `${customer.username} is not one of your customers: resellers buy keys for their own customers only`, {
      details: { field: 'userId' },
    });
  }
  if (!isOwner && tier && !tierSells(tier, order.productId)) throw notInTier(tier);

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
    pricing: isOwner
      ? undefined
      : (product, days) => priceForReseller(product, days, { tier, defaultDailyDiscount: settings.defaultDailyDiscount }),
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
      // The customer's receipt, with the key (a notice they may turn off), when the shop sends notices.
      ...(settings.emailNotificationsEnabled ? [purchaseReceipt(customer.id, receipt, Date.now())] : []),
    ],
    idempotency,
  }).catch(async (err: unknown) => {
    // The trigger's refusal (a racing purchase took the cap, the tier changed); a retry of a purchase
    // already made answers as the first time did.
    const refusal = tier && tierRefusal(tier, err);
    if (!refusal) throw err;
    const replay = idempotency ? await findReplay<Omit<Awaited<ReturnType<typeof purchaseKey>>, 'replayed'>>(db, idempotency) : null;
    if (replay) return { ...replay.body, replayed: true };
    throw refusal;
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

const notInTier = (tier: ResellerTerms) =>
  new AppError('FORBIDDEN', `Your reseller tier (${tier.name}) does not sell this product`, { details: { field: 'productId' } });
const capReached = (tier: ResellerTerms) =>
  new AppError(
    'CONFLICT',
    `Your reseller tier (${tier.name}) allows ${tier.dailyKeyCap} ${tier.dailyKeyCap === 1 ? 'key' : 'keys'} for customers a day; today's are bought. The cap resets at midnight UTC.`,
    { details: { dailyKeyCap: tier.dailyKeyCap } },
  );

/** The purchase's guard (trigger license_keys_reseller_terms) refused it: the tier changed, or a racing purchase took the cap. */
function tierRefusal(tier: ResellerTerms, err: unknown): AppError | null {
  const text = dbErrorText(err);
  if (text.includes('RESELLER_PRODUCT_NOT_IN_TIER')) return notInTier(tier);
  if (text.includes('RESELLER_DAILY_CAP')) return capReached(tier);
  return null;
}
