// What a purchase changes, refreshed through the query cache rather than announced: the buyer's
// credits (the profile), their keys, their dashboard figures and the catalogue's sales counts.
// Screens on view refetch now; the others are marked stale and refetch when they open.
import type { QueryClient } from '@tanstack/react-query';
import { sessionKeys } from '../../lib/session';
import { dashboardKeys } from '../dashboard';
import { myKeysKeys } from '../my-keys';
import { productKeys } from '../products';

export function invalidateAfterPurchase(queryClient: QueryClient) {
  return Promise.all(
    [sessionKeys.profile, myKeysKeys.all, dashboardKeys.stats, productKeys.all].map((queryKey) =>
      queryClient.invalidateQueries({ queryKey }),
    ),
  );
}
