// Card top-ups: whether they are on, starting a Checkout, the customer's own payments, and one
// payment's status while the return from Checkout waits for Stripe's webhook.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { sessionKeys } from '../../lib/session';
import { paymentKeys } from './query-keys';

export { paymentKeys };

/** How often the return from Checkout asks, and for how long before it says it is still waiting. */
export const PAYMENT_POLL_MS = 1_500;
export const PAYMENT_WAIT_MS = 60_000;

export const usePaymentOptions = () =>
  useQuery({ queryKey: paymentKeys.options, queryFn: ({ signal }) => api.get('/api/payments/options', undefined, signal) });

export const useMyPayments = (page: number) =>
  useQuery({
    queryKey: paymentKeys.minePage(page),
    queryFn: ({ signal }) => api.get('/api/payments', { page }, signal),
    placeholderData: (previous) => previous,
  });

/** Polls one payment until it is no longer pending (or `polling` turns false). */
export function usePaymentStatus(id: string, polling: boolean) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: paymentKeys.one(id),
    queryFn: async ({ signal }) => {
      const answer = await api.get(`/api/payments/${encodeURIComponent(id)}`, undefined, signal);
      if (answer.payment.status !== 'pending') {
        // The credit landed: the header's balance and the list catch up.
        void queryClient.invalidateQueries({ queryKey: sessionKeys.profile });
        void queryClient.invalidateQueries({ queryKey: paymentKeys.mine });
      }
      return answer;
    },
    refetchInterval: (query) => (polling && (!query.state.data || query.state.data.payment.status === 'pending') ? PAYMENT_POLL_MS : false),
    retry: (count, err) => count < 2 && !(err as { status?: number }).status,
  });
}

export function useStartCheckout() {
  return useMutation({
    mutationFn: ({ usdAmount, idempotencyKey }: { usdAmount: number; idempotencyKey: string }) =>
      api.post('/api/payments/checkout', { usdAmount }, { 'Idempotency-Key': idempotencyKey }),
  });
}
