import { useQuery } from '@tanstack/react-query';
import type { DashboardStats } from '@schemas/entities';
import { api } from '../../lib/api';

export const statsKey = ['stats'] as const;

export function useDashboardStats() {
  return useQuery({ queryKey: statsKey, queryFn: ({ signal }) => api.get<DashboardStats>('/api/users/stats', undefined, signal) });
}
