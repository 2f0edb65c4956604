// The Hono environments the routes share: typed bindings, the request's D1, and, on signed-in
// routes, the caller.
import type { DB } from './db/client';
import type { RequestD1 } from './db/session';
import type { Env } from './env';
import { type Role } from './vocabulary';

/** An API token's grant: the role it acts with (at most its account's) and whether it may write. */
export type ApiTokenGrant = { id: string; userId: string; role: Role; accountRole: Role; readOnly: boolean };

/** The session a caller came with: its id, and when it was opened (a recent sign-in is a proof). */
export type CallerSession = { id: string; createdAt: number };

/** Who is calling (modules/accounts/identify.ts): the account, the role it acts with, and how it came. */
export type Caller = { id: string; role: Role } & (
  { via: 'session'; session: CallerSession } | { via: 'apiToken'; apiToken: ApiTokenGrant }
);

/** Every /api request: its D1 session (platform/db/session.ts) and the drizzle instance over it. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    d1: RequestD1;
    db: DB;
    /** The bookmark the caller sent (x-d1-bookmark), parsed before any route runs. */
    bookmark: string | null;
    /** For an operation that always needs proof: checks it from the validated JSON body (platform/validate.ts). */
    proof: ((body: unknown) => Promise<void>) | undefined;
    /** Set for a signed-in operation (modules/accounts/operation.ts); only those see it typed as set (SignedInEnv). */
    caller: Caller | undefined;
  };
};

/** A signed-in operation's route (its declaration identified the caller): the caller is known. */
export type SignedInEnv = {
  Bindings: Env;
  Variables: AppEnv['Variables'] & { caller: Caller };
};
