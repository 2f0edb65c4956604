// Renewing a key (issue 43): the same key, its value, devices, seats, entitlements and history kept,
// runs for more days. One D1 batch does it all, each statement gated on the renewal's own row: the
// row in key_renewals (written only while the key may be renewed, and for the cron only from the
// expiry it read), the key's new expiry, the payer's ledger row naming the key, which is the debit
// (trigger ledger_renewal_debits_payer; the CHECK on users.credits fails the batch when they are
// short), a referred customer's commission (trigger ledger_renewal_pays_commission), the
// license.renewed event and the Idempotency-Key's claim. Racing renewals are serialized by D1: each
// counts from the expiry the one before it left, and none can spend a credit twice.
import { failedConstraint } from '../../platform/db/errors';
import { isoTextSql, rawSql, runBatch, sqlRows, type DB, type Statement } from '../../platform/db/client';
import type { Env } from '../../platform/env';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { findReplay, lostIdempotencyRace, type IdempotencyClaim } from '../../platform/idempotency';
import { DAY_MS, type ExpiryModel, type KeyStatus, type RenewalSource } from '../../platform/vocabulary';
import { spendingRefusal } from '../billing';
import { assertOfferedDuration, quote, type Quote } from '../catalog';
import { commissionEvent, dispatchCommitted, renewalEvent } from '../webhooks';
import { dispatchMails, renewalReceiptMail } from '../mail';
import { insufficientCredits } from './purchase';
import type { RenewalResponse } from './schemas/renewal';

/** What a renewal reads first: the key, its product's price and days, and the payer's credits. */
export type RenewalKey = {
  id: string;
  key: string;
  status: KeyStatus;
  expires_at: number | null;
  expiry_model: ExpiryModel;
  is_trial: number;
  purchased_by: string | null;
  created_by: string | null;
  generation_method: string;
  auto_renew_days: number | null;
  product_id: string;
  product_name: string;
  /** Null when the product is gone; its fields are null too then. */
  product_active: number | null;
  base_credit_cost: number | null;
  credits_per_day: number | null;
  min_days: number | null;
  max_days: number | null;
  /** The payer's credits (null: no payer, or no such account). */
  payer_credits: number | null;
};

const READ_KEY = `
  SELECT k.id, k.key, k.status, k.expires_at, k.expiry_model, k.is_trial, k.purchased_by, k.created_by, k.generation_method,
         k.auto_renew_days, k.product_id, k.product_name, p.is_active AS product_active, p.base_credit_cost, p.credits_per_day,
         p.min_days, p.max_days, (SELECT credits FROM users WHERE id = ?2) AS payer_credits
    FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
   WHERE k.id = ?1`;

/** The key, its product and the payer's credits, in one round trip (null: no such key). */
export async function readRenewalKey(db: DB, keyId: string, payerId: string | null): Promise<RenewalKey | null> {
  return (await sqlRows<RenewalKey>(db, rawSql(READ_KEY, keyId, payerId)))[0] ?? null;
}

/**
 * SQL that holds while key `k` may be renewed: used or expired (never a revoked key, nor a generated
 * one whose clock has not started), with an expiry (a perpetual key has none), not a device's trial.
 */
const RENEWABLE = `k.status IN ('used', 'expired') AND k.expiry_model != 'perpetual' AND k.expires_at IS NOT NULL AND k.is_trial = 0`;

/** Why a key cannot be renewed, or null when it can (the same rule as RENEWABLE). */
export function notRenewable(key: Pick<RenewalKey, 'status' | 'expiry_model' | 'expires_at' | 'is_trial'>): AppError | null {
  if (key.status === 'revoked') return new AppError('KEY_NOT_RENEWABLE', 'This license key was revoked: it cannot be renewed');
  if (key.expiry_model === 'perpetual') return new AppError('KEY_NOT_RENEWABLE', 'This license key is perpetual: it never expires');
  if (key.is_trial === 1) return new AppError('KEY_NOT_RENEWABLE', 'A trial cannot be renewed: buy a key instead');
  if (key.status === 'available' || key.expires_at === null) {
    return new AppError(
      'KEY_NOT_RENEWABLE',
      'This license key was never activated: its time has not started, so there is nothing to renew yet',
    );
  }
  return null;
}

