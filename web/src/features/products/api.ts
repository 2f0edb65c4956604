// The product catalogue from the server. The owner's answer includes inactive products; every
// screen of this feature offers only the active ones, as the original client does.
import { useQuery } from '@tanstack/react-query';
import type { Product } from '@schemas/entities';
import { api } from '../../lib/api';
import { productKeys } from './query-keys';

export function useProducts() {
  return useQuery({
    queryKey: productKeys.all,
    queryFn: ({ signal }) => api.get<Product[]>('/api/products', undefined, signal),
    select: (products) => products.filter((p) => p.isActive),
  });
}
