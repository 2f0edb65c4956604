// The security feature's query keys. Every change on the page adds a log entry, so mutations
// invalidate `all`, the prefix of the others (and of the shared security status).
import { sharedKeys } from '../../lib/query-keys';

export const securityKeys = {
  all: ['security'] as const,
  info: sharedKeys.securityInfo,
  sessions: ['security', 'sessions'] as const,
  log: ['security', 'log'] as const,
  apiTokens: ['security', 'api-tokens'] as const,
};
