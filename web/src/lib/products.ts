// The product catalogue from the server, which the shop, the purchase page and the admin panel read.
// The owner's answer includes inactive products; these screens offer only the active ones, as the
// original client does.
import { useQuery } from '@tanstack/react-query';

import { api } from './api';
import { sharedKeys } from './query-keys';

export const productKeys = { all: sharedKeys.products };

export function useProducts() {
  return useQuery({
    queryKey: productKeys.all,
    queryFn: ({ signal }) => api.get('/api/products', undefined, signal),
    select: (products) => products.filter((p) => p.isActive),
  });
}
