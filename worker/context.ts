// The Hono environment every route shares: typed bindings, the drizzle instance, the signed-in user.
import type { DB } from './db/client';
import type { Env } from './env';
import type { SessionUser, SessionRecord } from './lib/sessions';

export type AppEnv = {
  Bindings: Env;
  Variables: {
    db: DB;
    user: SessionUser;
    session: SessionRecord;
  };
};
