// The owner's webhook endpoints: made with a signing secret shown once (sealed at rest like the
// two-factor secrets), listed with their health, edited, rotated, tested, and their deliveries paged.
import { encodeBase64 } from '@oslojs/encoding';
import { asc, count, desc, eq, inArray, type SQLWrapper } from 'drizzle-orm';
import { rawSql, runBatch, sqlFirst, sqlRows, SqlStatement, type DB } from '../../platform/db/client';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, webhookEvents } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { sealSecret } from '../../platform/secret-box';
import {
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_TEST_EVENT,
  webhookUrlProblem,
  type CreatedWebhookEndpoint,
  type UpdateWebhookInput,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
  type WebhookEndpoint,
  type WebhookEventType,
} from './schemas';
import { dispatchCommitted, NEW_EVENT_ID } from './outbox';
import type { WebhookMessage } from '../../platform/webhook-message';
import { DAY_MS } from '../../platform/vocabulary';

/** Standard Webhooks secrets are 24 to 64 random bytes; 32 as most senders use. */
const SECRET_BYTES = 32;
export const SECRET_PREFIX = 'whsec_';

type WebhookEnv = Pick<Env, 'TOTP_ENCRYPTION_KEY' | 'WEBHOOKS_ALLOW_LOOPBACK_HTTP'>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function newSecret(env: WebhookEnv): Promise<{ shown: string; sealed: string }> {
  const raw = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  return { shown: SECRET_PREFIX + encodeBase64(raw), sealed: await sealSecret(env.TOTP_ENCRYPTION_KEY, raw) };
}

function assertUrl(env: WebhookEnv, url: string) {
  const problem = webhookUrlProblem(url, env.WEBHOOKS_ALLOW_LOOPBACK_HTTP === 'true');
  if (problem) throw new AppError('VALIDATION_ERROR', problem, { details: { field: 'url' } });
}

/** An endpoint and its last day of deliveries, as the list shows them (one statement). */
const ENDPOINTS_WITH_HEALTH = `
  SELECT e.id, e.url, e.description, e.events, e.enabled, e.disabled_reason, e.failing_since, e.created_at, e.updated_at,
    (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.created_at >= ?1 AND d.status = 'delivered') AS delivered24h,
    (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.created_at >= ?1 AND d.status = 'failed') AS failed24h,
    (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending') AS pending,
    (SELECT json_object('at', d.created_at, 'status', d.status) FROM webhook_deliveries d WHERE d.endpoint_id = e.id ORDER BY d.created_at DESC, d.id DESC LIMIT 1) AS last
  FROM webhook_endpoints e`;

type EndpointRow = {
  id: string;
  url: string;
  description: string;
  events: string;
  enabled: number;
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number | null;
  delivered24h: number;
  failed24h: number;
  pending: number;
  last: string | null;
};

function toEndpointJson(r: EndpointRow): WebhookEndpoint {
  const last = r.last ? (JSON.parse(r.last) as { at: number; status: WebhookEndpoint['health']['lastStatus'] }) : null;
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    events: JSON.parse(r.events) as WebhookEventType[],
    enabled: r.enabled === 1,
    disabledReason: r.disabled_reason,
    failingSince: iso(r.failing_since),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: iso(r.updated_at),
    health: {
      delivered24h: r.delivered24h,
      failed24h: r.failed24h,
      pending: r.pending,
      lastDeliveryAt: iso(last?.at ?? null),
      lastStatus: last?.status ?? null,
    },
  };
}

export async function listWebhookEndpoints(db: DB, now = Date.now()): Promise<WebhookEndpoint[]> {
  const rows = await sqlRows<EndpointRow>(db, rawSql(`${ENDPOINTS_WITH_HEALTH} ORDER BY e.created_at, e.id`, now - DAY_MS));
  return rows.map(toEndpointJson);
}

export async function getWebhookEndpoint(db: DB, id: string, now = Date.now()): Promise<WebhookEndpoint> {
  const row = await sqlFirst<EndpointRow>(db, rawSql(`${ENDPOINTS_WITH_HEALTH} WHERE e.id = ?2`, now - DAY_MS, id));
  if (!row) throw notFound('Webhook endpoint');
  return toEndpointJson(row);
}

