// The owner's list of card top-ups.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { PaymentsResponse } from '@schemas/payments';
import { api } from '../../lib/api';
import { adminKeys } from './query-keys';

export type PaymentsQuery = { page: number; status: string; user: string };

export function useAdminPayments(query: PaymentsQuery) {
  return useQuery({
    queryKey: adminKeys.payments(query),
    queryFn: ({ signal }) =>
      api.get<PaymentsResponse>('/api/admin/payments', { page: query.page, status: query.status, user: query.user.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}
