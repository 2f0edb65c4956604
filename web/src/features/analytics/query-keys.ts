// The analytics feature's query keys: one entry per period in days.
export const analyticsKeys = {
  period: (days: number) => ['analytics', days] as const,
  usage: (days: number) => ['analytics', 'usage', days] as const,
};
