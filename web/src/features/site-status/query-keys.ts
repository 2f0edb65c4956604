// The site-status feature's query keys: the settings every signed-in user may read.
export const siteStatusKeys = {
  publicSettings: ['settings', 'public'] as const,
};
