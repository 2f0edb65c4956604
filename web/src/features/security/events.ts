import type { SecurityEvent } from '../../../../worker/modules/accounts/schemas/security';
// The security log's event codes in words a person reads.
const EVENT_LABELS: Record<SecurityEvent, string> = {
  login: 'Signed in',
  login_failed: 'Failed sign-in attempt',
  logout: 'Signed out',
  register: 'Account created',
  password_changed: 'Password changed',
  password_reset_requested: 'Password reset requested',
  password_reset: 'Password reset',
  '2fa_enabled': 'Two-factor authentication enabled',
  '2fa_disabled': 'Two-factor authentication disabled',
  '2fa_failed': 'Wrong two-factor code or recovery token',
  recovery_token_used: 'Recovery token used',
  recovery_tokens_generated: 'Recovery tokens generated',
  google_connected: 'Google account connected',
  google_disconnected: 'Google account disconnected',
  session_terminated: 'Session terminated',
  account_deactivated: 'Account deactivated',
  api_token_created: 'API token created',
  api_token_revoked: 'API token revoked',
};

/** Events that deserve a second look (shown in a warning colour). */
export const WARNING_EVENTS = new Set(['login_failed', '2fa_failed', 'password_reset_requested', 'account_deactivated']);

export const eventLabel = (event: string) => EVENT_LABELS[event as SecurityEvent] ?? event.replace(/_/g, ' ');
