// The session's server state in the query cache: the signed-in user's profile (credits and balance
// included), which every screen showing them reads and every change to them invalidates.
export const sessionKeys = {
  profile: ['profile'] as const,
};