/** The product's list price for `days` (its quote), after checking it is sold for that many days. */
export function listPrice(key: RenewalKey, days: number): Quote {
  const product = renewalProduct(key);
  assertOfferedDuration(product, days);
  return quote(product, days);
}

/** The key's product as it sells now: a renewal is priced and bounded by it. Gone or withdrawn: 404. */
export function renewalProduct(key: RenewalKey) {
  if (key.product_active !== 1) throw notFound('Product');
  return {
    name: key.product_name,
    baseCreditCost: key.base_credit_cost!,
    creditsPerDay: key.credits_per_day!,
    minDays: key.min_days!,
    maxDays: key.max_days!,
  };
}

/** The expiry a renewal of `days` gives: from the old one while the key is live, from `now` once it has passed. */
export const renewedExpiry = (expiresAt: number, days: number, now: number) => Math.max(expiresAt, now) + days * DAY_MS;

export type RenewalOrder = {
  keyId: string;
  days: number;
  source: RenewalSource;
  /** Who asked (the key_renewals row's and the ledger row's actor; the cron acts for the customer). */
  actorId: string | null;
  /** Whose credits pay; null when nobody does (the owner's free extension). */
  payerId: string | null;
  /** The credits it costs (the caller priced it); 0 when nobody pays. */
  price: number;
  /** The quote the price came from, for a shortfall's details. */
  quote: Quote;
  /** The cron's guard: renew only from this expiry, with auto-renewal still on for this many days. */
  period?: { expiresAt: number; autoRenewDays: number };
  /** Statements that must commit with the renewal (an owner's or reseller's audit row). */
  alsoRun?: (renewalId: string) => Statement[];
  idempotency?: IdempotencyClaim;
  /** Where its webhook events and mail go after the commit outside a request (the cron); else the request's database. */
  webhooks?: Pick<Env, 'WEBHOOK_QUEUE' | 'MAIL_QUEUE'>;
  /** The key holder's receipt (the shop sends notices). */
  mail?: boolean;
  now?: number;
};

export const RENEWAL_STATUS = 200;

/** The renewal's answer, written by SQLite from its row (?1) and the payer's credits (?2): what the batch answers and the claim stores. */
const ANSWER_JSON = `json_object(
  'renewal', json_object('_id', r.id, 'licenseKeyId', r.key_id, 'key', k.key, 'product', k.product_name, 'source', r.source, 'days', r.days,
    'credits', r.credits, 'previousExpiresAt', ${isoTextSql('r.from_expires_at')}, 'expiresAt', ${isoTextSql('r.to_expires_at')}, 'renewedAt', ${isoTextSql('r.at')}),
  'remainingCredits', (SELECT credits FROM users WHERE id = ?2))`;
const ANSWER_FROM = `FROM key_renewals r JOIN license_keys k ON k.id = r.key_id WHERE r.id = ?1`;

/**
 * Renews a key in one batch (see the top of this file); answers what the batch did, or, with an
 * Idempotency-Key already used, what the first request did. A key no longer renewable when the
 * batch ran (revoked meanwhile; for the cron, renewed or changed since it read it) is a refusal.
 */
