// Notices above every signed-in page: the low-balance warning (notifyLowBalance and
// lowBalanceThreshold) for customers and resellers, and a reminder to owners that maintenance
// mode keeps everyone else out.
import { Link } from 'react-router-dom';
import type { User } from '@schemas/entities';
import { formatUsd } from '../../lib/format';
import { usePublicSettings } from '../../lib/public-settings';

export function SiteNotices({ user }: { user: User }) {
  const { data: settings } = usePublicSettings();
  if (!settings) return null;
  const lowBalance = settings.notifyLowBalance && user.role !== 'owner' && user.balance < settings.lowBalanceThreshold;
  const maintenance = settings.maintenanceMode && user.role === 'owner';
  if (!lowBalance && !maintenance) return null;
  return (
    <div className="site-notices">
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
