// Resellers' server state: the owner's tiers, every reseller's figures and who belongs to whom, and a
// reseller's statistics and customers (their own, or, for the owner, any reseller's).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ResellerTierInput } from '../../../../../worker/modules/resellers/schemas';
import { api } from '../../../lib/api';
import { auditLogKeys } from '../overview/api';
import { purchaseKeys } from '../purchases/api';

export const resellerKeys = {
  all: ['admin', 'resellers'] as const,
  tiers: ['admin', 'resellers', 'tiers'] as const,
  list: (page: number) => ['admin', 'resellers', 'list', page] as const,
  /** `resellerId` null: the caller's own. */
  stats: (resellerId: string | null, days: number) => ['admin', 'resellers', 'stats', resellerId, days] as const,
  customers: (resellerId: string | null, page: number, search: string) =>
    ['admin', 'resellers', 'customers', resellerId, page, search] as const,
};

export function useResellerTiers() {
  return useQuery({ queryKey: resellerKeys.tiers, queryFn: ({ signal }) => api.get('/api/admin/reseller-tiers', undefined, signal) });
}

export function useResellers(page: number) {
  return useQuery({
    queryKey: resellerKeys.list(page),
    queryFn: ({ signal }) => api.get('/api/admin/resellers', { page }, signal),
    placeholderData: keepPreviousData,
  });
}

/** A reseller's statistics: the caller's own (null), or, for the owner, the reseller named. */
export function useResellerStats(resellerId: string | null, days: number) {
  return useQuery({
    queryKey: resellerKeys.stats(resellerId, days),
    queryFn: ({ signal }) =>
      resellerId === null
        ? api.get('/api/reseller/stats', { days }, signal)
        : api.get(`/api/admin/resellers/${resellerId}/stats`, { days }, signal),
    placeholderData: keepPreviousData,
  });
}

export function useResellerCustomers(resellerId: string | null, page: number, search: string, enabled = true) {
  return useQuery({
    enabled,
    queryKey: resellerKeys.customers(resellerId, page, search),
    queryFn: ({ signal }) =>
      resellerId === null
        ? api.get('/api/reseller/customers', { page, search: search.trim() }, signal)
        : api.get(`/api/admin/resellers/${resellerId}/customers`, { page, search: search.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}

/** After a change: the tiers, the resellers' figures and customers, the log, and a reseller's terms. */
function useAfterResellerChange() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: resellerKeys.all }),
      queryClient.invalidateQueries({ queryKey: auditLogKeys.all }),
      queryClient.invalidateQueries({ queryKey: purchaseKeys.terms }),
    ]);
}

export function useSaveTier() {
  const after = useAfterResellerChange();
  return useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: ResellerTierInput }) =>
      id === null ? api.post('/api/admin/reseller-tiers', body) : api.put(`/api/admin/reseller-tiers/${id}`, body),
    onSuccess: after,
  });
}

export function useDeleteTier() {
  const after = useAfterResellerChange();
  return useMutation({ mutationFn: (id: string) => api.delete(`/api/admin/reseller-tiers/${id}`), onSuccess: after });
}

export function useSetResellerTier() {
  const after = useAfterResellerChange();
  return useMutation({
    mutationFn: ({ resellerId, tierId }: { resellerId: string; tierId: string | null }) =>
      api.put(`/api/admin/resellers/${resellerId}/tier`, { tierId }),
    onSuccess: after,
  });
}

export function useSetCustomerReseller() {
  const after = useAfterResellerChange();
  return useMutation({
    mutationFn: ({ customerId, resellerId }: { customerId: string; resellerId: string | null }) =>
      api.put(`/api/admin/users/${customerId}/reseller`, { resellerId }),
    onSuccess: after,
  });
}
