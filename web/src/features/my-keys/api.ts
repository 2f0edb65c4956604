// The customer's own keys: paged, filtered, refreshed every 30 s while the tab is visible and
// whenever a purchase anywhere in the app invalidates `myKeysKeys.all` (purchase/after-purchase.ts).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '../../../../worker/platform/api-client';
import { api } from '../../lib/api';
import { MY_KEYS_PAGE_SIZE, MY_KEYS_REFRESH_MS } from '../../lib/constants';
import { myKeysKeys } from './query-keys';
import { KEY_HISTORY_WEB_PAGE_SIZE } from '../../components/KeyHistory';
import type { RegenerateKeyInput, TransferKeyInput } from '../../../../worker/modules/keys/schemas/key-care';
import { invalidateAfterPurchase } from '../../lib/purchase';
import { sessionKeys } from '../../lib/session';

export type MyKeysFilters = { page: number; search: string; status: Schemas['KeyStatus'] | '' };

export function useMyKeys(filters: MyKeysFilters) {
  return useQuery({
    queryKey: myKeysKeys.list(filters),
    queryFn: ({ signal }) =>
      api.get(
        '/api/users/my-keys',
        { page: filters.page, limit: MY_KEYS_PAGE_SIZE, search: filters.search.trim(), status: filters.status },
        signal,
      ),
    placeholderData: keepPreviousData,
    // react-query pauses the interval while the document is hidden (refetchIntervalInBackground is off).
    refetchInterval: MY_KEYS_REFRESH_MS,
    refetchIntervalInBackground: false,
    // Fresh for one refresh period: the app's own changes (a purchase, a removed device) invalidate
    // the list, so reopening the page within that time needs no call.
    staleTime: MY_KEYS_REFRESH_MS,
  });
}

/** Removes a device from one of the customer's keys (once a day per key, the server decides). */
export function useRemoveDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, activationId }: { keyId: string; activationId: string }) =>
      api.delete(`/api/users/my-keys/${encodeURIComponent(keyId)}/activations/${encodeURIComponent(activationId)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKeys.all }),
  });
}

/** Gives the key to another account (proof required); both lists refresh. */
export function useTransferKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, body }: { keyId: string; body: TransferKeyInput }) =>
      api.post(`/api/users/my-keys/${encodeURIComponent(keyId)}/transfer`, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKeys.all }),
  });
}

/** Replaces the key's value (a leaked key); the old one stops working at once. */
export function useRegenerateKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, body }: { keyId: string; body: RegenerateKeyInput }) =>
      api.post(`/api/users/my-keys/${encodeURIComponent(keyId)}/regenerate`, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKeys.all }),
  });
}

/** Renews the key with the customer's credits (one Idempotency-Key per attempt); credits and keys refresh. */
export function useRenewKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, days, idempotencyKey }: { keyId: string; days: number; idempotencyKey: string }) =>
      api.post(`/api/users/my-keys/${encodeURIComponent(keyId)}/renew`, { days }, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: (answer) => {
      queryClient.setQueryData<Schemas['User']>(sessionKeys.profile, (user) =>
        user && answer.remainingCredits !== null ? { ...user, credits: answer.remainingCredits } : user,
      );
    },
    onSettled: () => invalidateAfterPurchase(queryClient),
  });
}

/** Switches the key's auto-renewal on (the days each renewal adds) or off (null). */
export function useSetAutoRenew() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, days }: { keyId: string; days: number | null }) =>
      api.put(`/api/users/my-keys/${encodeURIComponent(keyId)}/auto-renew`, { days }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKeys.all }),
  });
}

/** The keys this account gave to others and received, newest first. */
export function useKeyTransfers(page: number) {
  return useQuery({
    queryKey: myKeysKeys.transfers(page),
    queryFn: ({ signal }) => api.get('/api/users/key-transfers', { page }, signal),
    placeholderData: keepPreviousData,
  });
}

/** One key's device swap budget: how many swaps are left, and when the next is allowed. */
export function useKeySwaps(keyId: string) {
  return useQuery({
    queryKey: myKeysKeys.swaps(keyId),
    queryFn: ({ signal }) => api.get(`/api/users/my-keys/${encodeURIComponent(keyId)}/swaps`, undefined, signal),
    staleTime: MY_KEYS_REFRESH_MS,
  });
}

/** Asks to replace a device: the next new device that activates the key takes its place. */
export function useReplaceDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, activationId }: { keyId: string; activationId: string }) =>
      api.post(`/api/users/my-keys/${encodeURIComponent(keyId)}/activations/${encodeURIComponent(activationId)}/replace`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKeys.all }),
  });
}

/** One page of a key's history (its activity), newest first. */
export const loadMyKeyHistory = (keyId: string) => (page: number, signal: AbortSignal) =>
  api.get(`/api/users/my-keys/${encodeURIComponent(keyId)}/history`, { page, limit: KEY_HISTORY_WEB_PAGE_SIZE }, signal);

/**
 * Air-gapped activation: the request an offline device wrote, turned into the signed response file
 * to carry back to it; and the device's deactivation proof brought back. Both answer a signed file.
 */
export function useOfflineActivation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: Schemas['OfflineActivationRequest']) => api.post('/api/users/my-keys/offline-activations', request),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKeys.all }),
  });
}

export function useOfflineDeactivation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (proof: Schemas['OfflineDeactivationProof']) => api.post('/api/users/my-keys/offline-deactivations', proof),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKeys.all }),
  });
}
