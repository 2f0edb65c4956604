// /api/payments: card top-ups through Stripe Checkout: the customer's options, checkout and own
// payments. Stripe's webhook, which alone credits a balance, is modules/billing/routes/payments-stripe.ts.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { listMyPayments, myPaymentStatus, paymentOptions, startCheckout } from '../payments';
import { appUrl } from '../../../platform/app-url';
import { stripeClient, stripeConfigured } from '../stripe';
import { jsonBody, pathParams, queryParams } from '../../../platform/validate';
import {
  checkoutSchema,
  myPaymentsQuery,
  sessionIdParam,
  type CheckoutResponse,
  checkoutResponseSchema,
  paymentOptionsSchema,
  paymentStatusResponseSchema,
  paymentsResponseSchema,
} from '../schemas/payments';
import { routeOperations } from '../../accounts';
import { getSettings } from '../../settings';

const op = routeOperations({ tag: 'Payments', access: 'user' });

export const paymentsRoutes = new Hono<SignedInEnv>()
  .get('/options', op('getPaymentOptions', 'Whether card top-ups are on, and their bounds', { 200: paymentOptionsSchema }), async (c) =>
    c.json(await paymentOptions(c.var.db, c.var.caller.id, (await getSettings(c.env.KV)).payments, stripeConfigured(c.env)), 200),
  )
  .post(
    '/checkout',
    op(
      'startCheckout',
      'Start a Stripe Checkout for a top-up',
      { 201: checkoutResponseSchema },
      { errors: [400, 403, 404, 502], idempotent: true },
    ),
    jsonBody(checkoutSchema),
    async (c) => {
      const { payments: settings } = await getSettings(c.env.KV);
      const idempotencyKey = c.req.header('idempotency-key')?.slice(0, 200) || undefined;
      const session: CheckoutResponse = await startCheckout(c.var.db, await stripeClient(c.env), settings, {
        userId: c.var.caller.id,
        cents: c.req.valid('json').usdAmount,
        appUrl: appUrl(c, "Stripe Checkout's return address"),
        idempotencyKey,
      });
      return c.json(session, 201);
    },
  )
  .get(
    '/',
    op('listMyPayments', 'My card top-ups, paged', { 200: paymentsResponseSchema }, { errors: [400] }),
    queryParams(myPaymentsQuery),
    async (c) => c.json(await listMyPayments(c.var.db, c.var.caller.id, c.req.valid('query')), 200),
  )
  .get(
    '/:id',
    op(
      'getMyPayment',
      'One of my top-ups by its Checkout Session id, with my balance',
      { 200: paymentStatusResponseSchema },
      { errors: [400, 404] },
    ),
    pathParams(sessionIdParam),
    async (c) => c.json(await myPaymentStatus(c.var.db, c.var.caller.id, c.req.valid('param').id), 200),
  );
