import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { dashboardKeys } from './query-keys';

export function useDashboardStats() {
  return useQuery({
    queryKey: dashboardKeys.stats,
    queryFn: ({ signal }) => api.get('/api/users/stats', undefined, signal),
  });
}
