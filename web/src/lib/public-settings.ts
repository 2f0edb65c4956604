// The settings every signed-in user may read, which the site notices, the maintenance screen and
// My Keys (the grace period) use.
import { useQuery } from '@tanstack/react-query';

import { api } from './api';

export const publicSettingsKeys = { all: ['settings', 'public'] as const };

/** What every signed-in user's app needs to know of the settings (rate, maintenance, low balance). */
export function usePublicSettings() {
  return useQuery({
    queryKey: publicSettingsKeys.all,
    queryFn: ({ signal }) => api.get('/api/settings/public', undefined, signal),
    staleTime: 60_000,
  });
}
