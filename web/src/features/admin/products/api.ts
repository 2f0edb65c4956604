// Product Management's server state: the whole catalogue (inactive products included) and its changes.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ProductInput } from '../../../../../worker/modules/catalog/schemas';
import { api } from '../../../lib/api';
import { productKeys } from '../../../lib/products';
import { overviewKeys } from '../overview/api';

/** Every product, inactive ones included (the owner's answer), sharing the catalogue's cache. */
export function useAllProducts() {
  return useQuery({ queryKey: productKeys.all, queryFn: ({ signal }) => api.get('/api/products', undefined, signal) });
}

function useAfterProductChange() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: productKeys.all }),
      queryClient.invalidateQueries({ queryKey: overviewKeys.stats }),
    ]);
}

export function useSaveProduct() {
  const after = useAfterProductChange();
  return useMutation({
    mutationFn: ({ id, product }: { id: string | null; product: ProductInput }) =>
      id ? api.put(`/api/products/${id}`, product) : api.post('/api/products', product),
    onSuccess: after,
  });
}

export function useDeleteProduct() {
  const after = useAfterProductChange();
  return useMutation({ mutationFn: (id: string) => api.delete(`/api/products/${id}`), onSuccess: after });
}
