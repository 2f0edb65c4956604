// The security feature's query keys. Every change on the page adds a log entry, so mutations
// invalidate `all`, the prefix of the others.
export const securityKeys = {
  all: ['security'] as const,
  info: ['security', 'info'] as const,
  sessions: ['security', 'sessions'] as const,
  log: ['security', 'log'] as const,
  apiTokens: ['security', 'api-tokens'] as const,
};
