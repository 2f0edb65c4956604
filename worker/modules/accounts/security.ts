// What the Security page shows of the signed-in account: its state at a glance, its sessions and its log.
import { desc, eq } from 'drizzle-orm';
import { runtimeLimit } from '../../platform/db/compiled';
import type { DB } from '../../platform/db/client';
import { securityLog } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { describeUserAgent } from '../../platform/user-agent';
import { googleConfigured } from './google';
import { countRecoveryTokens } from './recovery';
import { listSessions } from './sessions';
import type { UserRow } from './users';
import { type SecurityInfo, type SecurityLogEntry, type SessionInfo } from './schemas/answers';

const SECURITY_LOG_LIMIT = 100;

export async function securityInfo(
  env: Pick<Env, 'GOOGLE_CLIENT_ID' | 'GOOGLE_CLIENT_SECRET' | 'APP_URL'>,
  db: DB,
  user: UserRow,
): Promise<SecurityInfo> {
  return {
    twoFactorEnabled: user.twoFactorEnabled,
    googleConnected: user.googleId !== null,
    recoveryTokens: user.twoFactorEnabled ? await countRecoveryTokens(db, user.id) : 0,
    googleEmail: user.googleEmail,
    hasPassword: user.passwordHash !== null,
    // Google's redirect is built from APP_URL only, so without it Google cannot work here.
    googleAvailable: googleConfigured(env) && Boolean(env.APP_URL?.trim()),
  };
}

/** The account's live sessions, described for people, the caller's own marked `current`. */
export async function mySessions(db: DB, userId: string, currentSessionId: string, idleMs: number): Promise<SessionInfo[]> {
  const records = await listSessions(db, userId, idleMs);
  return records.map((s) => ({
    id: s.id,
    ...describeUserAgent(s.userAgent),
    location: s.location,
    ipAddress: s.ipAddress,
    lastActive: s.lastActive.toISOString(),
    createdAt: s.createdAt.toISOString(),
    current: s.id === currentSessionId,
  }));
}

/** The account's last security events, newest first. */
export async function securityLogOf(db: DB, userId: string): Promise<SecurityLogEntry[]> {
  const rows = await db
    .select({ id: securityLog.id, event: securityLog.event, ipAddress: securityLog.ipAddress, createdAt: securityLog.createdAt })
    .from(securityLog)
    .where(eq(securityLog.userId, userId))
    .orderBy(desc(securityLog.createdAt), desc(securityLog.id))
    .limit(runtimeLimit(SECURITY_LOG_LIMIT))
    .all();
  return rows.map((r) => ({ _id: r.id, event: r.event, ipAddress: r.ipAddress, timestamp: r.createdAt.toISOString() }));
}
