// /api/payments: card top-ups through Stripe Checkout. The customer's options, checkout and own
// payments; and Stripe's webhook, which alone credits a balance.
import { Hono } from 'hono';
import type { AppEnv, SignedInEnv } from '../context';
import { listMyPayments, myPaymentStatus, paymentOptions, startCheckout } from '../domain/payments';
import { applyStripeEvent } from '../domain/stripe-events';
import { AppError } from '../lib/errors';
import { getSettings } from '../lib/settings';
import { stripeClient, stripeConfigured, verifiedEvent } from '../lib/stripe';
import { jsonBody, pathParams, queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { checkoutSchema, myPaymentsQuery, sessionIdParam, type CheckoutResponse } from '../schemas/payments';
import { appUrl } from './google';

/**
 * POST /api/payments/stripe/webhook: no session (Stripe calls it), served during maintenance, and
 * answered 200 for every verified event, handled or not, so Stripe stops retrying it. Only a bad
 * signature is refused; the body is read raw, since the signature covers its exact bytes.
 */
export const stripeWebhookRoutes = new Hono<AppEnv>().post('/webhook', async (c) => {
  const secret = c.env.STRIPE_WEBHOOK_SECRET;
  if (!secret) throw new AppError('NOT_CONFIGURED', 'Stripe webhooks are not configured on this server');
  const signature = c.req.header('stripe-signature');
  if (!signature) throw new AppError('VALIDATION_ERROR', 'Missing Stripe-Signature header');
  const body = await c.req.text();
  let event;
  try {
    event = await verifiedEvent(body, signature, secret);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Invalid Stripe signature');
  }
  const outcome = await applyStripeEvent(c.var.db, event);
  return c.json({ received: true, outcome }, 200);
});

export const paymentsRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .get('/options', async (c) => c.json(paymentOptions((await getSettings(c.env.KV)).payments, stripeConfigured(c.env)), 200))
  .post('/checkout', jsonBody(checkoutSchema), async (c) => {
    const { payments: settings } = await getSettings(c.env.KV);
    const idempotencyKey = c.req.header('idempotency-key')?.slice(0, 200) || undefined;
    const session: CheckoutResponse = await startCheckout(c.var.db, await stripeClient(c.env), settings, {
      userId: c.var.caller.id,
      cents: c.req.valid('json').usdAmount,
      appUrl: appUrl(c, "Stripe Checkout's return address"),
      idempotencyKey,
    });
    return c.json(session, 201);
  })
  .get('/', queryParams(myPaymentsQuery), async (c) => c.json(await listMyPayments(c.var.db, c.var.caller.id, c.req.valid('query')), 200))
  .get('/:id', pathParams(sessionIdParam), async (c) =>
    c.json(await myPaymentStatus(c.var.db, c.var.caller.id, c.req.valid('param').id), 200),
  );
