// The webhook outbox: an event is a row written in the same D1 batch as the change it describes, so
// the two commit or fail together. Each statement writes nothing when no enabled endpoint subscribes
// to its type (an INSERT ... SELECT ... WHERE EXISTS), so a shop without webhooks pays one small
// lookup inside a batch it runs anyway and no extra round trip. After the commit, the rows the
// batch wrote (RETURNING) go on the queue; the cron re-enqueues any that never got there.
import { columnValuesIn, isoTextSql, SqlStatement } from '../../platform/db/client';
import { afterCommitOf, ENABLED_SUBSCRIPTIONS_SQL } from '../../platform/db/session';
import type { WebhookQueue } from '../../platform/webhook-message';
import type { WebhookEventType } from './schemas';
import { hasPassedSql } from '../../platform/db/expiry';

/** The column every outbox statement answers for each event it wrote (see eventIdsIn). */
const EVENT_ID_COLUMN = 'webhook_event_id';
export const NEW_EVENT_ID = `'evt_' || lower(hex(randomblob(12)))`;

/** A statement that writes webhook events (see `outbox`). */
export class OutboxStatement extends SqlStatement {}

/**
 * One event per row of `source` (SQL after SELECT's columns: FROM ... WHERE ...), `data` the SQL
 * expression of its body's data (JSON text). ?1 is the type and ?2 the time; the source's own
 * parameters are ?3 onwards.
 */
function outbox(type: string, data: string, source: string, params: unknown[], now: number): OutboxStatement {
  const subscribed = `EXISTS (SELECT 1 FROM ${ENABLED_SUBSCRIPTIONS_SQL} AND s.value = ?1)`;
  return new OutboxStatement(
    `INSERT INTO webhook_events (id, type, data, created_at) SELECT ${NEW_EVENT_ID}, ?1, ${data}, ?2 ${source} AND ${subscribed} RETURNING id AS ${EVENT_ID_COLUMN}`,
    [type, now, ...params],
    type,
  );
}

/**
 * The outbox statement for events whose data the caller has at hand: one event per item of `data`.
 * Add it to the batch that makes the change (runBatch), then pass the
 * batch's results to `dispatchCommitted`. (Card top-ups have their own: `balanceToppedUpEvent`.)
 */
export function webhookEvents(type: WebhookEventType, data: unknown[], now = Date.now()): OutboxStatement {
  return outbox(type, 'j.value', 'FROM json_each(?3) j WHERE 1', [JSON.stringify(data)], now);
}

const userRef = (column: string) => `json((SELECT json_object('_id', u.id, 'username', u.username) FROM users u WHERE u.id = ${column}))`;

/** A license key (alias k) shaped like the API's key object, without its activations. */
export const KEY_JSON = `json_object(
  '_id', k.id, 'key', k.key, 'status', k.status,
  'product', json_object('_id', k.product_id, 'name', k.product_name, 'keyTag', k.product_key_tag, 'productType', k.product_type,
                         'duration', k.duration, 'maxActivations', k.max_activations),
  'purchasedAt', ${isoTextSql('k.purchased_at')}, 'purchasedBy', ${userRef('k.purchased_by')}, 'createdBy', ${userRef('k.created_by')},
  'duration', k.duration, 'purchasePrice', k.purchase_price, 'revokeReason', k.revoke_reason, 'firstUsedAt', ${isoTextSql('k.first_used_at')},
  'createdAt', ${isoTextSql('k.created_at')}, 'expiresAt', ${isoTextSql('k.expires_at')},
  'metadata', json_object('generationMethod', k.generation_method), 'maxActivations', k.max_activations)`;

/** key.* events for the keys with these ids, as they are at that point of the batch. */
export function keyEvents(type: WebhookEventType, keyIds: string[], now = Date.now(), extraWhere = ''): OutboxStatement {
  return outbox(
    type,
    `json_object('licenseKey', json(${KEY_JSON}))`,
    `FROM license_keys k WHERE k.id IN (SELECT value FROM json_each(?3))${extraWhere}`,
    [JSON.stringify(keyIds)],
    now,
  );
}

/**
 * reseller.commission_earned: the commission a customer's own purchase of this key earned their
 * reseller (the ledger row trigger license_keys_pay_commission wrote with the key, at the key's time,
 * so ledger_kind_created_idx finds it), with the reseller, the customer and the key. None when the
 * purchase earned nobody anything.
 */
export function commissionEvent(keyId: string, at: number, now = Date.now()): OutboxStatement {
  return outbox(
    'reseller.commission_earned',
    `json_object('reseller', ${userRef('l.user_id')}, 'customer', ${userRef('l.actor_id')}, 'credits', l.credits_delta,
      'ledgerEntryId', l.id, 'licenseKey', json(${KEY_JSON}))`,
    `FROM ledger l JOIN license_keys k ON k.id = l.reference WHERE l.kind = 'commission' AND l.created_at = ?4 AND l.reference = ?3`,
    [keyId, at],
    now,
  );
}

