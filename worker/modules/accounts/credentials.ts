// Credentials of an account as a whole: a new password, whoever sets it, ends what the old one made.
// Kept apart from domain/users.ts, which the Node scripts (npm start's owner, the seed) load too.
import { and, eq, type SQL } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { users } from '../../platform/db/schema';
import { endCredentialsStatements } from './sessions';

/**
 * Setting a new password, whoever does it (the person with the old one, or a reset link): the hash,
 * and every session and API token made with the old password ends in the same batch, but for the
 * session that changed it and, when the person says so, their API tokens. `when` is a further
 * condition for the whole change (a reset link still good).
 */
export function setPasswordStatements(
  db: DB,
  userId: string,
  passwordHash: string,
  at: Date,
  keep: { sessionId?: string; apiTokens?: boolean },
  when?: SQL,
) {
  return [
    db
      .update(users)
      .set({ passwordHash, passwordChangedAt: at })
      .where(and(eq(users.id, userId), when)),
    ...endCredentialsStatements(db, userId, keep, when),
  ] as const;
}
