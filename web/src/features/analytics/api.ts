// The owner's analytics for a chosen period.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Analytics } from '@schemas/analytics';
import { api } from '../../lib/api';

export function useAnalytics(days: number) {
  return useQuery({
    queryKey: ['admin', 'analytics', days],
    queryFn: ({ signal }) => api.get<Analytics>('/api/admin/analytics', { days }, signal),
    placeholderData: keepPreviousData,
  });
}
