import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { StatCard } from '../../components/ui/card';
import { Icon, type IconName } from '../../components/ui/icons';
import { toast } from '../../components/ui/toast';
import { formatCredits, formatUsd } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';
import { useDashboardStats } from './api';

type User = Schemas['User'];

export const ROLE_LINES: Record<Schemas['Role'], string> = {
  user: 'Ready to purchase some license keys?',
  reseller: 'Time to generate some keys and earn credits!',
  owner: 'Manage your platform and oversee operations.',
};

type QuickAction = { to: string; title: string; description: string; icon: IconName };

function quickActions(user: User, stats: { totalKeys: number; totalProducts: number } | undefined): QuickAction[] {
  const keys = stats ? formatCredits(stats.totalKeys) : '…';
  const products = stats ? formatCredits(stats.totalProducts) : '…';
  switch (user.role) {
    case 'user':
      return [
        { to: '/products', title: 'Browse Products', description: 'See what you can buy', icon: 'box' },
        { to: '/my-keys', title: 'View My Keys', description: 'Your purchased license keys', icon: 'key' },
        { to: '/add-balance', title: 'Add Balance', description: 'Top up your USD balance', icon: 'dollar' },
      ];
    case 'reseller':
      return [
        { to: '/admin?tab=keys', title: 'My Generated Keys', description: `${keys} keys`, icon: 'key' },
        { to: '/admin', title: 'Reseller Panel', description: 'Sell keys to your customers', icon: 'gear' },
        { to: '/products', title: 'Available Products', description: `${products} products`, icon: 'box' },
        {
          to: '/purchase',
          title: 'Purchase Direct',
          description: `Balance: ${formatCredits(user.credits)} credits · ${formatUsd(user.balance)}`,
          icon: 'plus',
        },
        { to: '/admin', title: 'My Statistics', description: 'Your sales at a glance', icon: 'chart' },
      ];
    case 'owner':
      return [
        { to: '/manage-products', title: 'Manage Products', description: 'Create and edit products', icon: 'box' },
        { to: '/user-management', title: 'User Management', description: 'Accounts, roles and balances', icon: 'users' },
        { to: '/system-analytics', title: 'System Analytics', description: 'Revenue, sales and activity', icon: 'chart' },
      ];
  }
}

export function DashboardPage() {
  const user = useCurrentUser()!;
  const stats = useDashboardStats();

  useEffect(() => {
    if (stats.isError) toast.error('Could not load your dashboard data');
  }, [stats.isError]);

  const value = (n: number | undefined) => (stats.isPending ? '…' : formatCredits(n ?? 0));
  const isUser = user.role === 'user';

  return (
    <div className="page">
      <header className="page-header">
        <h1>Welcome, {user.username}!</h1>
        <p className="muted" data-testid="role-line">
          {ROLE_LINES[user.role]}
        </p>
      </header>
      <section className="stat-grid" aria-label="Your figures" aria-busy={stats.isPending}>
        <StatCard label="Total Keys" value={value(stats.data?.totalKeys)} tone="blue" icon={<Icon name="key" />} />
        {!isUser && <StatCard label="Available Keys" value={value(stats.data?.availableKeys)} tone="green" icon={<Icon name="circle" />} />}
        <StatCard
          label={isUser ? 'Purchased Keys' : 'Used Keys'}
          value={value(stats.data?.usedKeys)}
          tone="purple"
          icon={<Icon name="check" />}
        />
        <StatCard label="Total Products" value={value(stats.data?.totalProducts)} tone="orange" icon={<Icon name="box" />} />
      </section>
      <section aria-labelledby="quick-actions">
        <h2 id="quick-actions" className="section-title">
          Quick actions
        </h2>
        <div className="action-grid">
          {quickActions(user, stats.data).map((a) => (
            <Link key={a.title} to={a.to} className="action-card">
              <span className="action-icon">
                <Icon name={a.icon} size={20} />
              </span>
              <span>
                <span className="action-title">{a.title}</span>
                <span className="action-description">{a.description}</span>
              </span>
            </Link>
          ))}
        </div>
      </section>
    </div>
  );
}