/** key.generated: one event per generation, with the keys' ids and strings, and who made them. */
export function generatedKeysEvent(
  actorId: string,
  generation: { product: { _id: string; name: string; keyTag: string }; duration: number; keys: Array<{ id: string; key: string }> },
  now = Date.now(),
): OutboxStatement {
  const { product, duration, keys } = generation;
  const data = { product, duration, quantity: keys.length, keys: keys.map((k) => ({ _id: k.id, key: k.key })) };
  return outbox(
    'key.generated',
    `json_set(?4, '$.createdBy', json_object('_id', u.id, 'username', u.username))`,
    `FROM users u WHERE u.id = ?3`,
    [actorId, JSON.stringify(data)],
    now,
  );
}

/** key.expired for every used key the expiry job is about to mark (run before its UPDATE). */
export function expiringKeyEvents(cutoff: number, now = Date.now()): OutboxStatement {
  return outbox(
    'key.expired',
    `json_object('licenseKey', json(json_set(${KEY_JSON}, '$.status', 'expired')))`,
    `FROM license_keys k WHERE k.status = 'used' AND ${hasPassedSql('k.expires_at', '?3')}`,
    [cutoff],
    now,
  );
}

/**
 * license.device_replaced: device ?3 (activation, alias a, read before it goes) gives its slot to
 * the device ?4 (`replacedBy`), under `guard` (the replacement's own conditions).
 */
export function deviceReplacedEvent(
  activationId: string,
  replacedBy: string,
  now: number,
  guard: { sql: string; params: unknown[] },
): OutboxStatement {
  const data = `json_object('licenseKey', json(${KEY_JSON}), 'replaced', json_object('_id', a.id, 'deviceFingerprint', a.device_fingerprint,
    'deviceInfo', json(a.device_info), 'activatedAt', ${isoTextSql('a.activated_at')}, 'lastUsed', ${isoTextSql('a.last_used')}), 'replacedBy', json_object('deviceFingerprint', ?4))`;
  return outbox(
    'license.device_replaced',
    data,
    `FROM activations a JOIN license_keys k ON k.id = a.key_id WHERE a.id = ?3${guard.sql}`,
    [activationId, replacedBy, ...guard.params],
    now,
  );
}

/**
 * license.activated / license.deactivated / license.seat_released / license.trial_started: the device (activation ?3, alias a) with its key; `guard`
 * is a further condition (its parameters from ?4) that the change itself is under.
 */
export function activationEvent(
  type: 'license.activated' | 'license.deactivated' | 'license.seat_released' | 'license.trial_started',
  activationId: string,
  now = Date.now(),
  guard: { sql: string; params: unknown[] } = { sql: '', params: [] },
): OutboxStatement {
  const data = `json_object('licenseKey', json(${KEY_JSON}), 'activation', json_object('_id', a.id, 'deviceFingerprint', a.device_fingerprint,
    'deviceInfo', json(a.device_info), 'activatedAt', ${isoTextSql('a.activated_at')}, 'lastUsed', ${isoTextSql('a.last_used')},
    'leaseExpiresAt', ${isoTextSql('a.lease_expires_at')}, 'borrowedUntil', ${isoTextSql('a.borrowed_until')}))`;
  return outbox(
    type,
    data,
    `FROM activations a JOIN license_keys k ON k.id = a.key_id WHERE a.id = ?3${guard.sql}`,
    [activationId, ...guard.params],
    now,
  );
}

/**
 * license.usage_exhausted: the debit (usage_events row ?3, written earlier in the batch) took the
 * key's last use. None when the row is not there (a repeated Idempotency-Key, a refusal) or uses are left.
 */
export function usageExhaustedEvent(usageEventId: string, now = Date.now()): OutboxStatement {
  const data = `json_object('licenseKey', json(${KEY_JSON}), 'usage', json_object('consumed', ue.amount, 'remaining', ue.remaining, 'at', ${isoTextSql('ue.at')}))`;
  return outbox(
    'license.usage_exhausted',
    data,
    `FROM usage_events ue JOIN license_keys k ON k.id = ue.key_id WHERE ue.id = ?3 AND ue.kind = 'consume' AND ue.remaining = 0`,
    [usageEventId],
    now,
  );
}

/**
 * license.offline_activated: an air-gapped device's request (offline_activations ?3, alias o) turned
 * into a signed response, with the device's activation (new or already there) and its key; nothing
 * when the batch gave the nonce back (the slot was refused).
 */
