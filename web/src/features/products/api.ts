// The product catalogue from the server. The owner's answer includes inactive products; every
// screen of this feature offers only the active ones, as the spec's client does.
import { useQuery } from '@tanstack/react-query';
import type { Product } from '@schemas/entities';
import { api } from '../../lib/api';

export const productsKey = ['products'] as const;

export function useProducts() {
  return useQuery({
    queryKey: productsKey,
    queryFn: ({ signal }) => api.get<Product[]>('/api/products', undefined, signal),
    select: (products) => products.filter((p) => p.isActive),
  });
}