export async function renewKey(db: DB, order: RenewalOrder): Promise<RenewalResponse & { replayed: boolean }> {
  const now = order.now ?? Date.now();
  const { keyId, days, payerId, price, idempotency } = order;
  if (!Number.isInteger(price) || price < 0) throw new Error(`renewKey: price must be a whole number of credits, got ${price}`);
  const renewalId = newId(now);
  const ledgerId = newId(now);
  const period = order.period ? ' AND k.expires_at = ?9 AND k.auto_renew_days = ?10' : '';
  const gate = `EXISTS (SELECT 1 FROM key_renewals WHERE id = ?1)`;
  const statements: Statement[] = [
    rawSql(
      `INSERT INTO key_renewals (id, key_id, source, outcome, actor_id, payer_id, days, credits, from_expires_at, to_expires_at, at)
       SELECT ?1, k.id, ?3, 'renewed', ?4, ?5, ?6, ?7, k.expires_at, max(k.expires_at, ?8) + ?6 * ${DAY_MS}, ?8
         FROM license_keys k WHERE k.id = ?2 AND ${RENEWABLE}${period}`,
      renewalId,
      keyId,
      order.source,
      order.actorId,
      payerId,
      days,
      price,
      now,
      ...(order.period ? [order.period.expiresAt, order.period.autoRenewDays] : []),
    ),
    // The key runs on: an expired one is live again, and a failed auto-renewal's notice is over.
    rawSql(
      `UPDATE license_keys SET expires_at = (SELECT to_expires_at FROM key_renewals WHERE id = ?1),
              status = CASE WHEN status = 'expired' THEN 'used' ELSE status END, auto_renew_failed_at = NULL
        WHERE id = ?2 AND ${gate}`,
      renewalId,
      keyId,
    ),
  ];
  if (payerId !== null) {
    statements.push(
      rawSql(
        `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, reference, note, created_at)
         SELECT ?3, (SELECT id FROM users WHERE id = ?4), ?5, 'renewal', -?6, ?2, k.product_name || ', renewed for ' || ?7 || ' days', ?8
           FROM license_keys k WHERE k.id = ?2 AND EXISTS (SELECT 1 FROM key_renewals WHERE id = ?1)`,
        renewalId,
        keyId,
        ledgerId,
        payerId,
        order.actorId,
        price,
        days,
        now,
      ),
    );
  }
  if (order.alsoRun) statements.push(...order.alsoRun(renewalId));
  statements.push(renewalEvent(renewalId, now));
  if (order.mail) statements.push(renewalReceiptMail(renewalId, now));
  // A customer's own renewal may earn their reseller a commission (trigger ledger_renewal_pays_commission).
  if (payerId !== null && payerId === order.actorId) statements.push(commissionEvent(keyId, now, now));
  if (idempotency) {
    statements.push(
      rawSql(
        `INSERT INTO idempotency_keys (user_id, key, response, status, created_at)
         SELECT ?3, ?4, json_object('fingerprint', ?5, 'body', json(${ANSWER_JSON})), ?6, ?7 ${ANSWER_FROM}`,
        renewalId,
        payerId,
        idempotency.userId,
        idempotency.key,
        idempotency.fingerprint,
        RENEWAL_STATUS,
        now,
      ),
    );
  }
  statements.push(rawSql(`SELECT ${ANSWER_JSON} AS answer ${ANSWER_FROM}`, renewalId, payerId));
  try {
    const results = await runBatch(db, statements);
    await dispatchCommitted(results, order.webhooks ?? db);
    await dispatchMails(results, order.webhooks ?? db);
    const answer = (results[results.length - 1] as Array<{ answer: string }>)[0]?.answer;
    if (answer === undefined) throw await refusalNow(db, order);
    return { ...(JSON.parse(answer) as RenewalResponse), replayed: false };
  } catch (err) {
    if (idempotency && (lostIdempotencyRace(err) || err instanceof AppError)) {
      const replay = await findReplay<RenewalResponse>(db, idempotency);
      if (replay) return { ...replay.body, replayed: true };
    }
    if (err instanceof AppError) throw err;
    if (payerId !== null) {
      const refusal = await spendingRefusal(db, err, payerId);
      if (refusal) throw refusal;
      if (failedConstraint(err, 'CHECK', 'users_credits_check')) {
        const key = await readRenewalKey(db, keyId, payerId);
        throw insufficientCredits(order.quote, price, key?.payer_credits ?? 0);
      }
      if (failedConstraint(err, 'NOT NULL', 'ledger.user_id')) throw notFound('User');
    }
    throw err;
  }
}

/** The batch renewed nothing: why, from the key as it is now. */
async function refusalNow(db: DB, order: RenewalOrder): Promise<AppError> {
  const key = await readRenewalKey(db, order.keyId, null);
  if (!key) return notFound('License key');
  if (order.period) return new AppError('CONFLICT', 'The key was renewed or changed since it was read');
  return notRenewable(key) ?? new AppError('CONFLICT', 'The key changed while it was being renewed; try again');
}
