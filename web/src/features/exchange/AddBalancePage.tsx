// /add-balance: where USD comes from in this shop, and the way on to the exchange.
import { Link } from 'react-router-dom';
import { Card, StatCard } from '../../components/ui/card';
import { Icon } from '../../components/ui/icons';
import { formatCredits, formatUsd } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';

export function AddBalancePage() {
  const user = useCurrentUser()!;
  return (
    <div className="page">
      <header className="page-header">
        <h1>Add Balance</h1>
        <p className="muted">Your USD balance is what you exchange for credits, and credits buy license keys.</p>
      </header>
      <section className="stat-grid" aria-label="Your balances">
        <StatCard label="USD balance" value={<span data-testid="add-balance-usd">{formatUsd(user.balance)}</span>} tone="green" icon={<Icon name="dollar" />} />
        <StatCard label="Credits" value={formatCredits(user.credits)} tone="blue" icon={<Icon name="key" />} />
      </section>
      <Card title="How USD reaches your account">
        <ol className="steps">
          <li>
            This shop takes no card payments online. Pay the shop owner the way you agreed with them (for example by bank
            transfer or invoice).
          </li>
          <li>
            Tell them your username, <strong>{user.username}</strong>, so the payment is credited to the right account.
          </li>
          <li>The owner adds the amount to your USD balance; it shows here and in the header as soon as it is added.</li>
          <li>Exchange USD for credits, then buy keys with the credits.</li>
        </ol>
        <div className="empty-actions">
          <Link to="/exchange" className="btn btn-primary">
            Go to Exchange
          </Link>
          <Link to="/products" className="btn btn-secondary">
            Browse Products
          </Link>
        </div>
      </Card>
    </div>
  );
}
