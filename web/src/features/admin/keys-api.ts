// Server state of the key management tabs: the admin key list and its changes, generation, the
// purchase for a customer, and the owner's product catalogue.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BulkDeleteInput, GenerateKeysInput } from '../../../../worker/modules/keys/schemas/admin-keys';
import type { Schemas } from '../../../../worker/platform/api-client';
import type { ProductInput } from '../../../../worker/modules/catalog/schemas';
import { api } from '../../lib/api';
import { ADMIN_KEYS_PAGE_SIZE } from '../../lib/constants';
import { sessionKeys } from '../../lib/session';
import { productKeys } from '../../lib/products';
import { invalidateAfterPurchase } from '../../lib/purchase';
import { adminKeys } from './query-keys';
import { type PurchaseForUserInput } from '../../../../worker/modules/resellers/schemas';

export type AdminKeysFilters = { page: number; search: string; status: Schemas['KeyStatus'] | '' };

export function useAdminKeys(filters: AdminKeysFilters) {
  return useQuery({
    queryKey: adminKeys.keys(filters),
    queryFn: ({ signal }) =>
      api.get(
        '/api/admin/keys',
        { page: filters.page, limit: ADMIN_KEYS_PAGE_SIZE, search: filters.search.trim(), status: filters.status },
        signal,
      ),
    placeholderData: keepPreviousData,
  });
}

/** After any change to keys: the lists, the overview's figures, the product stats. */
function useAfterKeyChange() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: adminKeys.allKeys }),
      queryClient.invalidateQueries({ queryKey: adminKeys.stats }),
      queryClient.invalidateQueries({ queryKey: adminKeys.allAuditLog }),
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

export function useGenerateKeys() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: (body: GenerateKeysInput) => api.post('/api/keys/generate', body),
    onSuccess: after,
  });
}

export function usePurchaseTerms() {
  return useQuery({
    queryKey: adminKeys.purchaseTerms,
    queryFn: ({ signal }) => api.get('/api/admin/purchase-terms', undefined, signal),
  });
}

/** Users to pick a customer from: the first 100 matching the search. */
export function useCustomerChoices(search: string) {
  return useQuery({
    queryKey: adminKeys.customerChoices(search),
    queryFn: ({ signal }) => api.get('/api/admin/users', { limit: 100, search: search.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}

export type PurchaseForUserRequest = { userId: string; productId: string; body: PurchaseForUserInput; idempotencyKey: string };

export function usePurchaseForUser() {
  const queryClient = useQueryClient();
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ userId, productId, body, idempotencyKey }: PurchaseForUserRequest) =>
      api.post(`/api/admin/users/${userId}/purchase/${productId}`, body, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: async (answer) => {
      queryClient.setQueryData<Schemas['User']>(sessionKeys.profile, (user) =>
        user ? { ...user, credits: answer.resellerCredits } : user,
      );
      // The buyer may be the owner themselves: their keys and figures change as a customer's would.
      await Promise.all([after(), invalidateAfterPurchase(queryClient), queryClient.invalidateQueries({ queryKey: adminKeys.allUsers })]);
    },
  });
}

/** Every product, inactive ones included (the owner's answer), sharing the catalogue's cache. */
export function useAllProducts() {
  return useQuery({ queryKey: productKeys.all, queryFn: ({ signal }) => api.get('/api/products', undefined, signal) });
}

function useAfterProductChange() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: productKeys.all }),
      queryClient.invalidateQueries({ queryKey: adminKeys.stats }),
    ]);
}

export function useSaveProduct() {
  const after = useAfterProductChange();
  return useMutation({
    mutationFn: ({ id, product }: { id: string | null; product: ProductInput }) =>
      id ? api.put(`/api/products/${id}`, product) : api.post('/api/products', product),
    onSuccess: after,
  });
}

export type ProductRemoval = { success: true; deleted: boolean; deactivated?: boolean; message: string };

export function useDeleteProduct() {
  const after = useAfterProductChange();
  return useMutation({ mutationFn: (id: string) => api.delete(`/api/products/${id}`), onSuccess: after });
}
