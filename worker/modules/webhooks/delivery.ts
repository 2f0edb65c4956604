// The webhook queue's consumer (this same Worker): an event message fans out into one delivery per
// subscribed endpoint, each its own message, so a slow or failing endpoint holds up no other. A
// delivery is POSTed signed the Standard Webhooks way, with a 10-second timeout and no redirects
// followed; a 2xx is delivered, anything else is retried by the queue with growing delays
// (message.retry) for about a day, then marked failed. An endpoint failing for days is disabled.
// Every attempt is kept (webhook_delivery_attempts), written in the batch that records its outcome.
import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { createDb, rawSql, runBatch, sqlFirst } from '../../platform/db/client';
import { WEBHOOK_ANSWER_KEEP_BYTES, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { openSecret } from '../../platform/secret-box';
import { enqueueEvents } from './outbox';
import { WEBHOOK_ATTEMPTS_KEPT } from './schemas';
import type { WebhookMessage } from '../../platform/webhook-message';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** Seconds before each retry: 8 attempts over about 27 hours (a Queues delay is at most 12 hours). */
export const RETRY_DELAYS_S = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
/** Failing with no success for this long, an endpoint is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

type DeliveryEnv = Pick<Env, 'DB' | 'WEBHOOK_QUEUE' | 'TOTP_ENCRYPTION_KEY'>;

export async function handleWebhookBatch(batch: MessageBatch<WebhookMessage>, env: DeliveryEnv): Promise<void> {
  // Each message on its own: one endpoint's wait never delays another's delivery or acknowledgement.
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        if (message.body.kind === 'event') {
          await fanOut(env, message.body.eventId);
          message.ack();
          return;
        }
        const outcome = await attemptDelivery(env, message.body.deliveryId, message.attempts);
        if (outcome.retryInSeconds === undefined) message.ack();
        else message.retry({ delaySeconds: outcome.retryInSeconds });
      } catch (err) {
        console.error('Webhook message failed; the queue retries it', err);
        message.retry();
      }
    }),
  );
}

/**
 * One delivery per enabled endpoint that wants the event and existed when it happened (or the one
 * endpoint a test is for), queued.
 */
export async function fanOut(env: DeliveryEnv, eventId: string, now = Date.now()): Promise<string[]> {
  const db = createDb(env.DB);
  const [made] = await runBatch(db, [
    rawSql(
      `INSERT OR IGNORE INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, created_at)
       SELECT 'msg_' || lower(hex(randomblob(12))), ev.id, e.id, 'pending', 0, ?2
         FROM webhook_events ev JOIN webhook_endpoints e ON e.enabled = 1 AND e.created_at <= ev.created_at AND (
           ev.endpoint_id = e.id OR (ev.endpoint_id IS NULL AND EXISTS (SELECT 1 FROM json_each(e.events) s WHERE s.value = ev.type)))
        WHERE ev.id = ?1 AND ev.dispatched_at IS NULL
       RETURNING id`,
      eventId,
      now,
    ),
    db
      .update(webhookEvents)
      .set({ dispatchedAt: new Date(now) })
      .where(and(eq(webhookEvents.id, eventId), isNull(webhookEvents.dispatchedAt))),
  ]);
  const ids = (made as Array<{ id: string }>).map((r) => r.id);
  for (let i = 0; i < ids.length; i += 100) {
    await env.WEBHOOK_QUEUE.sendBatch(ids.slice(i, i + 100).map((deliveryId) => ({ body: { kind: 'delivery', deliveryId } })));
  }
  return ids;
}

type DeliveryTarget = {
  id: string;
  status: string;
  event_id: string;
  type: string;
  data: string;
  event_created_at: number;
  endpoint_id: string;
  url: string;
  secret: string;
  enabled: number;
  failing_since: number | null;
};

export type DeliveryOutcome = { status: 'delivered' | 'pending' | 'failed' | 'skipped'; retryInSeconds?: number };

/** What was heard back from one POST. */
type Attempt = { ok: boolean; responseStatus: number | null; responseBody: string | null; error: string | null; durationMs: number };

/** The event's body, exactly the bytes that are signed and sent. */
export const eventBody = (t: Pick<DeliveryTarget, 'event_id' | 'type' | 'event_created_at' | 'data'>) =>
  `{"id":${JSON.stringify(t.event_id)},"type":${JSON.stringify(t.type)},"timestamp":${JSON.stringify(new Date(t.event_created_at).toISOString())},"data":${t.data}}`;

/**
 * Attempt number `attempt` (1 for the first) of a delivery. Answers when the queue should try again
 * (retryInSeconds), or nothing more to do.
 */
export async function attemptDelivery(env: DeliveryEnv, deliveryId: string, attempt: number, now = Date.now()): Promise<DeliveryOutcome> {
  const db = createDb(env.DB);
  const target = await sqlFirst<DeliveryTarget>(
    db,
    rawSql(
      `SELECT d.id, d.status, ev.id AS event_id, ev.type, ev.data, ev.created_at AS event_created_at,
              e.id AS endpoint_id, e.url, e.secret, e.enabled, e.failing_since
         FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.id = ?1`,
      deliveryId,
    ),
  );
  // Gone with its endpoint, or settled already (a duplicate message): nothing to send.
  if (!target || target.status !== 'pending') return { status: 'skipped' };
  if (!target.enabled) {
    await db
      .update(webhookDeliveries)
      .set({ status: 'failed', error: 'Not sent: the endpoint is disabled', nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, deliveryId));
    return { status: 'failed' };
  }

  const result = await post(target, await openSecret(env.TOTP_ENCRYPTION_KEY, target.secret), now);
  const final = !result.ok && attempt >= MAX_ATTEMPTS;
  const retryInSeconds = result.ok || final ? undefined : RETRY_DELAYS_S[Math.max(0, attempt - 1)];
  const status = result.ok ? 'delivered' : final ? 'failed' : 'pending';
  const nextAttemptAt = retryInSeconds === undefined ? null : now + retryInSeconds * 1000;
  const failingSince = target.failing_since ?? now;
  const disable = !result.ok && now - failingSince >= DISABLE_AFTER_MS;
  const reason = `Disabled automatically: every delivery has failed since ${new Date(failingSince).toISOString()} (last: ${describe(result)})`;
  const endpoint = eq(webhookEndpoints.id, target.endpoint_id);
  await runBatch(db, [
    db
      .update(webhookDeliveries)
      .set({
        status,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        responseStatus: result.responseStatus,
        responseBody: result.responseBody,
        error: result.error,
        durationMs: result.durationMs,
        lastAttemptAt: new Date(now),
        nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt),
      })
      .where(eq(webhookDeliveries.id, deliveryId)),
    // The attempt itself, numbered by the count the update above just made.
    rawSql(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, response_status, response_body, error, duration_ms)
       SELECT id, attempts, ?2, ?3, ?4, ?5, ?6 FROM webhook_deliveries WHERE id = ?1`,
      deliveryId,
      now,
      result.responseStatus,
      result.responseBody,
      result.error,
      result.durationMs,
    ),
    rawSql(
      `DELETE FROM webhook_delivery_attempts
        WHERE delivery_id = ?1 AND attempt <= (SELECT attempts FROM webhook_deliveries WHERE id = ?1) - ?2`,
      deliveryId,
      WEBHOOK_ATTEMPTS_KEPT,
    ),
    result.ok
      ? db.update(webhookEndpoints).set({ failingSince: null }).where(endpoint)
      : db
          .update(webhookEndpoints)
          .set({
            failingSince: sql`COALESCE(${webhookEndpoints.failingSince}, ${now})`,
            ...(disable ? { enabled: false, disabledReason: reason } : {}),
          })
          .where(endpoint),
  ]);
  // Disabled now: no more attempts.
  return { status: disable ? 'failed' : status, retryInSeconds: disable ? undefined : retryInSeconds };
}

const describe = (a: Attempt) => (a.responseStatus !== null ? `HTTP ${a.responseStatus}` : (a.error ?? 'no response'));

async function post(target: DeliveryTarget, secret: Uint8Array, now: number): Promise<Attempt> {
  const body = eventBody(target);
  const timestamp = new Date(now);
  const signature = new Webhook(secret, { format: 'raw' }).sign(target.id, timestamp, body);
  const started = Date.now();
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'KeyPanel-Webhooks/1.0',
        'webhook-id': target.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
      // A redirect is an answer like any other non-2xx: following it would send the event elsewhere.
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    const responseBody = await firstBytes(res, WEBHOOK_ANSWER_KEEP_BYTES);
    return {
      ok: res.status >= 200 && res.status < 300,
      responseStatus: res.status,
      responseBody,
      error: null,
      durationMs: Date.now() - started,
    };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    const error = timedOut
      ? `No response within ${DELIVERY_TIMEOUT_MS / 1000} seconds`
      : `Could not connect: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, responseStatus: null, responseBody: null, error: error.slice(0, 500), durationMs: Date.now() - started };
  }
}

