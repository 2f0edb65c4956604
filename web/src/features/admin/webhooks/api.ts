// Server state of the Webhooks view: endpoints with their health, and each endpoint's deliveries.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreateWebhookInput, RotateWebhookSecretInput, UpdateWebhookInput } from '../../../../../worker/modules/webhooks/schemas';
import { api } from '../../../lib/api';

export const webhooksKey = ['webhooks'] as const;
const path = (id: string) => `/api/webhooks/${encodeURIComponent(id)}` as const;

export function useWebhookEndpoints() {
  return useQuery({
    queryKey: [...webhooksKey, 'endpoints'],
    queryFn: ({ signal }) => api.get('/api/webhooks', undefined, signal),
    select: (data) => data.endpoints,
    // Health changes as deliveries land.
    refetchInterval: 15_000,
  });
}

export function useDeliveries(endpointId: string, page: number) {
  return useQuery({
    queryKey: [...webhooksKey, 'deliveries', endpointId, page],
    queryFn: ({ signal }) => api.get(`${path(endpointId)}/deliveries`, { page, limit: 20 }, signal),
    refetchInterval: 5_000,
  });
}

function useRefresh() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: webhooksKey });
}

export function useCreateWebhook() {
  const onSuccess = useRefresh();
  return useMutation({ mutationFn: (body: CreateWebhookInput) => api.post('/api/webhooks', body), onSuccess });
}

export function useUpdateWebhook() {
  const onSuccess = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateWebhookInput }) => api.patch(path(id), body),
    onSuccess,
  });
}

export function useDeleteWebhook() {
  const onSuccess = useRefresh();
  return useMutation({ mutationFn: (id: string) => api.delete(path(id)), onSuccess });
}

export function useRotateSecret() {
  const onSuccess = useRefresh();
  return useMutation({
    mutationFn: ({ id, proof }: { id: string; proof: RotateWebhookSecretInput }) => api.post(`${path(id)}/rotate-secret`, proof),
    onSuccess,
  });
}

export function useSendTest() {
  const onSuccess = useRefresh();
  return useMutation({ mutationFn: (id: string) => api.post(`${path(id)}/test`), onSuccess });
}

export function useRedeliver() {
  const onSuccess = useRefresh();
  return useMutation({
    mutationFn: (deliveryId: string) => api.post(`/api/webhooks/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
    onSuccess,
  });
}
