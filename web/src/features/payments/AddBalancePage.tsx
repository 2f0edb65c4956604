// /add-balance: top up the USD balance by card through Stripe Checkout, and see your card payments.
// When the shop takes no card payments (turned off, or no Stripe key), it says how USD arrives instead.
import { Link, useSearchParams } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Card, StatCard } from '../../components/ui/card';
import { Icon } from '../../components/ui/icons';
import { Spinner } from '../../components/ui/spinner';
import { formatCredits, formatUsd } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';
import { usePaymentOptions } from './api';
import { CheckoutCancelled, CheckoutReturn } from './CheckoutReturn';
import { MyPayments } from './MyPayments';
import { TopUpForm } from './TopUpForm';

export function AddBalancePage() {
  const user = useCurrentUser()!;
  const options = usePaymentOptions();
  const [params, setParams] = useSearchParams();
  const returned = params.get('payment');
  const cancelled = params.get('cancelled') !== null;
  const dismiss = () => setParams({}, { replace: true });

  return (
    <div className="page">
      <header className="page-header">
        <h1>Add Balance</h1>
        <p className="muted">Your USD balance is what you exchange for credits, and credits buy license keys.</p>
      </header>
      {returned && <CheckoutReturn sessionId={returned} onDismiss={dismiss} />}
      {cancelled && <CheckoutCancelled onDismiss={dismiss} />}
      <section className="stat-grid" aria-label="Your balances">
        <StatCard
          label="USD balance"
          value={<span data-testid="add-balance-usd">{formatUsd(user.balance)}</span>}
          tone="green"
          icon={<Icon name="dollar" />}
        />
        <StatCard label="Credits" value={formatCredits(user.credits)} tone="blue" icon={<Icon name="key" />} />
      </section>
      {options.data && <AccountStanding options={options.data} />}
      {options.isPending ? (
        <Spinner label="Loading payment options…" />
      ) : options.isError ? (
        <div className="notice notice-error" role="alert">
          Failed to load the payment options.{' '}
          <button type="button" className="link-button" onClick={() => void options.refetch()}>
            Try again
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
          Go to Exchange
        </Link>
        <Link to="/products" className="btn btn-secondary">
          Browse Products
        </Link>
      </div>
    </div>
  );
}

function ManualTopUp({ username }: { username: string }) {
  return (
    <Card title="How USD reaches your account">
      <ol className="steps">
        <li>
          This shop takes no card payments online. Pay the shop owner the way you agreed with them (for example by bank transfer or
          invoice).
        </li>
        <li>
          Tell them your username, <strong>{username}</strong>, so the payment is credited to the right account.
        </li>
        <li>The owner adds the amount to your USD balance; it shows here and in the header as soon as it is added.</li>
        <li>Exchange USD for credits, then buy keys with the credits.</li>
      </ol>
    </Card>
  );
}

/** What stands in the way of paying or spending: an unverified address, an amount owed, money held. */
export function standingNotices(options: Schemas['PaymentOptions']): Array<{ tone: 'error' | 'warning' | 'info'; text: string }> {
  const notices: Array<{ tone: 'error' | 'warning' | 'info'; text: string }> = [];
  if (!options.emailVerified) {
    notices.push({ tone: 'warning', text: 'Verify your email address to pay by card: open the link we sent you, or send it again above.' });
  }
  if (options.owedUsd > 0) {
    notices.push({
      tone: 'error',
      text: `Your account owes ${formatUsd(options.owedUsd)} after a card payment was refunded or disputed. You cannot buy or exchange until this is settled; please contact the shop.`,
    });
  }
  if (options.heldUsd > 0 && options.heldUntil) {
    notices.push({
      tone: 'info',
      text: `${formatUsd(options.heldUsd)} from your first card top-up is held until ${new Date(options.heldUntil).toLocaleString()}; you can exchange it for credits after that.`,
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
