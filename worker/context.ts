// The Hono environment every route shares: typed bindings, the drizzle instance, the signed-in user.
import type { DB } from './db/client';
import type { ApiTokenGrant } from './domain/api-tokens';
import type { Env } from './env';
import type { BatchAuth } from './middleware/auth';
import type { SessionUser, SessionRecord } from './lib/sessions';

export type AppEnv = {
  Bindings: Env;
  Variables: {
    db: DB;
    user: SessionUser;
    session: SessionRecord;
    /** Set instead of `session` when the caller used an API token (no session exists then). */
    apiToken: ApiTokenGrant | undefined;
    /** Set by requireAuthInBatch: the session's checks, to ride in the route's batch. */
    batchAuth: BatchAuth | undefined;
  };
};
