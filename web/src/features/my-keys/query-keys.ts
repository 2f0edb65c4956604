// The my-keys feature's query keys: the customer's own keys, one entry per page and filter.
import type { MyKeysFilters } from './api';

export const myKeysKeys = {
  all: ['my-keys'] as const,
  list: (filters: MyKeysFilters) => ['my-keys', filters] as const,
};
