// The buyer's balances with a Refresh button (Available Products).
import { Icon } from '../../components/ui/icons';
import { toast } from '../../components/ui/toast';
import { TOAST_SMALL_MS } from '../../lib/constants';
import { formatCredits, formatUsd } from '../../lib/format';
import { useProfile } from '../../lib/session';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';

export function BalancePanel() {
  const t = useT();
  const profile = useProfile();
  const user = profile.data;

  async function refresh() {
    const result = await profile.refetch();
    if (result.isError) toast.error(t('shell.refreshFailed'));
    else toast.success(t('shell.refreshed'), TOAST_SMALL_MS);
  }

  return (
    <section className="balance-panel card" aria-label={t('products.yourBalance')}>
      <div>
        <div className="stat-label">{t('purchase.yourCredits')}</div>
        <div className="stat-value" data-testid="panel-credits">
          {formatCredits(user?.credits)}
        </div>
      </div>
      <div>
        <div className="stat-label">{t('shell.usdBalance')}</div>
        <div className="balance-panel-usd">{formatUsd(user?.balance)}</div>
      </div>
      <button type="button" className="btn btn-secondary" onClick={asyncHandler(refresh)} disabled={profile.isFetching}>
        <Icon name="refresh" size={16} className={profile.isFetching ? 'spin' : ''} />
        {t('products.refresh')}
      </button>
    </section>
  );
}
