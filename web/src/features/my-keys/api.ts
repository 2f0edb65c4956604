// The customer's own keys: paged, filtered, refreshed every 30 s while the tab is visible and
// whenever a purchase anywhere in the app fires `keyPurchased`.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { KeyStatus, MyKeysResponse } from '@schemas/entities';
import { api } from '../../lib/api';
import { MY_KEYS_PAGE_SIZE, MY_KEYS_REFRESH_MS } from '../../lib/constants';
import { KEY_PURCHASED_EVENT } from '../purchase';

export type MyKeysFilters = { page: number; search: string; status: KeyStatus | '' };

export const myKeysKey = ['my-keys'] as const;

export function useMyKeys(filters: MyKeysFilters) {
  const query = useQuery({
    queryKey: [...myKeysKey, filters],
    queryFn: ({ signal }) =>
      api.get<MyKeysResponse>('/api/users/my-keys', { page: filters.page, limit: MY_KEYS_PAGE_SIZE, search: filters.search.trim(), status: filters.status }, signal),
    placeholderData: keepPreviousData,
    // react-query pauses the interval while the document is hidden (refetchIntervalInBackground is off).
    refetchInterval: MY_KEYS_REFRESH_MS,
    refetchIntervalInBackground: false,
  });
  const { refetch } = query;
  useEffect(() => {
    const onPurchase = () => void refetch();
    window.addEventListener(KEY_PURCHASED_EVENT, onPurchase);
    return () => window.removeEventListener(KEY_PURCHASED_EVENT, onPurchase);
  }, [refetch]);
  return query;
}

/** Removes a device from one of the customer's keys (once a day per key, the server decides). */
export function useRemoveDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, activationId }: { keyId: string; activationId: string }) =>
      api.delete<{ success: boolean; message: string; slotFreesAt?: string }>(`/api/users/my-keys/${encodeURIComponent(keyId)}/activations/${encodeURIComponent(activationId)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: myKeysKey }),
  });
}
