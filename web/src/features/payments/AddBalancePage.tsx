// /add-balance: top up the USD balance by card through Stripe Checkout, and see your card payments.
// When the shop takes no card payments (turned off, or no Stripe key), it says how USD arrives instead.
import { Link, useSearchParams } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Card, StatCard } from '../../components/ui/card';
import { Icon } from '../../components/ui/icons';
import { Spinner } from '../../components/ui/spinner';
import { formatCredits, formatDateTime, formatUsd } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';
import { usePaymentOptions } from './api';
import { CheckoutCancelled, CheckoutReturn } from './CheckoutReturn';
import { MyPayments } from './MyPayments';
import { TopUpForm } from './TopUpForm';
import { FormattedMessage } from 'react-intl';
import { translate, useT } from '../../lib/i18n';

export function AddBalancePage() {
  const t = useT();
  const user = useCurrentUser()!;
  const options = usePaymentOptions();
  const [params, setParams] = useSearchParams();
  const returned = params.get('payment');
  const cancelled = params.get('cancelled') !== null;
  const dismiss = () => setParams({}, { replace: true });

  return (
    <div className="page">
      <header className="page-header">
        <h1>{t('notices.lowBalance.add')}</h1>
        <p className="muted">{t('addBalance.subtitle')}</p>
      </header>
      {returned && <CheckoutReturn sessionId={returned} onDismiss={dismiss} />}
      {cancelled && <CheckoutCancelled onDismiss={dismiss} />}
      <section className="stat-grid" aria-label={t('shell.yourBalances')}>
        <StatCard
          label={t('shell.usdBalance')}
          value={<span data-testid="add-balance-usd">{formatUsd(user.balance)}</span>}
          tone="green"
          icon={<Icon name="dollar" />}
        />
        <StatCard label={t('shell.credits')} value={formatCredits(user.credits)} tone="blue" icon={<Icon name="key" />} />
      </section>
      {options.data && <AccountStanding options={options.data} />}
      {options.isPending ? (
        <Spinner label={t('addBalance.loadingOptions')} />
      ) : options.isError ? (
        <div className="notice notice-error" role="alert">
          {t('addBalance.optionsFailed')}{' '}
          <button type="button" className="link-button" onClick={() => void options.refetch()}>
            {t('common.tryAgain')}
          </button>
        </div>
      ) : options.data.enabled ? (
        <>
          <TopUpForm options={options.data} />
          <MyPayments />
        </>
      ) : (
        <ManualTopUp username={user.username} />
      )}
      <div className="empty-actions">
        <Link to="/exchange" className="btn btn-primary">
          {t('addBalance.goToExchange')}
        </Link>
        <Link to="/products" className="btn btn-secondary">
          {t('myKeys.browseProducts')}
        </Link>
      </div>
    </div>
  );
}

function ManualTopUp({ username }: { username: string }) {
  const t = useT();
  return (
    <Card title={t('addBalance.manual.title')}>
      <ol className="steps">
        <li>{t('addBalance.manual.step1')}</li>
        <li>
          <FormattedMessage id="addBalance.manual.step2" values={{ username, strong: (chunks) => <strong>{chunks}</strong> }} />
        </li>
        <li>{t('addBalance.manual.step3')}</li>
        <li>{t('addBalance.manual.step4')}</li>
      </ol>
    </Card>
  );
}

/** What stands in the way of paying or spending: an unverified address, an amount owed, money held. */
export function standingNotices(options: Schemas['PaymentOptions']): Array<{ tone: 'error' | 'warning' | 'info'; text: string }> {
  const notices: Array<{ tone: 'error' | 'warning' | 'info'; text: string }> = [];
  if (!options.emailVerified) {
    notices.push({ tone: 'warning', text: translate('addBalance.verifyToPay') });
  }
  if (options.owedUsd > 0) {
    notices.push({
      tone: 'error',
      text: translate('addBalance.owes', { usd: formatUsd(options.owedUsd) }),
    });
  }
  if (options.heldUsd > 0 && options.heldUntil) {
    notices.push({
      tone: 'info',
      text: translate('addBalance.held', { usd: formatUsd(options.heldUsd), date: formatDateTime(options.heldUntil) }),
    });
  }
  return notices;
}

function AccountStanding({ options }: { options: Schemas['PaymentOptions'] }) {
  return (
    <>
      {standingNotices(options).map((n) => (
        <div
          key={n.text}
          className={`notice notice-${n.tone}`}
          role={n.tone === 'error' ? 'alert' : 'status'}
          data-testid={`standing-${n.tone}`}
        >
          {n.text}
        </div>
      ))}
    </>
  );
}
