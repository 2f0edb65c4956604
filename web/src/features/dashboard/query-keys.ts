// The dashboard feature's query keys: the signed-in user's figures.
export const dashboardKeys = {
  stats: ['stats'] as const,
};
