// Notices above every signed-in page: the low-balance warning (notifyLowBalance and
// lowBalanceThreshold) for customers and resellers, and a reminder to owners that maintenance
// mode keeps everyone else out; and, until the address is verified, why card top-ups and Google wait,
// with a button that sends the link again and one that puts the notice away for this session.
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { toast } from '../../components/ui/toast';
import { api, errorMessage } from '../../lib/api';
import type { Schemas } from '../../../../worker/platform/api-client';
import { formatCredits, formatUsd } from '../../lib/format';
import { useT } from '../../lib/i18n';
import { usePublicSettings } from '../../lib/public-settings';

type Settings = Pick<Schemas['PublicSettings'], 'notifyLowBalance' | 'lowBalanceThreshold' | 'usdToCreditRate'>;

/**
 * Low balance is what the customer can spend, in the threshold's unit (USD): their USD balance and
 * their credits at the exchange rate together. Someone holding 2,000 credits is not warned because
 * their USD balance is $0.
 */
export function isLowBalance(user: Pick<Schemas['User'], 'role' | 'balance' | 'credits'>, settings: Settings): boolean {
  if (!settings.notifyLowBalance || user.role === 'owner') return false;
  return user.balance + user.credits / settings.usdToCreditRate < settings.lowBalanceThreshold;
}

export function SiteNotices({ user }: { user: Schemas['User'] }) {
  const t = useT();
  const { data: settings } = usePublicSettings();
  if (!settings) return user.emailVerified ? null : <UnverifiedNotice email={user.email} />;
  const lowBalance = isLowBalance(user, settings);
  const maintenance = settings.maintenanceMode && user.role === 'owner';
  if (!lowBalance && !maintenance && user.emailVerified) return null;
  const values = { usd: formatUsd(user.balance), threshold: formatUsd(settings.lowBalanceThreshold) };
  return (
    <div className="site-notices">
      {!user.emailVerified && <UnverifiedNotice email={user.email} />}
      {maintenance && (
        <div className="notice notice-info" role="status">
          <strong>{t('notices.maintenance.title')}</strong> {t('notices.maintenance.body')}{' '}
          <Link to="/admin?tab=settings">{t('notices.maintenance.settings')}</Link>
        </div>
      )}
      {lowBalance && (
        <div className="notice notice-warning" role="status" data-testid="low-balance-warning">
          <strong>{t('notices.lowBalance.title')}</strong>{' '}
          {user.credits > 0
            ? t('notices.lowBalance.withCredits', {
                ...values,
                credits: formatCredits(user.credits),
                worth: formatUsd(user.credits / settings.usdToCreditRate),
              })
            : t('notices.lowBalance.body', values)}{' '}
          <Link to="/add-balance">{t('notices.lowBalance.add')}</Link>
        </div>
      )}
    </div>
  );
}

const DISMISSED = 'verify-notice-dismissed';
const dismissedThisSession = () => {
  try {
    return sessionStorage.getItem(DISMISSED) === '1';
  } catch {
    return false;
  }
};

/** The address is not proven yet: what waits for it, the link sent again on request, and put away until the next session. */
export function UnverifiedNotice({ email }: { email: string }) {
  const t = useT();
  const [sending, setSending] = useState(false);
  const [dismissed, setDismissed] = useState(dismissedThisSession);
  if (dismissed) return null;
  const send = () => {
    setSending(true);
    void api
      .post('/api/auth/send-verification')
      .then(
        () => toast.success(t('notices.verify.sent')),
        (err: unknown) => toast.error(errorMessage(err, t('notices.verify.failed'))),
      )
      .finally(() => setSending(false));
  };
  const dismiss = () => {
    try {
      sessionStorage.setItem(DISMISSED, '1');
    } catch {
      // No storage: put away for this page only.
    }
    setDismissed(true);
  };
  return (
    <div className="notice notice-warning notice-dismissible" role="status" data-testid="unverified-email">
      <div>
        <strong>{t('notices.verify.title')}</strong> {t('notices.verify.body', { email })}{' '}
        <button type="button" className="link-button" onClick={send} disabled={sending}>
          {t('notices.verify.resend')}
        </button>
      </div>
      <button type="button" className="icon-button" aria-label={t('notices.verify.dismiss')} onClick={dismiss}>
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}