/** The start of a response's body as text (at most `max` bytes of it, see utf8Prefix), without reading the rest. */
async function firstBytes(res: Response, max: number): Promise<string | null> {
  if (!res.body) return null;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      // The Workers types leave a body's chunks untyped; a fetch body's chunks are bytes.
      const { done, value } = (await reader.read()) as ReadableStreamReadResult<Uint8Array>;
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut short still tells what it said so far.
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, Math.min(chunk.byteLength, max - at));
    bytes.set(part, at);
    at += part.byteLength;
    if (at >= max) break;
  }
  return utf8Prefix(bytes, max);
}

/**
 * The text of the first `max` bytes, cut on a character boundary: a character the cut would split is
 * left out, never turned into U+FFFD. Bytes that are not UTF-8 read as U+FFFD, which is longer (3
 * bytes), so the text is measured again and cut the same way: it is at most `max` bytes of UTF-8.
 */
export function utf8Prefix(bytes: Uint8Array, max: number): string {
  // A streaming decode holds back an incomplete last character instead of replacing it.
  const text = new TextDecoder().decode(bytes.subarray(0, max), { stream: true });
  const encoded = new TextEncoder().encode(text);
  return encoded.byteLength <= max ? text : new TextDecoder().decode(encoded.subarray(0, max), { stream: true });
}

