// A customer's renewal of their own key with their credits (My Keys' Renew), and their auto-renewal
// switch. The key must be theirs (another's reads as unknown, 404, as everywhere on My Keys); the
// price is the product's list price for the days, within the days it is sold for.
import { AppError, notFound } from '../../platform/errors';
import { rawSql, sqlRows, type DB } from '../../platform/db/client';
import { findReplay, type IdempotencyClaim } from '../../platform/idempotency';
import type { Settings } from '../settings';
import { insufficientCredits } from './purchase';
import { listPrice, notRenewable, readRenewalKey, renewKey } from './renewal';
import type { AutoRenewResponse, RenewalResponse } from './schemas/renewal';

export async function renewOwnKey(
  db: DB,
  customerId: string,
  keyId: string,
  days: number,
  idempotency?: IdempotencyClaim,
  /** The customer's receipt (the shop sends notices). */
  mail = false,
): Promise<RenewalResponse & { replayed: boolean }> {
  try {
    const key = await readRenewalKey(db, keyId, customerId);
    if (!key || key.purchased_by !== customerId) throw notFound('License key');
    const refusal = notRenewable(key);
    if (refusal) throw refusal;
    const q = listPrice(key, days);
    if ((key.payer_credits ?? 0) < q.total) throw insufficientCredits(q, q.total, key.payer_credits ?? 0);
    return await renewKey(db, {
      keyId,
      days,
      source: 'customer',
      actorId: customerId,
      payerId: customerId,
      price: q.total,
      quote: q,
      idempotency,
      mail,
    });
  } catch (err) {
    // A retry answers as the first time did, even once the credits it spent are gone.
    if (idempotency && err instanceof AppError && err.status < 500) {
      const replay = await findReplay<RenewalResponse>(db, idempotency);
      if (replay) return { ...replay.body, replayed: true };
    }
    throw err;
  }
}

export const AUTO_RENEW_OFF = 'Auto-renewal is turned off for this shop';

/**
 * Switches auto-renewal of the customer's key on (with the days each renewal adds, which the product
 * must sell) or off. Turning it on needs the owner's setting on and a key that can be renewed.
 */
export async function setAutoRenew(
  db: DB,
  settings: Pick<Settings, 'renewals'>,
  customerId: string,
  keyId: string,
  days: number | null,
): Promise<AutoRenewResponse> {
  if (days !== null && !settings.renewals.autoRenewEnabled) throw new AppError('AUTO_RENEW_DISABLED', AUTO_RENEW_OFF);
  const key = await readRenewalKey(db, keyId, null);
  if (!key || key.purchased_by !== customerId) throw notFound('License key');
  if (days !== null) {
    const refusal = notRenewable(key);
    if (refusal) throw refusal;
    listPrice(key, days);
  }
  const [row] = await sqlRows<{ auto_renew_days: number | null; auto_renew_failed_at: number | null }>(
    db,
    rawSql(
      `UPDATE license_keys SET auto_renew_days = ?3 WHERE id = ?1 AND purchased_by = ?2 RETURNING auto_renew_days, auto_renew_failed_at`,
      keyId,
      customerId,
      days,
    ),
  );
  if (!row) throw notFound('License key');
  return {
    success: true,
    message:
      days === null
        ? 'Auto-renewal is off'
        : `Auto-renewal is on: each renewal adds ${days} day${days === 1 ? '' : 's'}, paid from your credits`,
    autoRenewDays: row.auto_renew_days,
    autoRenewFailedAt: row.auto_renew_failed_at === null ? null : new Date(row.auto_renew_failed_at).toISOString(),
  };
}
