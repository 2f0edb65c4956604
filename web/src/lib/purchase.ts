// Buying a key: the call, what it refreshes afterwards, and how a refusal reads. The shop, the
// purchase page and the admin panel's direct purchase share it.
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { Schemas } from '../../../worker/platform/api-client';
import { api, ApiError, errorMessage } from './api';
import { formatCredits, formatDays } from './format';
import { translate } from './i18n/runtime';
import { useIdempotencyKey } from './idempotency';
import { sharedKeys } from './query-keys';
import { sessionKeys } from './session';
import { type PurchaseShortfall } from '../../../worker/modules/keys/schemas/answers';

/** What a purchase changes, refreshed through the query cache rather than announced: the buyer's
 * credits (the profile), their keys, their dashboard figures and the catalogue's sales counts.
 * Screens on view refetch now; the others are marked stale and refetch when they open. */
export function invalidateAfterPurchase(queryClient: QueryClient) {
  return Promise.all(
    [sessionKeys.profile, sharedKeys.myKeys, sharedKeys.stats, sharedKeys.products].map((queryKey) =>
      queryClient.invalidateQueries({ queryKey }),
    ),
  );
}

export type PurchaseRequest = { productId: string; duration: number; idempotencyKey: string };

export function usePurchase() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ productId, duration, idempotencyKey }: PurchaseRequest) =>
      api.post('/api/keys/purchase', { productId, duration }, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: (answer) => {
      // The header shows the new credits at once; the refetch brings the rest of the profile.
      queryClient.setQueryData<Schemas['User']>(sessionKeys.profile, (user) =>
        user ? { ...user, credits: answer.remainingCredits } : user,
      );
      void invalidateAfterPurchase(queryClient);
    },
  });
}

/**
 * Buying a key with one's own credits, once however often it is retried: a purchase keeps its
 * Idempotency-Key until it succeeds (a retry after a lost answer replays it), and a new choice of
 * product or duration gets a new one.
 */
export function useBuyKey() {
  const purchase = usePurchase();
  const attempt = useIdempotencyKey();
  const buy = async (productId: string, days: number) => {
    const answer = await purchase.mutateAsync({ productId, duration: days, idempotencyKey: attempt.keyFor(`${productId}:${days}`) });
    attempt.done();
    return answer;
  };
  return { buy, isPending: purchase.isPending };
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
    translate('shortfall.required', { credits: formatCredits(d.requiredCredits) }),
    translate('shortfall.available', { credits: formatCredits(d.availableCredits) }),
    translate('shortfall.baseCost', { credits: formatCredits(d.baseCost) }),
    translate('shortfall.durationCost', { credits: formatCredits(d.durationCost), duration: formatDays(d.days) }),
  ].join('\n');
}
