// Card top-up test helpers: the Stripe stand-in's record (STRIPE_API_BASE, started by
// stripe-global-setup.ts), webhook bodies signed with the SDK's test-header helper, and the Worker
// run with other Stripe bindings (no key, an unreachable Stripe).
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import Stripe from 'stripe';
import { app } from '../app';
import type { Env } from '../platform/env';
import type { TestAnswerBody } from '../platform/api-client';
import { api, type ApiOptions, type ApiResult } from './helpers';

export const STAND_IN = env.STRIPE_API_BASE;
export const WEBHOOK_SECRET = env.STRIPE_WEBHOOK_SECRET;

export type RecordedRequest = {
  method: string;
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  params: Record<string, string>;
};

/** Every request the stand-in has received (from every test file), oldest first. */
export async function standInRequests(): Promise<RecordedRequest[]> {
  const res = await fetch(`${STAND_IN}/_stand-in/requests`);
  return (await res.json<{ requests: RecordedRequest[] }>()).requests;
}

/**
 * The stand-in answers the next `times` API calls with `status` (Stripe having a bad moment); with
 * `match`, only calls whose body contains it (a customer's id), so other files' calls go through.
 */
export async function standInFails(status: number, times: number, match?: string) {
  await fetch(`${STAND_IN}/_stand-in/fail`, { method: 'POST', body: JSON.stringify({ status, times, match }) });
}

let eventCounter = 0;
/** A Stripe event around `object`, as JSON text with its Stripe-Signature header. */
export async function signedEvent(type: string, object: unknown, options: { secret?: string; timestamp?: number } = {}) {
  const body = JSON.stringify({
    id: `evt_test_${Date.now().toString(36)}${eventCounter++}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    type,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return { body, signature };
}

const STRIPE_WEBHOOK = '/api/payments/stripe/webhook';
/** A way to call the Worker with Stripe's webhook (the shared `api`, or a sandbox's), typed for that one call. */
type StripeWebhookCall = (
  method: 'POST',
  path: typeof STRIPE_WEBHOOK,
  options: ApiOptions,
) => Promise<ApiResult<TestAnswerBody<'POST', typeof STRIPE_WEBHOOK>>>;

export function deliver(event: { body: string; signature: string }, call: StripeWebhookCall = api) {
  return call('POST', STRIPE_WEBHOOK, { rawBody: event.body, headers: { 'stripe-signature': event.signature } });
}

/** The Checkout Session object of a paid top-up, as Stripe sends it in checkout.session.* events. */
export function paidSession(sessionId: string, userId: string, amountCents: number, overrides: Record<string, unknown> = {}) {
  return {
    id: sessionId,
    object: 'checkout.session',
    mode: 'payment',
    status: 'complete',
    payment_status: 'paid',
    currency: 'usd',
    amount_total: amountCents,
    client_reference_id: userId,
    payment_intent: `pi_test_${sessionId.slice(-16)}`,
    ...overrides,
  };
}

/** The Worker with some bindings changed, for `api`'s `fetch` option. */
export function workerWith(changes: Partial<Env>) {
  const changed = { ...(env as unknown as Env), ...changes };
  return async (url: string, init: RequestInit) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(url, init), changed, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}
