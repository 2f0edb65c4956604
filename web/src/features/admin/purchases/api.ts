// Direct Purchase's server state: the terms (switches and the reseller discount) and buying a key for
// a customer, which changes keys, the customer's account and, when the owner buys for themselves,
// their own keys and figures.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PurchaseForUserInput } from '../../../../../worker/modules/resellers/schemas';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { api } from '../../../lib/api';
import { invalidateAfterPurchase } from '../../../lib/purchase';
import { sessionKeys } from '../../../lib/session';
import { useAfterKeyChange } from '../license-keys/api';
import { userKeys } from '../users/api';

type User = Schemas['User'];

export const purchaseKeys = {
  terms: ['admin', 'purchase-terms'] as const,
};

export function usePurchaseTerms() {
  return useQuery({
    queryKey: purchaseKeys.terms,
    queryFn: ({ signal }) => api.get('/api/admin/purchase-terms', undefined, signal),
  });
}

export type PurchaseForUserRequest = { userId: string; productId: string; body: PurchaseForUserInput; idempotencyKey: string };

export function usePurchaseForUser() {
  const queryClient = useQueryClient();
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: ({ userId, productId, body, idempotencyKey }: PurchaseForUserRequest) =>
      api.post(`/api/admin/users/${userId}/purchase/${productId}`, body, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: async (answer) => {
      queryClient.setQueryData<User>(sessionKeys.profile, (user) => (user ? { ...user, credits: answer.resellerCredits } : user));
      // The buyer may be the owner themselves: their keys and figures change as a customer's would.
      await Promise.all([
        after(),
        invalidateAfterPurchase(queryClient),
        queryClient.invalidateQueries({ queryKey: userKeys.all }),
        // A tier's keys bought today, and a reseller's statistics.
        queryClient.invalidateQueries({ queryKey: purchaseKeys.terms }),
        queryClient.invalidateQueries({ queryKey: ['admin', 'resellers'] }),
      ]);
    },
  });
}
