// Where the billing module's routes are mounted: credits, card top-ups and Stripe's webhook.
import { adminPaymentsRoutes } from './routes/admin-payments';
import { creditsRoutes } from './routes/credits';
import { paymentsRoutes } from './routes/payments';
import { paymentsStripeRoutes } from './routes/payments-stripe';

export const billingMounts = [
  ['/api/credits', creditsRoutes],
  ['/api/payments/stripe', paymentsStripeRoutes],
  ['/api/payments', paymentsRoutes],
  ['/api/admin/payments', adminPaymentsRoutes],
] as const;
