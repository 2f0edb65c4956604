// Outbound webhooks (issue 22): the event types and the endpoint calls, one schema each, shared by
// the API, the web app and the CLI.
import { z } from 'zod';
import { refuseUnsafeText } from '../../platform/schemas/text';
import { pageQuery } from '../../platform/schemas/paging';
import { stepUpFields } from '../accounts/schemas/security';

/** What an endpoint may subscribe to. `balance.topped_up` is sent by card top-ups. */
export const WEBHOOK_EVENT_TYPES = [
  'key.purchased',
  'key.generated',
  'key.revoked',
  'key.deleted',
  'key.expired',
  'license.activated',
  'license.deactivated',
  'license.seat_released',
  'license.device_replaced',
  'license.trial_started',
  'license.usage_exhausted',
  'license.offline_activated',
  'license.renewed',
  'license.auto_renew_failed',
  'user.registered',
  'balance.exchanged',
  'balance.topped_up',
  'reseller.commission_earned',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent on demand to one endpoint (POST /api/webhooks/:id/test); nobody subscribes to it. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 200;
/** Far more than a shop wires up; keeps every hot-path outbox check a scan of a handful of rows. */
export const MAX_WEBHOOK_ENDPOINTS = 20;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Suffixes of names that resolve only inside a network (RFC 6761, RFC 6762, RFC 8375 and common practice). */
const INTERNAL_SUFFIXES = [
  '.localhost',
  '.local',
  '.internal',
  '.intranet',
  '.lan',
  '.home',
  '.corp',
  '.private',
  '.home.arpa',
  '.localdomain',
  '.test',
  '.invalid',
  '.arpa',
];

/**
 * Why a host is not a public destination, or null: an IP literal (any form the URL parser turns into
 * one, like 2130706433), localhost, a single-label name, or an internal suffix. Such a host could
 * point a webhook, and the first KB of its answer shown to the owner, at the Worker's own network.
 */
export function internalHostProblem(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return 'URL must name a public host, not an IP address';
  if (host === 'localhost' || !host.includes('.') || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) {
    return 'URL must name a public host (not localhost or an internal name)';
  }
  return null;
}

/**
 * Why `url` may not receive webhooks, or null when it may: https to a public host only, except http
 * to this machine while KeyPanel runs locally (`allowLoopbackHttp`), as today. No credentials in the
 * URL (they would show in lists).
 */
export function webhookUrlProblem(url: string, allowLoopbackHttp: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'URL must be a valid absolute URL, like https://example.com/webhooks';
  }
  if (parsed.username || parsed.password) return 'URL must not contain a user name or password';
  if (allowLoopbackHttp && LOOPBACK_HOSTS.has(parsed.hostname) && (parsed.protocol === 'http:' || parsed.protocol === 'https:'))
    return null;
  if (parsed.protocol === 'https:') return internalHostProblem(parsed.hostname);
  return allowLoopbackHttp ? 'URL must use https (http is accepted for localhost only)' : 'URL must use https';
}

const url = z
  .string({ error: 'URL is required' })
  .trim()
  .min(1, 'URL is required')
  .max(WEBHOOK_URL_MAX, `URL must be at most ${WEBHOOK_URL_MAX} characters`);
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `Events must be among: ${WEBHOOK_EVENT_TYPES.join(', ')}` }), {
    error: 'Events must be a list of event types',
  })
  .min(1, 'Choose at least one event')
  .transform((list) => [...new Set(list)]);
const description = z
  .string({ error: 'Description must be text' })
  .trim()
  .max(WEBHOOK_DESCRIPTION_MAX, `Description must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`)
  .superRefine(refuseUnsafeText('Description'));

// A new destination for every event needs proof beyond the session (the operations' step-up).
export const createWebhookSchema = z.object({ url, events, description: description.default(''), ...stepUpFields });
export type CreateWebhookInput = z.input<typeof createWebhookSchema>;

export const updateWebhookSchema = z
  .object({ url, events, description, enabled: z.boolean({ error: 'enabled must be true or false' }), ...stepUpFields })
  .partial()
  .refine(
    (v) => Object.entries(v).some(([field, x]) => !(field in stepUpFields) && x !== undefined),
    'Nothing to change: give url, events, description or enabled',
  );