export function offlineActivationEvent(offlineId: string, now = Date.now()): OutboxStatement {
  const data = `json_object('licenseKey', json(${KEY_JSON}), 'activation', json_object('_id', a.id, 'deviceFingerprint', a.device_fingerprint,
    'deviceInfo', json(a.device_info), 'activatedAt', ${isoTextSql('a.activated_at')}, 'lastUsed', ${isoTextSql('a.last_used')}),
    'offline', json_object('nonce', o.nonce, 'issuedAt', ${isoTextSql('o.issued_at')}))`;
  return outbox(
    'license.offline_activated',
    data,
    `FROM offline_activations o JOIN activations a ON a.key_id = o.key_id AND a.device_fingerprint = o.device_fingerprint
       JOIN license_keys k ON k.id = o.key_id WHERE o.id = ?3`,
    [offlineId],
    now,
  );
}

/**
 * license.renewed / license.auto_renew_failed: the key_renewals row ?3 (alias r) with its key, as the
 * batch left it. None when the row is not there (the renewal was refused in its batch).
 */
export function renewalEvent(
  renewalId: string,
  now = Date.now(),
  type: 'license.renewed' | 'license.auto_renew_failed' = 'license.renewed',
): OutboxStatement {
  const data = `json_object('licenseKey', json(${KEY_JSON}), 'renewal', json_object('_id', r.id, 'source', r.source, 'outcome', r.outcome,
    'days', r.days, 'credits', r.credits, 'previousExpiresAt', ${isoTextSql('r.from_expires_at')}, 'expiresAt', ${isoTextSql('r.to_expires_at')},
    'at', ${isoTextSql('r.at')}, 'payer', ${userRef('r.payer_id')}))`;
  return outbox(type, data, `FROM key_renewals r JOIN license_keys k ON k.id = r.key_id WHERE r.id = ?3`, [renewalId], now);
}

/** balance.exchanged: the account's balances as the batch left them, and what was exchanged. */
export function exchangeEvent(
  userId: string,
  exchange: { usdAmount: number; credits: number; rate: number },
  now = Date.now(),
): OutboxStatement {
  const data = `json_object('user', json_object('_id', u.id, 'username', u.username, 'email', u.email),
    'usdAmount', ?4, 'creditsAdded', ?5, 'rate', ?6, 'balances', json_object('usd', u.balance_cents / 100.0, 'credits', u.credits))`;
  return outbox(
    'balance.exchanged',
    data,
    `FROM users u WHERE u.id = ?3`,
    [userId, exchange.usdAmount, exchange.credits, exchange.rate],
    now,
  );
}

/**
 * balance.topped_up, for the card top-up's batch (after its balance update): the account's balances
 * as the batch left them, and the amount credited.
 */
export function balanceToppedUpEvent(userId: string, topUp: { amountUsd: number; ledgerId?: string }, now = Date.now()): OutboxStatement {
  const data = `json_object('user', json_object('_id', u.id, 'username', u.username, 'email', u.email),
    'amountUsd', ?4, 'balances', json_object('usd', u.balance_cents / 100.0, 'credits', u.credits))`;
  // With the credit's ledger row named, only a batch that wrote that row writes the event.
  const credited = topUp.ledgerId === undefined ? '' : ' AND EXISTS (SELECT 1 FROM ledger WHERE id = ?5)';
  const params = topUp.ledgerId === undefined ? [userId, topUp.amountUsd] : [userId, topUp.amountUsd, topUp.ledgerId];
  return outbox('balance.topped_up', data, `FROM users u WHERE u.id = ?3${credited}`, params, now);
}

/** The ids of the events a committed batch wrote, from its results in any of the shapes D1 and drizzle give. */
export const eventIdsIn = (results: readonly unknown[]): string[] => columnValuesIn(results, EVENT_ID_COLUMN);

/** Puts events on the queue (fan-out happens in the consumer). */
export async function enqueueEvents(queue: WebhookQueue, eventIds: string[]): Promise<void> {
  // sendBatch takes at most 100 messages.
  for (let i = 0; i < eventIds.length; i += 100) {
    await queue.sendBatch(eventIds.slice(i, i + 100).map((eventId) => ({ body: { kind: 'event', eventId } })));
  }
}

/**
 * After a batch with outbox statements committed: sends the events it wrote to the queue. `via` is
 * the database the batch ran on: a request's (the operation middleware gave it the queue and the
 * request's waitUntil, so the send runs after the answer), or, outside a request (the cron, a
 * script), the queue itself. A database with no queue sends nothing, and a failed send loses nothing:
 * the cron re-enqueues events left undispatched.
 */
export async function dispatchCommitted(
  results: readonly unknown[],
  via: { $client: unknown } | D1Database | { WEBHOOK_QUEUE: WebhookQueue },
): Promise<void> {
  const ids = eventIdsIn(results);
  if (ids.length === 0) return;
  const send = (queue: WebhookQueue) =>
    enqueueEvents(queue, ids).catch((err) => console.error('Webhook events not enqueued; the cron will retry', err));
  if ('WEBHOOK_QUEUE' in via) return send(via.WEBHOOK_QUEUE);
  const after = afterCommitOf('$client' in via ? via.$client : via);
  if (after?.webhookQueue) await after.later(send(after.webhookQueue));
}
