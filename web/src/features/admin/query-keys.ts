// The admin feature's query keys. The `all…` keys are prefixes: invalidating one refreshes every
// page and filter of that list.
import type { AuditQuery, UsersQuery } from './api';
import type { AdminKeysFilters } from './keys-api';
import type { PaymentsQuery } from './payments-api';

export const adminKeys = {
  stats: ['admin', 'stats'] as const,
  allUsers: ['admin', 'users'] as const,
  users: (query: UsersQuery) => ['admin', 'users', query] as const,
  customerChoices: (search: string) => ['admin', 'users', 'choices', search] as const,
  allAuditLog: ['admin', 'audit-log'] as const,
  auditLog: (query: AuditQuery) => ['admin', 'audit-log', query] as const,
  allKeys: ['admin', 'keys'] as const,
  keys: (filters: AdminKeysFilters) => ['admin', 'keys', filters] as const,
  purchaseTerms: ['admin', 'purchase-terms'] as const,
  settings: ['settings', 'admin'] as const,
  payments: (query: PaymentsQuery) => ['admin', 'payments', query] as const,
};
