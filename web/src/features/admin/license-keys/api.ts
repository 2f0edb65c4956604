// License Key Management's server state: the admin list of license keys and the changes to them.
// `useAfterKeyChange` is what every change to keys refreshes (generation and direct purchase too).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BulkDeleteInput } from '../../../../../worker/modules/keys/schemas/admin-keys';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { api } from '../../../lib/api';
import { ADMIN_KEYS_PAGE_SIZE } from '../../../lib/constants';
import { KEY_HISTORY_WEB_PAGE_SIZE } from '../../../components/KeyHistory';
import { productKeys } from '../../../lib/products';
import { auditLogKeys, overviewKeys } from '../overview/api';

type KeyStatus = Schemas['KeyStatus'];

export type LicenseKeyFilters = { page: number; search: string; status: KeyStatus | '' };

/** `all` is a prefix: invalidating it refreshes every page and filter of the list. */
export const licenseKeys = {
  all: ['admin', 'license-keys'] as const,
  list: (filters: LicenseKeyFilters) => [...licenseKeys.all, filters] as const,
  /** A key's history: under the root, so every change to keys refreshes it. */
  history: (keyId: string) => [...licenseKeys.all, 'history', keyId] as const,
};

/** One page of a key's history (its activity), newest first. */
export const loadKeyHistory = (keyId: string) => (page: number, signal: AbortSignal) =>
  api.get(`/api/admin/keys/${encodeURIComponent(keyId)}/history`, { page, limit: KEY_HISTORY_WEB_PAGE_SIZE }, signal);

export function useLicenseKeys(filters: LicenseKeyFilters) {
  return useQuery({
    queryKey: licenseKeys.list(filters),
    queryFn: ({ signal }) =>
      api.get(
        '/api/admin/keys',
        { page: filters.page, limit: ADMIN_KEYS_PAGE_SIZE, search: filters.search.trim(), status: filters.status },
        signal,
      ),
    placeholderData: keepPreviousData,
  });
}

/** After any change to keys: the lists, the overview's figures, the audit log, the product stats. */
export function useAfterKeyChange() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: licenseKeys.all }),
      queryClient.invalidateQueries({ queryKey: overviewKeys.stats }),
      queryClient.invalidateQueries({ queryKey: auditLogKeys.all }),
      queryClient.invalidateQueries({ queryKey: productKeys.all }),
    ]);
}

export function useRevokeKey() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ id, reason }: { id: string; reason: string }) => api.put(`/api/keys/${id}/revoke`, { reason }),
    onSuccess: after,
  });
}

export function useDeleteKey() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/api/admin/keys/${id}`),
    onSuccess: after,
  });
}

export function useBulkDeleteKeys() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: (body: BulkDeleteInput) => api.delete('/api/admin/keys/bulk', body),
    onSuccess: after,
  });
}

export function useRemoveActivation() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ keyId, activationId }: { keyId: string; activationId: string }) =>
      api.delete(`/api/admin/keys/${keyId}/activations/${activationId}`),
    onSuccess: after,
  });
}

/** The owner frees a slot a released device still holds (its offline token may still be in use). */
export function useReleaseHeldSlot() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ keyId, slotId }: { keyId: string; slotId: string }) => api.delete(`/api/admin/keys/${keyId}/held-slots/${slotId}`),
    onSuccess: after,
  });
}

/** The owner ends a floating seat's lease (and borrow) now: the next device may take it. */
export function useReleaseSeat() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ keyId, activationId }: { keyId: string; activationId: string }) =>
      api.post(`/api/admin/keys/${keyId}/activations/${activationId}/release`),
    onSuccess: after,
  });
}

/** A key's entitlements, uses and usage history (its details, owner only). */
export const keyUsageKeys = { of: (keyId: string) => [...licenseKeys.all, 'usage', keyId] as const };

export function useKeyUsage(keyId: string, enabled: boolean) {
  return useQuery({
    queryKey: keyUsageKeys.of(keyId),
    queryFn: ({ signal }) => api.get(`/api/admin/keys/${keyId}/usage`, { page: 1, limit: 20 }, signal),
    enabled,
  });
}

/** The owner sets the entitlements granted to one key beyond its product's. */
export function useSetKeyEntitlements() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ keyId, entitlements }: { keyId: string; entitlements: string[] }) =>
      api.put(`/api/admin/keys/${keyId}/entitlements`, { entitlements }),
    onSuccess: after,
  });
}

/** The owner adds uses to a metered key. */
export function useTopUpKey() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ keyId, amount }: { keyId: string; amount: number }) => api.post(`/api/admin/keys/${keyId}/usage/top-up`, { amount }),
    onSuccess: after,
  });
}
