// /api/payments/stripe: Stripe's webhook, the only thing that credits a card top-up to a balance.
import { Hono } from 'hono';
import type { AppEnv } from '../../../platform/context';
import { applyStripeEvent } from '../stripe-events';
import { AppError } from '../../../platform/errors';
import { verifiedEvent } from '../stripe';
import { routeOperations } from '../../accounts';
import { getSettings } from '../../settings';
import { stripeWebhookAnswerSchema } from '../schemas/payments';

const op = routeOperations({ tag: 'Payments', access: 'public' });

/**
 * POST /api/payments/stripe/webhook: no session (Stripe calls it), served during maintenance, and
 * answered 200 for every verified event, handled or not, so Stripe stops retrying it. Only a bad
 * signature is refused; the body is read raw, since the signature covers its exact bytes.
 */
export const paymentsStripeRoutes = new Hono<AppEnv>().post(
  '/webhook',
  op(
    'stripeWebhook',
    "Stripe's webhook: credits paid top-ups, reverses refunds and disputes",
    { 200: { description: 'Received (handled or not)', schema: stripeWebhookAnswerSchema } },
    { errors: [400, 404], servedInMaintenance: true },
  ),
  async (c) => {
    const secret = c.env.STRIPE_WEBHOOK_SECRET;
    if (!secret)
      throw new AppError(
        'NOT_CONFIGURED',
        "Stripe webhooks are not configured on this server: set STRIPE_WEBHOOK_SECRET to the endpoint's signing secret",
      );
    const signature = c.req.header('stripe-signature');
    if (!signature) throw new AppError('VALIDATION_ERROR', 'Missing Stripe-Signature header');
    const body = await c.req.text();
    let event;
    try {
      event = await verifiedEvent(body, signature, secret);
    } catch {
      throw new AppError('VALIDATION_ERROR', 'Invalid Stripe signature');
    }
    const { firstTopUpHoldHours } = (await getSettings(c.env.KV)).payments;
    const outcome = await applyStripeEvent(c.var.db, event, Date.now(), { firstTopUpHoldHours });
    return c.json({ received: true, outcome }, 200);
  },
);
