// The admin panel's server state: stats, users, the audit log and the settings document.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AddFundsInput, CreateUserInput, UpdateUserInput } from '../../../../worker/modules/accounts/schemas/admin-users';
import type { QueryParams } from '../../../../worker/platform/api-client';
import type { Schemas } from '../../../../worker/platform/api-client';
import type { Settings } from '../../../../worker/modules/settings/schemas';
import { api } from '../../lib/api';
import { sessionKeys } from '../../lib/session';
import { adminKeys } from './query-keys';

// The settings form (SettingsTab) seeds its query through this name.
export { adminKeys };

export function useAdminStats() {
  return useQuery({
    queryKey: adminKeys.stats,
    queryFn: ({ signal }) => api.get('/api/admin/stats', undefined, signal),
  });
}

type Filter<P extends string, K extends keyof QueryParams<'get', P>> = NonNullable<QueryParams<'get', P>[K]> | '';
export type UsersQuery = { page: number; search: string; role: Filter<'/api/admin/users', 'role'> };
/** The Users tab is the owner's, who gets full users (a reseller would get summaries). */
const isFullUser = (u: Schemas['AdminUsersResponse']['users'][number] | Schemas['UserSummary']): u is Schemas['User'] => 'balance' in u;

export function useAdminUsers(query: UsersQuery) {
  return useQuery({
    queryKey: adminKeys.users(query),
    queryFn: ({ signal }) => api.get('/api/admin/users', { page: query.page, search: query.search.trim(), role: query.role }, signal),
    select: (data) => ({ ...data, users: data.users.filter(isFullUser) }),
    placeholderData: keepPreviousData,
  });
}

export type AuditQuery = { page: number; action: Filter<'/api/admin/audit-log', 'action'>; actor: string };

export function useAuditLog(query: AuditQuery) {
  return useQuery({
    queryKey: adminKeys.auditLog(query),
    queryFn: ({ signal }) => api.get('/api/admin/audit-log', { page: query.page, action: query.action, actor: query.actor.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}

/** After any change to accounts: the lists, the figures, the log, and our own balances. */
function useAfterUserChange() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: adminKeys.allUsers }),
      queryClient.invalidateQueries({ queryKey: adminKeys.stats }),
      queryClient.invalidateQueries({ queryKey: adminKeys.allAuditLog }),
      queryClient.invalidateQueries({ queryKey: sessionKeys.profile }),
    ]);
}

export function useCreateUser() {
  const after = useAfterUserChange();
  return useMutation({ mutationFn: (body: CreateUserInput) => api.post('/api/admin/users', body), onSuccess: after });
}

export function useUpdateUser() {
  const after = useAfterUserChange();
  return useMutation({
    mutationFn: ({ id, changes }: { id: string; changes: UpdateUserInput }) => api.put(`/api/admin/users/${id}`, changes),
    onSuccess: after,
  });
}

export function useAddFunds() {
  const after = useAfterUserChange();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: AddFundsInput }) => api.post(`/api/admin/users/${id}/balance`, body),
    onSuccess: after,
  });
}

export function useDeleteUser() {
  const after = useAfterUserChange();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/api/admin/users/${id}`),
    onSuccess: after,
  });
}

/** What the server's configuration allows (mail for reset and verification links). */
export const useServerStatus = () =>
  useQuery({ queryKey: [...adminKeys.settings, 'server'], queryFn: ({ signal }) => api.get('/api/settings/server', undefined, signal) });

export function useSettings(enabled: boolean) {
  return useQuery({
    queryKey: adminKeys.settings,
    queryFn: ({ signal }) => api.get('/api/settings', undefined, signal),
    enabled,
    // The form is the editing copy: refetching under the owner's hands would undo their edits.
    refetchOnWindowFocus: false,
  });
}

export const saveSettings = (settings: Settings) => api.put('/api/settings', settings);
export const resetSettings = () => api.post('/api/settings/reset');
