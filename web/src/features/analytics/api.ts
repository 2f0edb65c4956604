// The owner's analytics for a chosen period.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { analyticsKeys } from './query-keys';

export function useAnalytics(days: number) {
  return useQuery({
    queryKey: analyticsKeys.period(days),
    queryFn: ({ signal }) => api.get('/api/admin/analytics', { days }, signal),
    placeholderData: keepPreviousData,
  });
}

/** Metered usage per product over the period. */
export function useUsageAnalytics(days: number) {
  return useQuery({
    queryKey: analyticsKeys.usage(days),
    queryFn: ({ signal }) => api.get('/api/admin/analytics/usage', { days }, signal),
    placeholderData: keepPreviousData,
  });
}