/** A delivery still pending this long after it was made (its retries span about 27 hours) is given up. */
export const GIVE_UP_AFTER_MS = 2 * 24 * 3600 * 1000;

/**
 * The cron's part: events that never reached the queue (a crash between the commit and the send),
 * and deliveries whose message was lost, go on the queue again; a delivery that could never be
 * attempted (its message kept failing) is given up; a month of history is kept.
 */
export async function redispatchWebhooks(
  env: Pick<Env, 'DB' | 'WEBHOOK_QUEUE'>,
  now = Date.now(),
): Promise<{ events: number; deliveries: number }> {
  const db = createDb(env.DB);
  const pending = eq(webhookDeliveries.status, 'pending');
  const [, events, deliveries] = await db.batch([
    db
      .update(webhookDeliveries)
      .set({ status: 'failed', error: 'Given up: not delivered within 2 days', nextAttemptAt: null })
      .where(and(pending, lt(webhookDeliveries.createdAt, new Date(now - GIVE_UP_AFTER_MS)))),
    db
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(and(isNull(webhookEvents.dispatchedAt), lt(webhookEvents.createdAt, new Date(now - 60_000))))
      .orderBy(asc(webhookEvents.createdAt))
      .limit(500),
    db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(pending, lt(sql`COALESCE(${webhookDeliveries.nextAttemptAt}, ${webhookDeliveries.createdAt})`, now - 15 * 60_000)))
      .orderBy(asc(webhookDeliveries.createdAt))
      .limit(500),
    db.delete(webhookEvents).where(lt(webhookEvents.createdAt, new Date(now - 30 * 24 * 3600 * 1000))),
  ]);
  const eventIds = events.map((r) => r.id);
  const deliveryIds = deliveries.map((r) => r.id);
  await enqueueEvents(env.WEBHOOK_QUEUE, eventIds);
  for (let i = 0; i < deliveryIds.length; i += 100) {
    await env.WEBHOOK_QUEUE.sendBatch(deliveryIds.slice(i, i + 100).map((deliveryId) => ({ body: { kind: 'delivery', deliveryId } })));
  }
  return { events: eventIds.length, deliveries: deliveryIds.length };
}
