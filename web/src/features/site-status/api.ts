import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { siteStatusKeys } from './query-keys';

/** What every signed-in user's app needs to know of the settings (rate, maintenance, low balance). */
export function usePublicSettings() {
  return useQuery({
    queryKey: siteStatusKeys.publicSettings,
    queryFn: ({ signal }) => api.get('/api/settings/public', undefined, signal),
    staleTime: 60_000,
  });
}
