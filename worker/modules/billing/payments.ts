// Card top-ups, the customer's side: starting a Stripe Checkout Session for an amount within the
// owner's bounds, and the payment lists. The money moves only in stripe-events.ts, on Stripe's
// verified webhook; a pending payment here is a promise of nothing.
import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { runtimeLimit } from '../../platform/db/compiled';
import { payments, users } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import type { Stripe } from './stripe';
import type {
  AdminPaymentsQuery,
  MyPaymentsQuery,
  Payment,
  PaymentOptions,
  PaymentsResponse,
  PaymentStatusResponse,
} from './schemas/payments';
import { standingQuery, toStanding } from './spending';
import { findUserById } from '../accounts';
import type { PaymentSettings } from '../settings';

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/**
 * Card top-ups are on when the owner allows them and a Stripe secret key is configured; with them,
 * what the account's page shows: whether the address is verified (a card top-up needs it), what is
 * owed after a reversal and what is held.
 */
export async function paymentOptions(
  db: DB,
  userId: string,
  settings: PaymentSettings,
  stripeConfigured: boolean,
): Promise<PaymentOptions> {
  // One round trip: the address's state and the standing.
  const [user, standing] = await db.batch([
    db.select({ verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, userId)),
    standingQuery(db, userId),
  ]);
  return {
    enabled: settings.cardTopUpsEnabled && stripeConfigured,
    minUsd: settings.minTopUpUsd,
    maxUsd: settings.maxTopUpUsd,
    quickAmounts: settings.quickTopUpAmounts,
    emailVerified: Boolean(user[0]?.verifiedAt),
    ...toStanding(standing[0]),
  };
}

/** A card payment needs a proven address: otherwise a stranger's address could take the payments. */
export const emailUnverified = () =>
  new AppError(
    'EMAIL_UNVERIFIED',
    'Please verify your email address first: open the link we sent you, or send it again from your account.',
  );

export type CheckoutOrder = {
  userId: string;
  cents: number;
  /** The app's public origin: Checkout sends the customer back to /add-balance there. */
  appUrl: string;
  /** The client's Idempotency-Key, so a retried click opens the same Checkout Session. */
  idempotencyKey?: string;
  now?: number;
};

export async function startCheckout(db: DB, stripe: Stripe | null, settings: PaymentSettings, order: CheckoutOrder) {
  if (!stripe || !settings.cardTopUpsEnabled) throw new AppError('PAYMENTS_DISABLED', 'Card top-ups are turned off');
  const min = Math.round(settings.minTopUpUsd * 100);
  const max = Math.round(settings.maxTopUpUsd * 100);
  if (order.cents < min || order.cents > max) {
    throw new AppError('VALIDATION_ERROR', `A top-up must be between ${dollars(min)} and ${dollars(max)}`, {
      details: { field: 'usdAmount', minUsd: min / 100, maxUsd: max / 100 },
    });
  }
  const user = await findUserById(db, order.userId);
  if (!user) throw notFound('User');
  if (!user.emailVerifiedAt) throw emailUnverified();
  if (user.paymentFlaggedAt) {
    throw new AppError('PAYMENTS_DISABLED', 'Card top-ups are paused for your account after a disputed payment. Please contact the shop.');
  }

  const session = await createSession(stripe, user, order);
  // Written only once Stripe has the session: a failure above leaves no pending payment behind.
  await db
    .insert(payments)
    .values({ id: session.id, userId: user.id, amountCents: order.cents, status: 'pending', createdAt: new Date(order.now ?? Date.now()) })
    .onConflictDoNothing();
  return { id: session.id, url: session.url };
}

