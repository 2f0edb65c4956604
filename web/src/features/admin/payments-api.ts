// The owner's list of card top-ups.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { PaymentsResponse } from '@schemas/payments';
import { api } from '../../lib/api';

export type PaymentsQuery = { page: number; status: string; user: string };

export function useAdminPayments(query: PaymentsQuery) {
  return useQuery({
    queryKey: ['admin', 'payments', query] as const,
    queryFn: ({ signal }) => api.get<PaymentsResponse>('/api/admin/payments', { page: query.page, status: query.status, user: query.user.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}
