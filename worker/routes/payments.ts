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
import { documented } from '../lib/openapi';

export const paymentsRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .get(
    '/options',
    documented({
      operationId: 'getPaymentOptions',
      summary: 'Whether card top-ups are on, and their bounds',
      tag: 'Payments',
      access: 'user',
      responses: { 200: { description: 'OK', schema: paymentOptionsSchema } },
    }),
    async (c) => c.json(paymentOptions((await getSettings(c.env.KV)).payments, stripeConfigured(c.env)), 200),
  )
  .post(
    '/checkout',
    documented({
      operationId: 'startCheckout',
      summary: 'Start a Stripe Checkout for a top-up',
      tag: 'Payments',
      access: 'user',
      responses: { 201: { description: 'Created', schema: checkoutResponseSchema } },
      errors: [400, 403, 501, 502],
      idempotent: true,
    }),
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
    documented({
      operationId: 'listMyPayments',
      summary: 'My card top-ups, paged',
      tag: 'Payments',
      access: 'user',
      responses: { 200: { description: 'OK', schema: paymentsResponseSchema } },
      errors: [400],
    }),
    queryParams(myPaymentsQuery),
    async (c) => c.json(await listMyPayments(c.var.db, c.var.caller.id, c.req.valid('query')), 200),
  )
  .get(
    '/:id',
    documented({
      operationId: 'getMyPayment',
      summary: 'One of my top-ups by its Checkout Session id, with my balance',
      tag: 'Payments',
      access: 'user',
      responses: { 200: { description: 'OK', schema: paymentStatusResponseSchema } },
      errors: [400, 404],
    }),
    pathParams(sessionIdParam),
    async (c) => c.json(await myPaymentStatus(c.var.db, c.var.caller.id, c.req.valid('param').id), 200),
  );
