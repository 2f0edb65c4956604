// Buying a key: the call, what it refreshes afterwards, and how a refusal reads.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PurchaseShortfall, User } from '@schemas/entities';
import { api, ApiError, errorMessage } from '../../lib/api';
import { formatCredits } from '../../lib/format';
import { sessionKeys } from '../../lib/session';
import { invalidateAfterPurchase } from './after-purchase';

export type PurchaseRequest = { productId: string; duration: number; idempotencyKey: string };

export function usePurchase() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ productId, duration, idempotencyKey }: PurchaseRequest) =>
      api.post('/api/keys/purchase', { productId, duration }, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: (answer) => {
      // The header shows the new credits at once; the refetch brings the rest of the profile.
      queryClient.setQueryData<User>(sessionKeys.profile, (user) => (user ? { ...user, credits: answer.remainingCredits } : user));
      void invalidateAfterPurchase(queryClient);
    },
  });
}

function isShortfall(details: Record<string, unknown> | undefined): details is PurchaseShortfall {
  return !!details && typeof details.requiredCredits === 'number' && typeof details.availableCredits === 'number';
}

/** The server's message (or the fallback), with the credit breakdown when the server sent one. */
export function purchaseErrorMessage(err: unknown, fallback: string): string {
  const message = errorMessage(err, fallback);
  if (!(err instanceof ApiError) || !isShortfall(err.details)) return message;
  const d = err.details;
  return [
    message,
    `Required credits: ${formatCredits(d.requiredCredits)}`,
    `Available credits: ${formatCredits(d.availableCredits)}`,
    `Base cost: ${formatCredits(d.baseCost)}`,
    `Duration cost: ${formatCredits(d.durationCost)} (${d.days} ${d.days === 1 ? 'day' : 'days'})`,
  ].join('\n');
}
