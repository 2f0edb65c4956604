// The exchange rate and the exchange itself.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../lib/api';
import { DEFAULT_EXCHANGE_RATE } from '../../lib/constants';
import { sessionKeys } from '../../lib/session';
import { exchangeKeys } from './query-keys';

/** The current rate; while it cannot be loaded the spec keeps 10 and only logs the failure. */
export function useExchangeRate() {
  const query = useQuery({
    queryKey: exchangeKeys.rate,
    queryFn: ({ signal }) => api.get('/api/credits/exchange-rate', undefined, signal),
  });
  useEffect(() => {
    if (query.isError) console.error('Failed to load the exchange rate', query.error);
  }, [query.isError, query.error]);
  return { rate: query.data?.rate ?? DEFAULT_EXCHANGE_RATE, loaded: query.isSuccess, refetch: query.refetch };
}

export type ExchangeRequest = { usdAmount: number; creditsToAdd: number; idempotencyKey: string };

export function useExchange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ usdAmount, creditsToAdd, idempotencyKey }: ExchangeRequest) =>
      api.post('/api/credits/exchange', { usdAmount, creditsToAdd }, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: (answer) => {
      queryClient.setQueryData(sessionKeys.profile, answer.user);
      void queryClient.invalidateQueries({ queryKey: sessionKeys.profile });
    },
  });
}
