import type { SecurityEvent } from '../../../../worker/modules/accounts/schemas/security';
import { translate, type MessageId } from '../../lib/i18n';
// The security log's event codes in words a person reads.
const EVENT_LABELS: Record<SecurityEvent, MessageId> = {
  login: 'securityLog.event.login',
  login_failed: 'securityLog.event.loginFailed',
  logout: 'securityLog.event.logout',
  register: 'securityLog.event.register',
  password_changed: 'securityLog.event.passwordChanged',
  password_reset_requested: 'securityLog.event.passwordResetRequested',
  password_reset: 'securityLog.event.passwordReset',
  '2fa_enabled': 'securityLog.event.twoFactorEnabled',
  '2fa_disabled': 'securityLog.event.twoFactorDisabled',
  '2fa_failed': 'securityLog.event.twoFactorFailed',
  recovery_token_used: 'securityLog.event.recoveryTokenUsed',
  recovery_tokens_generated: 'securityLog.event.recoveryTokensGenerated',
  google_connected: 'securityLog.event.googleConnected',
  google_disconnected: 'securityLog.event.googleDisconnected',
  session_terminated: 'securityLog.event.sessionTerminated',
  account_deactivated: 'securityLog.event.accountDeactivated',
  api_token_created: 'securityLog.event.apiTokenCreated',
  api_token_revoked: 'securityLog.event.apiTokenRevoked',
};

/** Events that deserve a second look (shown in a warning colour). */
export const WARNING_EVENTS = new Set(['login_failed', '2fa_failed', 'password_reset_requested', 'account_deactivated']);

export const eventLabel = (event: string) => {
  const id = EVENT_LABELS[event as SecurityEvent] as MessageId | undefined;
  return id ? translate(id) : event.replace(/_/g, ' ');
};
