// User Management's server state: the accounts, the customers to pick from for a direct purchase,
// and the changes to accounts.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AddFundsInput, CreateUserInput, UpdateUserInput } from '../../../../../worker/modules/accounts/schemas/admin-users';
import type { QueryParams, Schemas } from '../../../../../worker/platform/api-client';
import { api } from '../../../lib/api';
import { sessionKeys } from '../../../lib/session';
import { auditLogKeys, overviewKeys } from '../overview/api';

type AdminUsersResponse = Schemas['AdminUsersResponse'];
type UserSummary = Schemas['UserSummary'];
type User = Schemas['User'];

export type UsersQuery = { page: number; search: string; role: NonNullable<QueryParams<'get', '/api/admin/users'>['role']> | '' };

/** `all` is a prefix: invalidating it refreshes every page and filter, and the customer choices. */
export const userKeys = {
  all: ['admin', 'users'] as const,
  list: (query: UsersQuery) => [...userKeys.all, query] as const,
  customerChoices: (search: string) => [...userKeys.all, 'choices', search] as const,
};

/** The Users tab is the owner's, who gets full users (a reseller would get summaries). */
const isFullUser = (u: AdminUsersResponse['users'][number] | UserSummary): u is User => 'balance' in u;

export function useAdminUsers(query: UsersQuery) {
  return useQuery({
    queryKey: userKeys.list(query),
    queryFn: ({ signal }) => api.get('/api/admin/users', { page: query.page, search: query.search.trim(), role: query.role }, signal),
    select: (data) => ({ ...data, users: data.users.filter(isFullUser) }),
    placeholderData: keepPreviousData,
  });
}

/** Users to pick a customer from: the first 100 matching the search. */
export function useCustomerChoices(search: string) {
  return useQuery({
    queryKey: userKeys.customerChoices(search),
    queryFn: ({ signal }) => api.get('/api/admin/users', { limit: 100, search: search.trim() }, signal),
    placeholderData: keepPreviousData,
  });
}

/** After any change to accounts: the lists, the figures, the log, and our own balances. */
function useAfterUserChange() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: userKeys.all }),
      queryClient.invalidateQueries({ queryKey: overviewKeys.stats }),
      queryClient.invalidateQueries({ queryKey: auditLogKeys.all }),
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
