// How this account can give step-up proof (its password, a two-factor code, or a recent sign-in),
// read from the security status that the security page also shows (one query, one cache entry).
import { useQuery } from '@tanstack/react-query';
import { api } from './api';
import { sharedKeys } from './query-keys';

export function useStepUpAccount() {
  return useQuery({
    queryKey: sharedKeys.securityInfo,
    queryFn: ({ signal }) => api.get('/api/users/security', undefined, signal),
    select: (info) => ({ hasPassword: info.hasPassword, twoFactorEnabled: info.twoFactorEnabled }),
  });
}
