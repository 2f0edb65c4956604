// The Overview tab: the figures, users by role, keys by status, recent users
// (owners) and keys, quick actions, this account's information, and the audit log (owners).
import { useEffect } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { RoleBadge, ROLE_TONES } from '../../../components/users/roles';
import { Badge, type BadgeTone } from '../../../components/ui/badge';
import { Card, StatCard } from '../../../components/ui/card';
import { ChartCard } from '../../../components/ui/chart-card';
import { Detail } from '../../../components/ui/detail';
import { Icon, type IconName } from '../../../components/ui/icons';
import { QueryState } from '../../../components/ui/query-state';
import { formatCredits, formatDate, formatDateTime, formatPercent, formatUsd } from '../../../lib/format';
import { translate, useT, type MessageId } from '../../../lib/i18n';
import { useCurrentUser } from '../../../lib/session';
import { useSelectTab, type TabId } from '../tabs';
import { useAdminStats } from './api';
import { AuditLog } from './AuditLog';
import { ROLES } from '../../../../../worker/platform/vocabulary';

type AdminStats = Schemas['AdminStats'];

/** Known statuses have their colour; any other shows in the yellow default style. */
export function keyStatusTone(status: string): BadgeTone {
  switch (status) {
    case 'available':
      return 'green';
    case 'used':
      return 'blue';
    case 'revoked':
      return 'red';
    default:
      return 'yellow';
  }
}

/** The statuses' names in the bar chart and the recent keys (the API's word for a status it adds later). */
const KEY_STATUS_WORDS: Record<string, MessageId> = {
  available: 'admin.overview.status.available',
  used: 'admin.overview.status.used',
  expired: 'admin.overview.status.expired',
  revoked: 'admin.overview.status.revoked',
};
export const keyStatusLabel = (status: string) => (status in KEY_STATUS_WORDS ? translate(KEY_STATUS_WORDS[status]) : status);

const ROLE_WORDS: Record<(typeof ROLES)[number], MessageId> = {
  user: 'admin.overview.role.user',
  reseller: 'admin.overview.role.reseller',
  owner: 'admin.overview.role.owner',
};

function BarList({ title, rows }: { title: string; rows: { label: string; value: number; tone: BadgeTone }[] }) {
  const total = rows.reduce((sum, r) => sum + r.value, 0);
  return (
    <ChartCard title={title} className="bar-chart">
      <ul className="bar-list">
        {rows.map((row) => {
          const share = total ? Math.round((row.value / total) * 100) : 0;
          return (
            <li key={row.label}>
              <div className="bar-label">
                <span className="capitalize">{row.label}</span>
                <span>
                  {formatCredits(row.value)} <span className="muted">({formatPercent(share)})</span>
                </span>
              </div>
              <div className="bar-track" aria-hidden="true">
                <div className={`bar-fill bar-${row.tone}`} style={{ width: `${share}%` }} />
              </div>
            </li>
          );
        })}
      </ul>
    </ChartCard>
  );
}

function Figures({ stats }: { stats: AdminStats }) {
  const t = useT();
  return (
    <section className="stat-grid" aria-label={t('admin.overview.figures')}>
      <StatCard
        label={t('admin.overview.totalUsers')}
        value={formatCredits(stats.totalUsers)}
        hint={t('admin.overview.usersWithRoleUser', { count: stats.usersByRole.user })}
        tone="blue"
        icon={<Icon name="users" />}
      />
      <StatCard
        label={t('admin.overview.totalProducts')}
        value={formatCredits(stats.totalProducts)}
        tone="orange"
        icon={<Icon name="box" />}
      />
      <StatCard
        label={t('admin.overview.licenseKeys')}
        value={formatCredits(stats.totalKeys)}
        hint={t('admin.overview.keysAvailable', { count: stats.keysByStatus.available })}
        tone="green"
        icon={<Icon name="key" />}
      />
      <StatCard
        label={t('admin.overview.revenue')}
        value={t('admin.overview.revenueCredits', { count: stats.totalRevenue })}
        tone="purple"
        icon={<Icon name="dollar" />}
      />
    </section>
  );
}

