import type { DB } from '../../platform/db/client';
import { securityLog } from '../../platform/db/schema';
import { newId } from '../../platform/ids';
import type { SessionOrigin } from '../../platform/request';
import type { SecurityEvent } from './schemas/security';

export { SECURITY_EVENTS, type SecurityEvent } from './schemas/security';

export function securityEventRow(userId: string, event: SecurityEvent, origin: Pick<SessionOrigin, 'ipAddress' | 'userAgent'>) {
  return {
    id: newId(),
    userId,
    event,
    ipAddress: origin.ipAddress,
    userAgent: origin.userAgent?.slice(0, 400) ?? null,
    createdAt: new Date(),
  };
}

export async function recordSecurityEvent(
  db: DB,
  userId: string,
  event: SecurityEvent,
  origin: Pick<SessionOrigin, 'ipAddress' | 'userAgent'>,
) {
  await db.insert(securityLog).values(securityEventRow(userId, event, origin));
}
