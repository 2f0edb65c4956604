// A key renewed from the admin panel (issue 43): a reseller renews a key they bought for a customer,
// at their tier's price, with their own credits; the owner extends any key, free, or at the
// product's price charged to an account they name. Both go through the keys module's one renewal,
// so the debit, the new expiry, the ledger row and the audit row commit together.
import { sql } from 'drizzle-orm';
import { sqlRows, type DB } from '../../platform/db/client';
import type { Actor } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { findReplay, type IdempotencyClaim } from '../../platform/idempotency';
import { auditStatement } from '../audit';
import { insufficientCredits, listPrice, notRenewable, readRenewalKey, renewalProduct, renewKey } from '../keys';
import type { RenewalResponse } from '../keys/schemas/renewal';
import type { Settings } from '../settings';
import { RESELLER_PURCHASES_OFF } from './purchase-for-user';
import { priceForReseller, tierSells } from './schemas';
import { readTierTerms, resellerTierStatement, type TierTermsRow } from './terms';

export async function renewForCustomer(
  ctx: { db: DB; actor: Actor; ip: string | null },
  settings: Pick<Settings, 'enableResellerPurchases' | 'defaultDailyDiscount' | 'emailNotificationsEnabled'>,
  order: { keyId: string; days: number; chargeTo?: string | null },
  idempotency?: IdempotencyClaim,
): Promise<RenewalResponse & { replayed: boolean }> {
  const { db, actor, ip } = ctx;
  try {
    return await renewOnce(db, actor, ip, settings, order, idempotency);
  } catch (err) {
    if (idempotency && err instanceof AppError && err.status < 500) {
      const replay = await findReplay<RenewalResponse>(db, idempotency);
      if (replay) return { ...replay.body, replayed: true };
    }
    throw err;
  }
}

async function renewOnce(
  db: DB,
  actor: Actor,
  ip: string | null,
  settings: Pick<Settings, 'enableResellerPurchases' | 'defaultDailyDiscount' | 'emailNotificationsEnabled'>,
  order: { keyId: string; days: number; chargeTo?: string | null },
  idempotency?: IdempotencyClaim,
): Promise<RenewalResponse & { replayed: boolean }> {
  const isOwner = actor.role === 'owner';
  const { keyId, days } = order;
  if (!isOwner && order.chargeTo) {
    throw new AppError('FORBIDDEN', 'Only the owner may charge a renewal to another account', { details: { field: 'chargeTo' } });
  }
  if (!isOwner && !settings.enableResellerPurchases) throw new AppError('PURCHASES_DISABLED', RESELLER_PURCHASES_OFF);
  const payerId = isOwner ? (order.chargeTo ?? null) : actor.id;
  const key = await readRenewalKey(db, keyId, payerId);
  // A reseller reaches the keys they bought for customers; any other reads as unknown.
  if (!key || (!isOwner && (key.created_by !== actor.id || key.generation_method !== 'reseller'))) throw notFound('License key');
  const refusal = notRenewable(key);
  if (refusal) throw refusal;
  if (payerId !== null && key.payer_credits === null) throw notFound('User');

  let q;
  if (isOwner) {
    // Free: any number of days the form allows; charged: the product's list price and days.
    q = payerId === null ? { days, baseCost: 0, durationCost: 0, total: 0 } : listPrice(key, days);
  } else {
    const tier = readTierTerms(await sqlRows<TierTermsRow>(db, resellerTierStatement(actor.id, Date.now())));
    const product = renewalProduct(key);
    if (tier && !tierSells(tier, key.product_id)) {
      throw new AppError('FORBIDDEN', `Your reseller tier (${tier.name}) does not sell this product`, { details: { field: 'keyId' } });
    }
    listPrice(key, days);
    q = priceForReseller(product, days, { tier, defaultDailyDiscount: settings.defaultDailyDiscount });
  }
  if (payerId !== null && (key.payer_credits ?? 0) < q.total) throw insufficientCredits(q, q.total, key.payer_credits ?? 0);

  const paidBy = payerId === null ? 'nobody' : isOwner ? 'account' : 'reseller';
  return renewKey(db, {
    keyId,
    days,
    source: isOwner ? 'owner' : 'reseller',
    actorId: actor.id,
    payerId,
    price: q.total,
    quote: q,
    // The key holder's receipt, when the shop sends notices.
    mail: settings.emailNotificationsEnabled,
    alsoRun: (renewalId) => [
      auditStatement(
        db,
        actor,
        'key.renew',
        { type: 'license_key', id: keyId },
        { key: key.key, product: key.product_name, days, cost: q.total, paidBy, payer: payerId },
        ip,
        sql`EXISTS (SELECT 1 FROM key_renewals WHERE id = ${renewalId})`,
      ),
    ],
    idempotency,
  });
}
