// The dashboard feature's query keys: the signed-in user's figures (a purchase refreshes them).
import { sharedKeys } from '../../lib/query-keys';

export const dashboardKeys = {
  stats: sharedKeys.stats,
};
