import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { StatCard } from '../../components/ui/card';
import { Icon, type IconName } from '../../components/ui/icons';
import { toast } from '../../components/ui/toast';
import { formatCredits, formatUsd } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';
import { useDashboardStats } from './api';
import { useT, type MessageId, type Translate } from '../../lib/i18n';

type User = Schemas['User'];

export const ROLE_LINES: Record<Schemas['Role'], MessageId> = {
  user: 'dashboard.roleLine.user',
  reseller: 'dashboard.roleLine.reseller',
  owner: 'dashboard.roleLine.owner',
};

type QuickAction = { to: string; title: string; description: string; icon: IconName };

function quickActions(t: Translate, user: User, stats: { totalKeys: number; totalProducts: number } | undefined): QuickAction[] {
  const keys = stats ? formatCredits(stats.totalKeys) : '…';
  const products = stats ? formatCredits(stats.totalProducts) : '…';
  switch (user.role) {
    case 'user':
      return [
        { to: '/products', title: t('myKeys.browseProducts'), description: t('dashboard.browseProductsHint'), icon: 'box' },
        { to: '/my-keys', title: t('dashboard.viewMyKeys'), description: t('dashboard.viewMyKeysHint'), icon: 'key' },
        { to: '/add-balance', title: t('notices.lowBalance.add'), description: t('dashboard.addBalanceHint'), icon: 'dollar' },
      ];
    case 'reseller':
      return [
        { to: '/admin?tab=keys', title: t('dashboard.generatedKeys'), description: t('dashboard.keysCount', { keys }), icon: 'key' },
        { to: '/admin', title: t('dashboard.resellerPanel'), description: t('dashboard.resellerPanelHint'), icon: 'gear' },
        { to: '/products', title: t('products.title'), description: t('dashboard.productsCount', { products }), icon: 'box' },
        {
          to: '/purchase',
          title: t('dashboard.purchaseDirect'),
          description: t('dashboard.balanceLine', { credits: formatCredits(user.credits), usd: formatUsd(user.balance) }),
          icon: 'plus',
        },
        { to: '/admin', title: t('dashboard.myStatistics'), description: t('dashboard.myStatisticsHint'), icon: 'chart' },
      ];
    case 'owner':
      return [
        { to: '/manage-products', title: t('dashboard.manageProducts'), description: t('dashboard.manageProductsHint'), icon: 'box' },
        { to: '/user-management', title: t('dashboard.userManagement'), description: t('dashboard.userManagementHint'), icon: 'users' },
        { to: '/system-analytics', title: t('dashboard.systemAnalytics'), description: t('dashboard.systemAnalyticsHint'), icon: 'chart' },
      ];
  }
}

export function DashboardPage() {
  const t = useT();
  const user = useCurrentUser()!;
  const stats = useDashboardStats();

  useEffect(() => {
    if (stats.isError) toast.error(t('dashboard.loadFailed'));
  }, [stats.isError, t]);

  const value = (n: number | undefined) => (stats.isPending ? '…' : formatCredits(n ?? 0));
  const isUser = user.role === 'user';

  return (
    <div className="page">
      <header className="page-header">
        <h1>{t('dashboard.welcome', { name: user.username })}</h1>
        <p className="muted" data-testid="role-line">
          {t(ROLE_LINES[user.role])}
        </p>
      </header>
      <section className="stat-grid" aria-label={t('dashboard.figures')} aria-busy={stats.isPending}>
        <StatCard label={t('dashboard.totalKeys')} value={value(stats.data?.totalKeys)} tone="blue" icon={<Icon name="key" />} />
        {!isUser && (
          <StatCard
            label={t('dashboard.availableKeys')}
            value={value(stats.data?.availableKeys)}
            tone="green"
            icon={<Icon name="circle" />}
          />
        )}
        <StatCard
          label={isUser ? t('dashboard.purchasedKeys') : t('dashboard.usedKeys')}
          value={value(stats.data?.usedKeys)}
          tone="purple"
          icon={<Icon name="check" />}
        />
        <StatCard label={t('dashboard.totalProducts')} value={value(stats.data?.totalProducts)} tone="orange" icon={<Icon name="box" />} />
      </section>
      <section aria-labelledby="quick-actions">
        <h2 id="quick-actions" className="section-title">
          {t('dashboard.quickActions')}
        </h2>
        <div className="action-grid">
          {quickActions(t, user, stats.data).map((a) => (
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