async function createSession(stripe: Stripe, user: { id: string; email: string }, order: CheckoutOrder) {
  const key = `topup:${user.id}:${order.idempotencyKey ?? crypto.randomUUID()}`;
  try {
    const session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: order.cents, product_data: { name: 'Balance top-up' } } }],
        client_reference_id: user.id,
        customer_email: user.email,
        metadata: { userId: user.id },
        success_url: `${order.appUrl}/add-balance?payment={CHECKOUT_SESSION_ID}`,
        cancel_url: `${order.appUrl}/add-balance?cancelled=1`,
      },
      { idempotencyKey: key },
    );
    if (!session.url || !/^cs_/.test(session.id)) throw new Error('Checkout Session without a URL');
    return { id: session.id, url: session.url };
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'StripeIdempotencyError') {
      throw new AppError('CONFLICT', 'This payment request was already used for another amount. Please start again.');
    }
    console.error('Stripe Checkout Session not created', type ?? err);
    throw new AppError(
      'PAYMENT_PROVIDER_ERROR',
      'The payment provider could not be reached. Nothing was charged; please try again in a moment.',
    );
  }
}

const paymentColumns = { payment: payments, username: users.username, flaggedAt: users.paymentFlaggedAt };
type PaymentRow = { payment: typeof payments.$inferSelect; username: string | null; flaggedAt: Date | null };

export function toPaymentJson({ payment: p, username, flaggedAt }: PaymentRow): Payment {
  return {
    _id: p.id,
    user: { _id: p.userId, username },
    amount: p.amountCents / 100,
    status: p.status,
    refunded: p.refundedCents / 100,
    refundOwed: p.refundOwedCents / 100,
    disputed: p.disputeId !== null,
    disputedAt: p.disputedAt ? p.disputedAt.toISOString() : null,
    disputeStatus: p.disputeStatus,
    heldUntil: p.heldUntil ? p.heldUntil.toISOString() : null,
    accountFlagged: flaggedAt !== null,
    createdAt: p.createdAt.toISOString(),
    paidAt: p.paidAt ? p.paidAt.toISOString() : null,
  };
}

/** One page of payments, newest first, with its total: one D1 round trip. */
async function pageOfPayments(db: DB, where: SQL | undefined, page: number, limit: number): Promise<PaymentsResponse> {
  const [rows, totals] = await db.batch([
    db
      .select(paymentColumns)
      .from(payments)
      .leftJoin(users, eq(users.id, payments.userId))
      .where(where)
      .orderBy(desc(payments.createdAt), desc(payments.id))
      .limit(runtimeLimit(limit))
      .offset(runtimeLimit((page - 1) * limit)),
    db.select({ n: count() }).from(payments).leftJoin(users, eq(users.id, payments.userId)).where(where),
  ]);
  const total = totals[0]?.n ?? 0;
  return { payments: rows.map(toPaymentJson), totalPages: Math.ceil(total / limit), total };
}

export const listMyPayments = (db: DB, userId: string, query: MyPaymentsQuery) =>
  pageOfPayments(db, eq(payments.userId, userId), query.page, query.limit);

/** The owner's list: every payment, filtered by status and by the customer's username. */
export const listPayments = (db: DB, query: AdminPaymentsQuery) =>
  pageOfPayments(
    db,
    and(
      query.status ? eq(payments.status, query.status) : undefined,
      query.user ? sql`lower(${users.username}) = ${query.user.toLowerCase()}` : undefined,
    ),
    query.page,
    query.limit,
  );

/** One of the customer's own payments with their balance: what the return from Checkout polls. */
export async function myPaymentStatus(db: DB, userId: string, sessionId: string): Promise<PaymentStatusResponse> {
  const [found, balance] = await db.batch([
    db
      .select(paymentColumns)
      .from(payments)
      .leftJoin(users, eq(users.id, payments.userId))
      .where(and(eq(payments.id, sessionId), eq(payments.userId, userId))),
    db.select({ cents: users.balanceCents }).from(users).where(eq(users.id, userId)),
  ]);
  if (!found[0]) throw notFound('Payment');
  return { payment: toPaymentJson(found[0]), balance: (balance[0]?.cents ?? 0) / 100 };
}

/** One payment as the owner's list shows it. */
export async function adminPayment(db: DB, id: string): Promise<Payment> {
  const row = await db
    .select(paymentColumns)
    .from(payments)
    .leftJoin(users, eq(users.id, payments.userId))
    .where(eq(payments.id, id))
    .get();
  if (!row) throw notFound('Payment');
  return toPaymentJson(row);
}
