// /api/payments: card top-ups through Stripe Checkout: the customer's options, checkout and own
// payments. Stripe's webhook, which alone credits a balance, is routes/payments-stripe.ts.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { listMyPayments, myPaymentStatus, paymentOptions, startCheckout } from '../domain/payments';
import { appUrl } from '../lib/app-url';
import { getSettings } from '../lib/settings';
import { stripeClient, stripeConfigured } from '../lib/stripe';
import { jsonBody, pathParams, queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { checkoutSchema, myPaymentsQuery, sessionIdParam, type CheckoutResponse } from '../schemas/payments';

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
