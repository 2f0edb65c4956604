// The owner's list of card top-ups.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { QueryParams } from '../../../../worker/platform/api-client';
import { api } from '../../lib/api';
import { adminKeys } from './query-keys';

export type PaymentsQuery = { page: number; status: NonNullable<QueryParams<'get', '/api/admin/payments'>['status']> | ''; user: string };

export function useAdminPayments(query: PaymentsQuery) {
  return useQuery({
    queryKey: adminKeys.payments(query),
    queryFn: ({ signal }) => api.get('/api/admin/payments', { page: query.page, status: query.status, user: query.user.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}
