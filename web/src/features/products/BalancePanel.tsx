// The buyer's balances with a Refresh button (Available Products).
import { Icon } from '../../components/ui/icons';
import { toast } from '../../components/ui/toast';
import { TOAST_SMALL_MS } from '../../lib/constants';
import { formatCredits, formatUsd } from '../../lib/format';
import { useProfile } from '../../lib/session';
import { asyncHandler } from '../../lib/async-handler';

export function BalancePanel() {
  const profile = useProfile();
  const user = profile.data;

  async function refresh() {
    const result = await profile.refetch();
    if (result.isError) toast.error('Failed to refresh balance');
    else toast.success('Balance refreshed successfully!', TOAST_SMALL_MS);
  }

  return (
    <section className="balance-panel card" aria-label="Your balance">
      <div>
        <div className="stat-label">Your credits</div>
        <div className="stat-value" data-testid="panel-credits">
          {formatCredits(user?.credits)}
        </div>
      </div>
      <div>
        <div className="stat-label">USD balance</div>
        <div className="balance-panel-usd">{formatUsd(user?.balance)}</div>
      </div>
      <button type="button" className="btn btn-secondary" onClick={asyncHandler(refresh)} disabled={profile.isFetching}>
        <Icon name="refresh" size={16} className={profile.isFetching ? 'spin' : ''} />
        Refresh
      </button>
    </section>
  );
}
