// Server state of the API tokens section: the list, creating one (its secret shown once) and revoking.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreateApiTokenInput } from '../../../../worker/modules/accounts/schemas/api-tokens';
import type { StepUpProof } from '../../components/StepUp';
import { api } from '../../lib/api';
import { securityKeys } from './query-keys';

export function useApiTokens() {
  return useQuery({
    queryKey: securityKeys.apiTokens,
    queryFn: ({ signal }) => api.get('/api/users/api-tokens', undefined, signal),
    select: (data) => data.tokens,
  });
}

/** The security log gains an entry with each change, so the whole security state is refreshed. */
function useRefresh() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: securityKeys.all });
}

export function useCreateApiToken() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: CreateApiTokenInput & StepUpProof) => api.post('/api/users/api-tokens', body),
    onSuccess: refresh,
  });
}

export function useRevokeApiToken() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/api/users/api-tokens/${encodeURIComponent(id)}`),
    onSuccess: refresh,
  });
}