function RecentUsers({ stats }: { stats: AdminStats }) {
  const users = stats.recentActivity.users;
  const t = useT();
  return (
    <Card title={t('admin.overview.recentUsers')}>
      {users.length === 0 ? (
        <p className="muted">{t('admin.overview.noUsers')}</p>
      ) : (
        <ul className="recent-list">
          {users.map((u) => (
            <li key={u._id}>
              <div>
                <div className="recent-title">{u.username}</div>
                <div className="muted small">{u.email}</div>
              </div>
              <div className="recent-meta">
                <RoleBadge role={u.role} />
                <span className="muted small">{formatDate(u.createdAt)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function RecentKeys({ stats }: { stats: AdminStats }) {
  const keys = stats.recentActivity.keys;
  const t = useT();
  return (
    <Card title={t('admin.overview.recentKeys')}>
      {keys.length === 0 ? (
        <p className="muted">{t('admin.overview.noKeys')}</p>
      ) : (
        <ul className="recent-list">
          {keys.map((k) => (
            <li key={k._id}>
              <div className="recent-key">
                <div className="recent-title">{k.product?.name || t('admin.overview.unknownProduct')}</div>
                <code className="small">{k.key}</code>
              </div>
              <div className="recent-meta">
                <Badge tone={keyStatusTone(k.status)}>{keyStatusLabel(k.status)}</Badge>
                <span className="muted small">{formatDate(k.createdAt)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function OverviewTab() {
  const user = useCurrentUser()!;
  const selectTab = useSelectTab();
  const stats = useAdminStats();
  const isOwner = user.role === 'owner';
  const t = useT();

  // A failure to load the admin stats is only logged.
  useEffect(() => {
    if (stats.error) console.error('Failed to load admin stats', stats.error);
  }, [stats.error]);

  const actions: { tab: TabId; title: string; icon: IconName }[] = [
    ...(isOwner
      ? ([
          { tab: 'users', title: t('admin.overview.manageUsers'), icon: 'users' },
          { tab: 'products', title: t('admin.overview.manageProducts'), icon: 'box' },
          { tab: 'generate', title: t('admin.overview.generateKeys'), icon: 'plus' },
        ] as const)
      : []),
    { tab: 'keys', title: t('admin.overview.viewAllKeys'), icon: 'key' },
  ];

  return (
    <div className="admin-overview">
      <QueryState query={stats} loading={t('admin.overview.loading')} failed={t('admin.overview.failed')} keepDataOnError>
        {(data) => (
          <>
            <Figures stats={data} />
            <div className="two-columns">
              <BarList
                title={t('admin.overview.usersByRole')}
                rows={ROLES.map((role) => ({
                  label: t(ROLE_WORDS[role]),
                  value: data.usersByRole[role] ?? 0,
                  tone: ROLE_TONES[role],
                }))}
              />
              <BarList
                title={t('admin.overview.keysByStatus')}
                rows={(['available', 'used', 'expired', 'revoked'] as const).map((s) => ({
                  label: keyStatusLabel(s),
                  value: data.keysByStatus[s] ?? 0,
                  tone: keyStatusTone(s),
                }))}
              />
            </div>
            <div className="two-columns">
              {isOwner && <RecentUsers stats={data} />}
              <RecentKeys stats={data} />
            </div>
          </>
        )}
      </QueryState>

      <div className="two-columns">
        <Card title={t('admin.overview.quickActions')}>
          <div className="quick-actions">
            {actions.map((a) => (
              <button key={a.title} type="button" className="btn btn-secondary" onClick={() => selectTab(a.tab)}>
                <Icon name={a.icon} size={16} />
                {a.title}
              </button>
            ))}
          </div>
        </Card>
        <Card title={t('admin.overview.systemInformation')}>
          <dl className="info-list">
            <Detail label={t('admin.overview.role')}>
              <RoleBadge role={user.role} />
            </Detail>
            <Detail label={t('admin.overview.credits')}>{formatCredits(user.credits)}</Detail>
            <Detail label={t('admin.overview.usdBalance')}>{formatUsd(user.balance)}</Detail>
            <Detail label={t('admin.overview.lastLogin')}>
              {user.lastLogin ? formatDateTime(user.lastLogin) : t('admin.overview.notAvailable')}
            </Detail>
          </dl>
        </Card>
      </div>

      {isOwner && <AuditLog />}
    </div>
  );
}
