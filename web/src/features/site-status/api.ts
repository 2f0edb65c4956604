import { useQuery } from '@tanstack/react-query';
import type { PublicSettings } from '@schemas/settings';
import { api } from '../../lib/api';

export const publicSettingsKey = ['settings', 'public'] as const;

/** What every signed-in user's app needs to know of the settings (rate, maintenance, low balance). */
export function usePublicSettings() {
  return useQuery({
    queryKey: publicSettingsKey,
    queryFn: ({ signal }) => api.get<PublicSettings>('/api/settings/public', undefined, signal),
    staleTime: 60_000,
  });
}
