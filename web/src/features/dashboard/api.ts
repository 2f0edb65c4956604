import { useQuery } from '@tanstack/react-query';
import type { DashboardStats } from '@schemas/entities';
import { api } from '../../lib/api';
import { dashboardKeys } from './query-keys';

export function useDashboardStats() {
  return useQuery({
    queryKey: dashboardKeys.stats,
    queryFn: ({ signal }) => api.get<DashboardStats>('/api/users/stats', undefined, signal),
  });
}
