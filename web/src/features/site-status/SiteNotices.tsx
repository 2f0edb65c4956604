// Notices above every signed-in page: the low-balance warning (notifyLowBalance and
// lowBalanceThreshold) for customers and resellers, and a reminder to owners that maintenance
// mode keeps everyone else out; and, until the address is verified, why card top-ups and Google wait,
// with a button that sends the link again.
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { toast } from '../../components/ui/toast';
import { api, errorMessage } from '../../lib/api';
import type { Schemas } from '../../../../worker/platform/api-client';
import { formatUsd } from '../../lib/format';
import { usePublicSettings } from '../../lib/public-settings';

export function SiteNotices({ user }: { user: Schemas['User'] }) {
  const { data: settings } = usePublicSettings();
  if (!settings) return user.emailVerified ? null : <UnverifiedNotice email={user.email} />;
  const lowBalance = settings.notifyLowBalance && user.role !== 'owner' && user.balance < settings.lowBalanceThreshold;
  const maintenance = settings.maintenanceMode && user.role === 'owner';
  if (!lowBalance && !maintenance && user.emailVerified) return null;
  return (
    <div className="site-notices">
      {!user.emailVerified && <UnverifiedNotice email={user.email} />}
      {maintenance && (
        <div className="notice notice-info" role="status">
          <strong>Maintenance mode is on.</strong> Only owners can use KeyPanel until it is turned off in{' '}
          <Link to="/admin?tab=settings">Settings</Link>.
        </div>
      )}
      {lowBalance && (
        <div className="notice notice-warning" role="status" data-testid="low-balance-warning">
          <strong>Low balance:</strong> your USD balance is {formatUsd(user.balance)}, below {formatUsd(settings.lowBalanceThreshold)}.{' '}
          <Link to="/add-balance">Add balance</Link>
        </div>
      )}
    </div>
  );
}

/** The address is not proven yet: what waits for it, and the link sent again on request. */
export function UnverifiedNotice({ email }: { email: string }) {
  const [sending, setSending] = useState(false);
  const send = () => {
    setSending(true);
    void api
      .post('/api/auth/send-verification')
      .then(
        (answer) => toast.success(answer.message),
        (err: unknown) => toast.error(errorMessage(err, 'The link could not be sent')),
      )
      .finally(() => setSending(false));
  };
  return (
    <div className="notice notice-warning" role="status" data-testid="unverified-email">
      <strong>Verify your email address.</strong> Until you open the link we sent to {email}, you can browse and use credits you were given,
      but not add USD by card or connect Google.{' '}
      <button type="button" className="link-button" onClick={send} disabled={sending}>
        Send the link again
      </button>
    </div>
  );
}
