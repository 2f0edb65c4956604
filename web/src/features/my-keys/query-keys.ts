// The my-keys feature's query keys: the customer's own keys, one entry per page and filter, under the
// root a purchase refreshes.
import { sharedKeys } from '../../lib/query-keys';
import type { MyKeysFilters } from './api';

export const myKeysKeys = {
  all: sharedKeys.myKeys,
  list: (filters: MyKeysFilters) => [...sharedKeys.myKeys, filters] as const,
  /** Under the same root: a transfer refreshes the keys and the transfers together. */
  transfers: (page: number) => [...sharedKeys.myKeys, 'transfers', page] as const,
  swaps: (keyId: string) => [...sharedKeys.myKeys, 'swaps', keyId] as const,
  /** A key's history: under the root, so the key's own changes refresh it. */
  history: (keyId: string) => [...sharedKeys.myKeys, 'history', keyId] as const,
};
