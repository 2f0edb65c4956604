// What authorizing a request needs to know of the calling account (its role, and whether it is
// active), kept in KV beside its sessions so that a signed-in request reads nothing from D1 before its
// own work. D1 stays the record: every write re-checks both inside its own batch (db/session.ts).
//
// The record is written whenever an owner changes the role or the active flag, and deleted with the
// account; an account without one (new since, or from before this record existed) has it filled from
// D1 by its first request. KV is eventually consistent across Cloudflare locations: another location
// may serve reads with the old role for up to about a minute (docs/security.md).
import { eq } from 'drizzle-orm';
import type { DB } from '../db/client';
import { users, type Role } from '../db/schema';

export type AccountState = { role: Role; active: boolean };

const accountKey = (userId: string) => `account:${userId}`;

/** The account's role and active flag; null when there is no such account. */
export async function readAccountState(kv: KVNamespace, db: DB, userId: string): Promise<AccountState | null> {
  const kept = await kv.get<AccountState>(accountKey(userId), 'json');
  if (kept) return kept;
  const row = await db.select({ role: users.role, isActive: users.isActive }).from(users).where(eq(users.id, userId)).get();
  if (!row) return null;
  const state: AccountState = { role: row.role, active: row.isActive };
  await saveAccountState(kv, userId, state);
  return state;
}

export function saveAccountState(kv: KVNamespace, userId: string, state: AccountState) {
  return kv.put(accountKey(userId), JSON.stringify(state));
}

export function forgetAccountState(kv: KVNamespace, userId: string) {
  return kv.delete(accountKey(userId));
}
