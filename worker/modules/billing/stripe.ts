// The Stripe SDK as workerd runs it: fetch for HTTP and SubtleCrypto for webhook signatures (its
// Node defaults are not there). STRIPE_API_BASE points it elsewhere (a stand-in in tests).
// The SDK is imported on first use: it is a third of the Worker's code, and licensing calls and page
// reads should not pay for starting it.
import type Stripe from 'stripe';
import type { Env } from '../../platform/env';
import { isolateCache } from '../../platform/isolate-cache';

export type { Stripe };

/** Stripe's signing tolerance: a signed body older than five minutes is refused (replays). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const sdk = () => import('stripe').then((m) => m.default);
const clients = isolateCache<string, Stripe>('stripe-clients');

/** Card top-ups need a secret key; without one they are off. */
export const stripeConfigured = (env: Pick<Env, 'STRIPE_SECRET_KEY'>) => Boolean(env.STRIPE_SECRET_KEY);

/** The API client, or null when no secret key is configured (card top-ups are then off). */
export async function stripeClient(env: Pick<Env, 'STRIPE_SECRET_KEY' | 'STRIPE_API_BASE'>): Promise<Stripe | null> {
  const key = env.STRIPE_SECRET_KEY;
  if (!key) return null;
  const Stripe = await sdk();
  const cacheKey = `${key}\n${env.STRIPE_API_BASE ?? ''}`;
  return clients.getOrSet(
    cacheKey,
    () =>
      new Stripe(key, {
        httpClient: Stripe.createFetchHttpClient(),
        // One retry, with the same idempotency key, then the customer gets a clear 502.
        maxNetworkRetries: 1,
        timeout: 20_000,
        ...apiBase(env.STRIPE_API_BASE),
      }),
  );
}

function apiBase(base: string | undefined) {
  if (!base) return {};
  const url = new URL(base);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol } as const;
}

/**
 * The event in a webhook body, once its Stripe-Signature header is verified against the raw body
 * with the endpoint's secret; throws Stripe's signature error otherwise.
 */
export async function verifiedEvent(rawBody: string, signature: string, secret: string): Promise<Stripe.Event> {
  const Stripe = await sdk();
  return Stripe.webhooks.constructEventAsync(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS, Stripe.createSubtleCryptoProvider());
}