export type UpdateWebhookInput = z.input<typeof updateWebhookSchema>;

/** A new signing secret takes over the endpoint's deliveries: proof, as adding an endpoint needs. */
export const rotateWebhookSecretSchema = z.object({ ...stepUpFields });
export type RotateWebhookSecretInput = z.input<typeof rotateWebhookSecretSchema>;

export const webhookIdParam = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/, 'Webhook endpoint not found') });
export const deliveryIdParam = z.object({ id: z.string().regex(/^msg_[0-9a-f]{24}$/, 'Delivery not found') });

export const DELIVERIES_PAGE_DEFAULT = 20;
export const deliveriesQuery = z.object({
  ...pageQuery(DELIVERIES_PAGE_DEFAULT),
});

/** An endpoint as the API shows it (the secret never, except once when made or rotated). */
const deliveryStatusSchema = z.enum(['pending', 'delivered', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof deliveryStatusSchema>;

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    enabled: z.boolean(),
    disabledReason: z
      .string()
      .nullable()
      .meta({ description: 'Why it was disabled automatically (null when enabled, or disabled by hand).' }),
    failingSince: z.string().nullable().meta({ description: 'Failing without a success since then (null when healthy).' }),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
    health: z.object({
      delivered24h: z.number(),
      failed24h: z.number(),
      pending: z.number(),
      lastDeliveryAt: z.string().nullable(),
      lastStatus: deliveryStatusSchema.nullable(),
    }),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;
export const createdWebhookEndpointSchema = webhookEndpointSchema
  .extend({ secret: z.string(), message: z.string() })
  .meta({ id: 'CreatedWebhookEndpoint' });
export type CreatedWebhookEndpoint = WebhookEndpoint & { secret: string };

/**
 * The attempts kept per delivery: the latest this many, two full rounds of retries (8 attempts each).
 * Only an owner's redeliveries go past it; the oldest attempts then make room.
 */
export const WEBHOOK_ATTEMPTS_KEPT = 16;

export const webhookDeliveryAttemptSchema = z
  .object({
    attempt: z.number().meta({ description: "1 for the delivery's first attempt; retries and redeliveries count on." }),
    startedAt: z.string(),
    responseStatus: z.number().nullable().meta({ description: 'The HTTP status code; null when no answer came (see error).' }),
    durationMs: z.number(),
    responseBody: z
      .string()
      .nullable()
      .meta({ description: "The first KB (1024 bytes of UTF-8, cut on a character boundary) of the answer's body." }),
    error: z.string().nullable().meta({ description: 'Why no answer came: a timeout, a refused connection, a name that did not resolve.' }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type WebhookDeliveryAttempt = z.infer<typeof webhookDeliveryAttemptSchema>;

export const webhookDeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string(),
    event: z.string(),
    status: deliveryStatusSchema,
    attempts: z.number().meta({ description: 'How many times it was sent.' }),
    responseStatus: z.number().nullable().meta({ description: "The last attempt's HTTP status code." }),
    responseBody: z.string().nullable().meta({ description: "The first KB of the last response's body." }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why the last attempt had no answer, or why the delivery was not sent (a disabled endpoint) or given up.' }),
    durationMs: z.number().nullable(),
    lastAttemptAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    attemptLog: z.array(webhookDeliveryAttemptSchema).meta({
      description: `Each attempt, oldest first (the latest ${WEBHOOK_ATTEMPTS_KEPT} when redeliveries made more; \`attempts\` counts them all). Empty before the first.`,
    }),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookEndpointsResponseSchema = z
  .object({ endpoints: z.array(webhookEndpointSchema) })
  .meta({ id: 'WebhookEndpointsResponse' });
export const redeliveryResponseSchema = z.object({ delivery: webhookDeliverySchema }).meta({ id: 'RedeliveryResponse' });
export const rotatedSecretSchema = z
  .object({ id: z.string(), secret: z.string(), message: z.string() })
  .meta({ id: 'RotatedWebhookSecret' });
export const testEventResponseSchema = z.object({ eventId: z.string(), message: z.string() }).meta({ id: 'TestEventResponse' });
export const webhookDeliveriesResponseSchema = z
  .object({ deliveries: z.array(webhookDeliverySchema), totalPages: z.number(), total: z.number() })
  .meta({ id: 'WebhookDeliveriesResponse' });
