// The owner's list of card top-ups.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { QueryParams } from '../../../../../worker/platform/api-client';
import { api } from '../../../lib/api';

export type PaymentsQuery = { page: number; status: NonNullable<QueryParams<'get', '/api/admin/payments'>['status']> | ''; user: string };

/** `all` is a prefix: invalidating it refreshes every page and filter of the list. */
export const paymentKeys = {
  all: ['admin', 'payments'] as const,
  list: (query: PaymentsQuery) => [...paymentKeys.all, query] as const,
};

export function useAdminPayments(query: PaymentsQuery) {
  return useQuery({
    queryKey: paymentKeys.list(query),
    queryFn: ({ signal }) => api.get('/api/admin/payments', { page: query.page, status: query.status, user: query.user.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}