export async function createWebhookEndpoint(
  db: DB,
  env: WebhookEnv,
  actorId: string,
  input: { url: string; events: WebhookEventType[]; description: string },
  now = Date.now(),
): Promise<CreatedWebhookEndpoint> {
  assertUrl(env, input.url);
  const secret = await newSecret(env);
  const id = newId(now);
  // The count and the insert are one statement, so endpoints added at once never pass the limit.
  const made = await sqlRows(
    db,
    rawSql(
      `INSERT INTO webhook_endpoints (id, url, description, events, secret, enabled, created_by, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, 1, ?6, ?7 WHERE (SELECT count(*) FROM webhook_endpoints) < ?8
       RETURNING id`,
      id,
      input.url,
      input.description,
      JSON.stringify(input.events),
      secret.sealed,
      actorId,
      now,
      MAX_WEBHOOK_ENDPOINTS,
    ),
  );
  if (made.length === 0) throw new AppError('CONFLICT', `A shop can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
  return { ...(await getWebhookEndpoint(db, id, now)), secret: secret.shown };
}

/**
 * Changes an endpoint. A new URL sends the shop's events somewhere else, so it asks for proof first
 * (`prove`, the request's step-up); the rest of a change needs none.
 */
export async function updateWebhookEndpoint(
  db: DB,
  env: WebhookEnv,
  id: string,
  patch: Exclude<UpdateWebhookInput, undefined> & { events?: WebhookEventType[] },
  prove: (what: string) => Promise<unknown>,
  now = Date.now(),
): Promise<WebhookEndpoint> {
  if (patch.url !== undefined && patch.url !== (await getWebhookEndpoint(db, id, now)).url) {
    await prove("change a webhook endpoint's URL");
  }
  if (patch.url !== undefined) assertUrl(env, patch.url);
  const changes: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: new Date(now) };
  if (patch.url !== undefined) changes.url = patch.url;
  if (patch.events !== undefined) changes.events = patch.events;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.enabled !== undefined) {
    changes.enabled = patch.enabled;
    // Enabled again: a fresh start. Disabled by hand: no automatic reason to show.
    changes.disabledReason = null;
    changes.failingSince = null;
  }
  const updated = await db.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, id)).returning({ id: webhookEndpoints.id });
  if (updated.length === 0) throw notFound('Webhook endpoint');
  return getWebhookEndpoint(db, id, now);
}

/** Deletes the endpoint with its deliveries (ON DELETE CASCADE); false when there was none. */
export async function deleteWebhookEndpoint(db: DB, id: string): Promise<boolean> {
  const deleted = await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning({ id: webhookEndpoints.id });
  return deleted.length === 1;
}

/** A new signing secret, shown this once; every later attempt (retries included) is signed with it. */
export async function rotateWebhookSecret(db: DB, env: WebhookEnv, id: string, now = Date.now()): Promise<{ id: string; secret: string }> {
  const secret = await newSecret(env);
  const updated = await db
    .update(webhookEndpoints)
    .set({ secret: secret.sealed, updatedAt: new Date(now) })
    .where(eq(webhookEndpoints.id, id))
    .returning({ id: webhookEndpoints.id });
  if (updated.length === 0) throw notFound('Webhook endpoint');
  return { id, secret: secret.shown };
}

const disabledEndpoint = () => new AppError('CONFLICT', 'This endpoint is disabled. Enable it first.');

async function requireEnabled(db: DB, id: string) {
  const endpoint = await db.select({ enabled: webhookEndpoints.enabled }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
  if (!endpoint) throw notFound('Webhook endpoint');
  if (!endpoint.enabled) throw disabledEndpoint();
}

/** Sends a `webhook.test` event to this endpoint alone, through the same outbox and queue as every event. */
export async function sendTestEvent(db: DB, id: string, actorId: string, now = Date.now()): Promise<{ eventId: string }> {
  await requireEnabled(db, id);
  const data = { message: 'A test event from KeyPanel', endpointId: id };
  const statement = new SqlStatement(
    `INSERT INTO webhook_events (id, type, data, endpoint_id, created_at)
     SELECT ${NEW_EVENT_ID}, ?1, json_set(?2, '$.sentBy', json((SELECT json_object('_id', u.id, 'username', u.username) FROM users u WHERE u.id = ?5))), id, ?4
       FROM webhook_endpoints WHERE id = ?3 AND enabled = 1
     RETURNING id AS webhook_event_id`,
    [WEBHOOK_TEST_EVENT, JSON.stringify(data), id, now, actorId],
  );
  const results = await runBatch(db, [statement]);
  const rows = results[0] as Array<{ webhook_event_id: string }>;
  if (rows.length === 0) throw disabledEndpoint();
  await dispatchCommitted(results, db);
  return { eventId: rows[0].webhook_event_id };
}

type DeliveryRow = typeof webhookDeliveries.$inferSelect & { event: string };
type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

function toAttemptJson(a: AttemptRow): WebhookDeliveryAttempt {
  return {
    attempt: a.attempt,
    startedAt: a.startedAt.toISOString(),
    responseStatus: a.responseStatus,
    durationMs: a.durationMs,
    responseBody: a.responseBody,
    error: a.error,
  };
}

/** The attempts of the deliveries `ids` picks (a subquery, so it runs in the batch that reads them), oldest first. */
const attemptsOf = (db: DB, ids: SQLWrapper | string[]) =>
  db
    .select()
    .from(webhookDeliveryAttempts)
    .where(inArray(webhookDeliveryAttempts.deliveryId, ids))
    .orderBy(asc(webhookDeliveryAttempts.deliveryId), asc(webhookDeliveryAttempts.attempt));

/** Each delivery's attempts, in order, from the rows attemptsOf read. */
function attemptsByDelivery(rows: AttemptRow[]): Map<string, WebhookDeliveryAttempt[]> {
  const byDelivery = new Map<string, WebhookDeliveryAttempt[]>();
  for (const row of rows) {
    const list = byDelivery.get(row.deliveryId) ?? [];
    list.push(toAttemptJson(row));
    byDelivery.set(row.deliveryId, list);
  }
  return byDelivery;
}

function toDeliveryJson(d: DeliveryRow, attemptLog: WebhookDeliveryAttempt[]): WebhookDelivery {
  return {
    id: d.id,
    eventId: d.eventId,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus,
    responseBody: d.responseBody,
    error: d.error,
    durationMs: d.durationMs,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    attemptLog,
  };
}

/** An endpoint's deliveries, newest first, each with its attempts, and the page count (one round trip). */
export async function listDeliveries(db: DB, endpointId: string, page: number, limit: number) {
  const where = eq(webhookDeliveries.endpointId, endpointId);
  const newestFirst = [desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)];
  const offset = (page - 1) * limit;
  const [endpoint, rows, [{ total }], attempts] = await db.batch([
    db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)),
    db
      .select({ delivery: webhookDeliveries, event: webhookEvents.type })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(where)
      .orderBy(...newestFirst)
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(webhookDeliveries).where(where),
    // The same page's ids, in the same transaction: the attempts of exactly the deliveries above.
    attemptsOf(
      db,
      db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(where)
        .orderBy(...newestFirst)
        .limit(limit)
        .offset(offset),
    ),
  ]);
  if (endpoint.length === 0) throw notFound('Webhook endpoint');
  const attemptLogs = attemptsByDelivery(attempts);
  return {
    deliveries: rows.map((r) => toDeliveryJson({ ...r.delivery, event: r.event }, attemptLogs.get(r.delivery.id) ?? [])),
    totalPages: Math.ceil(total / limit),
    total,
  };
}

/**
 * Sends a delivery again, with the same webhook-id (it is the same message; a receiver that kept it
 * may skip it). Pending again until this attempt's outcome is known.
 */
export async function redeliver(db: DB, queue: Queue<WebhookMessage>, deliveryId: string, now = Date.now()): Promise<WebhookDelivery> {
  const found = await db
    .select({ delivery: webhookDeliveries, event: webhookEvents.type, enabled: webhookEndpoints.enabled })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, deliveryId))
    .get();
  if (!found) throw notFound('Delivery');
  if (!found.enabled) throw disabledEndpoint();
  // Its attempts so far are kept: the new one is added to them.
  const [[updated], attempts] = await db.batch([
    db
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: new Date(now), error: null })
      .where(eq(webhookDeliveries.id, deliveryId))
      .returning(),
    attemptsOf(db, [deliveryId]),
  ]);
  await queue.send({ kind: 'delivery', deliveryId });
  return toDeliveryJson({ ...updated, event: found.event }, attemptsByDelivery(attempts).get(deliveryId) ?? []);
}
