// The Settings tab's server state: the settings document, and what the server's configuration allows.
import { useQuery } from '@tanstack/react-query';
import type { Settings } from '../../../../../worker/modules/settings/schemas';
import { api } from '../../../lib/api';

export const settingsKeys = {
  all: ['settings', 'admin'] as const,
  server: ['settings', 'admin', 'server'] as const,
};

/** What the server's configuration allows (mail for reset and verification links). */
export const useServerStatus = () =>
  useQuery({ queryKey: settingsKeys.server, queryFn: ({ signal }) => api.get('/api/settings/server', undefined, signal) });

export function useSettings(enabled: boolean) {
  return useQuery({
    queryKey: settingsKeys.all,
    queryFn: ({ signal }) => api.get('/api/settings', undefined, signal),
    enabled,
    // The form is the editing copy: refetching under the owner's hands would undo their edits.
    refetchOnWindowFocus: false,
  });
}

export const saveSettings = (settings: Settings) => api.put('/api/settings', settings);
export const resetSettings = () => api.post('/api/settings/reset');
