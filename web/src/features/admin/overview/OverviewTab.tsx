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
import { formatCredits, formatDate, formatDateTime, formatUsd } from '../../../lib/format';
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

export const keyStatusLabel = (status: string) => (status === 'used' ? 'Active' : status);

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
                  {formatCredits(row.value)} <span className="muted">({share}%)</span>
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
  return (
    <section className="stat-grid" aria-label="Figures">
      <StatCard
        label="Total Users"
        value={formatCredits(stats.totalUsers)}
        hint={`${formatCredits(stats.usersByRole.user)} with role user`}
        tone="blue"
        icon={<Icon name="users" />}
      />
      <StatCard label="Total Products" value={formatCredits(stats.totalProducts)} tone="orange" icon={<Icon name="box" />} />
      <StatCard
        label="License Keys"
        value={formatCredits(stats.totalKeys)}
        hint={`${formatCredits(stats.keysByStatus.available)} available`}
        tone="green"
        icon={<Icon name="key" />}
      />
      <StatCard label="Revenue" value={`${formatCredits(stats.totalRevenue)} credits`} tone="purple" icon={<Icon name="dollar" />} />
    </section>
  );
}

function RecentUsers({ stats }: { stats: AdminStats }) {
  const users = stats.recentActivity.users;
  return (
    <Card title="Recent Users">
      {users.length === 0 ? (
        <p className="muted">No users yet.</p>
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
  return (
    <Card title="Recent License Keys">
      {keys.length === 0 ? (
        <p className="muted">No license keys yet.</p>
      ) : (
        <ul className="recent-list">
          {keys.map((k) => (
            <li key={k._id}>
              <div className="recent-key">
                <div className="recent-title">{k.product?.name || 'Unknown Product'}</div>
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

  // A failure to load the admin stats is only logged.
  useEffect(() => {
    if (stats.error) console.error('Failed to load admin stats', stats.error);
  }, [stats.error]);

  const actions: { tab: TabId; title: string; icon: IconName }[] = [
    ...(isOwner
      ? ([
          { tab: 'users', title: 'Manage Users', icon: 'users' },
          { tab: 'products', title: 'Manage Products', icon: 'box' },
          { tab: 'generate', title: 'Generate Keys', icon: 'plus' },
        ] as const)
      : []),
    { tab: 'keys', title: 'View All Keys', icon: 'key' },
  ];

  return (
    <div className="admin-overview">
      <QueryState query={stats} loading="Loading statistics…" failed="Statistics are unavailable right now" keepDataOnError>
        {(data) => (
          <>
            <Figures stats={data} />
            <div className="two-columns">
              <BarList
                title="Users by Role"
                rows={ROLES.map((role) => ({
                  label: role,
                  value: data.usersByRole[role] ?? 0,
                  tone: ROLE_TONES[role],
                }))}
              />
              <BarList
                title="Keys by Status"
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
        <Card title="Quick Actions">
          <div className="quick-actions">
            {actions.map((a) => (
              <button key={a.title} type="button" className="btn btn-secondary" onClick={() => selectTab(a.tab)}>
                <Icon name={a.icon} size={16} />
                {a.title}
              </button>
            ))}
          </div>
        </Card>
        <Card title="System Information">
          <dl className="info-list">
            <Detail label="Role">
              <RoleBadge role={user.role} />
            </Detail>
            <Detail label="Credits">{formatCredits(user.credits)}</Detail>
            <Detail label="USD Balance">{formatUsd(user.balance)}</Detail>
            <Detail label="Last Login">{user.lastLogin ? formatDateTime(user.lastLogin) : 'N/A'}</Detail>
          </dl>
        </Card>
      </div>

      {isOwner && <AuditLog />}
    </div>
  );
}
