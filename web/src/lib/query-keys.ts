// Query keys that cross features: the lists one feature shows and another feature's change refreshes
// (a purchase, on the purchase page or in the admin panel, refreshes My Keys, the dashboard and the
// catalogue). Each feature builds its own keys (its query-keys.ts) under these roots.
export const sharedKeys = {
  products: ['products'] as const,
  myKeys: ['my-keys'] as const,
  stats: ['stats'] as const,
  /** The account's security status: the security page shows it, and any dialog asking for step-up proof reads how to ask. */
  securityInfo: ['security', 'info'] as const,
};
