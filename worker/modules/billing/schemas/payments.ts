// Card top-ups (Stripe Checkout): the checkout request, the payment lists' queries and the payment
// as every screen and the CLI see it. The bounds of an amount live in the settings, so the server
// checks them against the current document (modules/billing/payments.ts); the shape is checked here.
import { z } from 'zod';
import { DISPUTE_STATUSES, PAYMENT_STATUSES } from '../../../platform/vocabulary';
import { toCents } from './exchange';
import { emptyAsUndefined, pageQuery } from '../../../platform/schemas/paging';

export const INVALID_TOP_UP_MESSAGE = 'Please enter a USD amount with at most two decimals';

export const checkoutSchema = z.object({
  usdAmount: z.unknown().transform((v, ctx) => {
    // A number only: "25" in JSON is a client's mistake worth telling apart from 25.
    const cents = typeof v === 'number' ? toCents(v) : null;
    if (cents === null || cents < 1) {
      ctx.addIssue({ code: 'custom', message: INVALID_TOP_UP_MESSAGE });
      return z.NEVER;
    }
    return cents;
  }),
});

export const MY_PAYMENTS_PAGE_SIZE = 10;
export const ADMIN_PAYMENTS_PAGE_SIZE = 20;

export const myPaymentsQuery = z.object(pageQuery(MY_PAYMENTS_PAGE_SIZE));
export type MyPaymentsQuery = z.infer<typeof myPaymentsQuery>;

export const adminPaymentsQuery = z.object({
  ...pageQuery(ADMIN_PAYMENTS_PAGE_SIZE),
  status: z.preprocess(
    emptyAsUndefined,
    z.enum(PAYMENT_STATUSES, { error: `status must be one of ${PAYMENT_STATUSES.join(', ')}` }).optional(),
  ),
  /** The customer's username, exactly (case-insensitive). */
  user: z.preprocess(emptyAsUndefined, z.string().trim().min(1).max(30, 'user must be at most 30 characters').optional()),
});
export type AdminPaymentsQuery = z.infer<typeof adminPaymentsQuery>;

/** The owner's answers to a reversal. */
export const writeOffResponseSchema = z
  .object({ payment: z.lazy(() => paymentSchema), writtenOff: z.number(), message: z.string() })
  .meta({ id: 'WriteOffResponse' });
export const revokedKeysResponseSchema = z
  .object({ revoked: z.array(z.string()), message: z.string() })
  .meta({ id: 'RevokedKeysResponse' });

export const sessionIdParam = z.object({ id: z.string().regex(/^cs_[A-Za-z0-9_]{1,250}$/, 'Not a Checkout Session id') });

/** A payment as the API shows it; amounts in USD. */
export const paymentSchema = z
  .object({
    _id: z.string(),
    user: z.object({ _id: z.string(), username: z.string().nullable() }).nullable(),
    amount: z.number(),
    status: z.enum(PAYMENT_STATUSES),
    refunded: z.number(),
    refundOwed: z.number().meta({
      description: 'What a refund or dispute could take back neither from the USD balance nor from the credits: owed to the shop.',
    }),
    disputed: z.boolean(),
    disputedAt: z.string().nullable(),
    disputeStatus: z.enum(DISPUTE_STATUSES).nullable().meta({ description: 'open (its amount taken and held), won (given back) or lost.' }),
    heldUntil: z.string().nullable().meta({ description: "A first-time payer's top-up cannot be exchanged before this." }),
    accountFlagged: z.boolean().meta({ description: "The customer's account is flagged for a disputed payment." }),
    createdAt: z.string(),
    paidAt: z.string().nullable(),
  })
  .meta({ id: 'Payment' });
export type Payment = z.infer<typeof paymentSchema>;

export const paymentsResponseSchema = z
  .object({ payments: z.array(paymentSchema), totalPages: z.number(), total: z.number() })
  .meta({ id: 'PaymentsResponse' });
export type PaymentsResponse = z.infer<typeof paymentsResponseSchema>;
export const checkoutResponseSchema = z.object({ id: z.string(), url: z.string() }).meta({ id: 'CheckoutResponse' });
export type CheckoutResponse = z.infer<typeof checkoutResponseSchema>;

/** What /add-balance needs: whether card top-ups are on, their bounds and quick amounts, and what stands in the way. */
export const paymentOptionsSchema = z
  .object({
    enabled: z.boolean(),
    minUsd: z.number(),
    maxUsd: z.number(),
    quickAmounts: z.array(z.number()),
    emailVerified: z.boolean().meta({ description: 'Card top-ups need a verified email address.' }),
    owedUsd: z.number().meta({ description: 'Owed after a reversed card payment: nothing can be spent until it is settled.' }),
    heldUsd: z.number().meta({ description: "USD of a first-time payer's top-ups that cannot be exchanged yet." }),
    heldUntil: z.string().nullable().meta({ description: 'When the last held top-up frees.' }),
  })
  .meta({ id: 'PaymentOptions' });
export type PaymentOptions = z.infer<typeof paymentOptionsSchema>;
/** A payment with the customer's balance, for the return from Checkout. */
export const paymentStatusResponseSchema = z.object({ payment: paymentSchema, balance: z.number() }).meta({ id: 'PaymentStatusResponse' });
export type PaymentStatusResponse = z.infer<typeof paymentStatusResponseSchema>;

/** What a verified Stripe event did; `parked`: a refund or dispute kept until its payment's credit arrives. */
export const STRIPE_EVENT_OUTCOMES = [
  'credited',
  'refunded',
  'disputed',
  'dispute_won',
  'dispute_lost',
  'parked',
  'expired',
  'failed',
  'duplicate',
  'ignored',
] as const;

export type StripeEventOutcome = (typeof STRIPE_EVENT_OUTCOMES)[number];

export const stripeWebhookAnswerSchema = z
  .object({ received: z.literal(true), outcome: z.enum(STRIPE_EVENT_OUTCOMES) })
  .meta({ id: 'StripeWebhookAnswer' });
