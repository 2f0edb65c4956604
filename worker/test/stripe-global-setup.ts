// The Stripe stand-in for the Worker tests, on the port vitest.config.ts gave STRIPE_API_BASE.
import { startStripeStandIn } from '../../scripts/stripe-stand-in';

export default async function setup() {
  const standIn = await startStripeStandIn({ port: Number(process.env.STRIPE_STAND_IN_PORT) });
  return () => standIn.close();
}
