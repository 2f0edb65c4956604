import type { DB } from '../db/client';
import { securityLog } from '../db/schema';
import { newId } from '../lib/ids';
import type { SessionOrigin } from '../lib/sessions';

export const SECURITY_EVENTS = [
  'login',
  'login_failed',
  'logout',
  'register',
  'password_changed',
  'password_reset_requested',
  'password_reset',
  '2fa_enabled',
  '2fa_disabled',
  '2fa_failed',
  'recovery_token_used',
  'recovery_tokens_generated',
  'google_connected',
  'google_disconnected',
  'session_terminated',
  'account_deactivated',
  'api_token_created',
  'api_token_revoked',
] as const;
export type SecurityEvent = (typeof SECURITY_EVENTS)[number];

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

export async function recordSecurityEvent(db: DB, userId: string, event: SecurityEvent, origin: Pick<SessionOrigin, 'ipAddress' | 'userAgent'>) {
  await db.insert(securityLog).values(securityEventRow(userId, event, origin));
}
