// The Overview's server state: the panel's figures and the audit log. Their keys are the ones the
// other resources refresh after a change (users, keys, products).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { QueryParams } from '../../../../../worker/platform/api-client';
import { api } from '../../../lib/api';

export const overviewKeys = {
  stats: ['admin', 'stats'] as const,
};

export function useAdminStats() {
  return useQuery({
    queryKey: overviewKeys.stats,
    queryFn: ({ signal }) => api.get('/api/admin/stats', undefined, signal),
  });
}

export type AuditQuery = {
  page: number;
  action: NonNullable<QueryParams<'get', '/api/admin/audit-log'>['action']> | '';
  actor: string;
};

/** `all` is a prefix: invalidating it refreshes every page and filter of the log. */
export const auditLogKeys = {
  all: ['admin', 'audit-log'] as const,
  list: (query: AuditQuery) => [...auditLogKeys.all, query] as const,
};

export function useAuditLog(query: AuditQuery) {
  return useQuery({
    queryKey: auditLogKeys.list(query),
    queryFn: ({ signal }) => api.get('/api/admin/audit-log', { page: query.page, action: query.action, actor: query.actor.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}
