// Server state of the Webhooks view: endpoints with their health, and each endpoint's deliveries.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreatedWebhookEndpoint, CreateWebhookInput, UpdateWebhookInput, WebhookDelivery, WebhookEndpoint } from '@schemas/webhooks';
import { api, apiRequest } from '../../lib/api';

export const webhooksKey = ['webhooks'] as const;
const path = (id: string) => `/api/webhooks/${encodeURIComponent(id)}`;

export function useWebhookEndpoints() {
  return useQuery({
    queryKey: [...webhooksKey, 'endpoints'],
    queryFn: ({ signal }) => api.get<{ endpoints: WebhookEndpoint[] }>('/api/webhooks', undefined, signal),
    select: (data) => data.endpoints,
    // Health changes as deliveries land.
    refetchInterval: 15_000,
  });
}

export function useDeliveries(endpointId: string, page: number) {
  return useQuery({
    queryKey: [...webhooksKey, 'deliveries', endpointId, page],
    queryFn: ({ signal }) =>
      api.get<{ deliveries: WebhookDelivery[]; total: number; totalPages: number }>(
        `${path(endpointId)}/deliveries`,
        { page, limit: 20 },
        signal,
      ),
    refetchInterval: 5_000,
  });
}

function useRefresh() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: webhooksKey });
}

export function useCreateWebhook() {
  const onSuccess = useRefresh();
  return useMutation({ mutationFn: (body: CreateWebhookInput) => api.post<CreatedWebhookEndpoint>('/api/webhooks', body), onSuccess });
}

export function useUpdateWebhook() {
  const onSuccess = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateWebhookInput }) => apiRequest<WebhookEndpoint>('PATCH', path(id), { body }),
    onSuccess,
  });
}

export function useDeleteWebhook() {
  const onSuccess = useRefresh();
  return useMutation({ mutationFn: (id: string) => api.delete<{ message: string }>(path(id)), onSuccess });
}

export function useRotateSecret() {
  const onSuccess = useRefresh();
  return useMutation({ mutationFn: (id: string) => api.post<{ id: string; secret: string }>(`${path(id)}/rotate-secret`), onSuccess });
}

export function useSendTest() {
  const onSuccess = useRefresh();
  return useMutation({ mutationFn: (id: string) => api.post<{ eventId: string }>(`${path(id)}/test`), onSuccess });
}

export function useRedeliver() {
  const onSuccess = useRefresh();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      api.post<{ delivery: WebhookDelivery }>(`/api/webhooks/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
    onSuccess,
  });
}
