// A reseller's statistics ("My Statistics" on the reseller's Overview tab; the owner opens any
// reseller's from the Resellers tab): the referral link with a copy button, what they earned and
// spent, per day and per product (charts like System Analytics'), the keys they bought for
// customers by status, and their customers with what each bought.
import { useId, useState } from 'react';
import { DEFAULT_RESELLER_STATS_PERIOD, RESELLER_STATS_PERIODS } from '../../../../../worker/modules/resellers/schemas';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Card, StatCard } from '../../../components/ui/card';
import { DailyBarChart, RankedBarChart } from '../../../components/ui/charts';
import { CopyButton } from '../../../components/ui/copy-button';
import { DataTable } from '../../../components/ui/data-table';
import { Field } from '../../../components/ui/field';
import { Icon } from '../../../components/ui/icons';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { useDebounced } from '../../../lib/debounce';
import { formatCredits, formatDate, formatPercent, formatUtcDayShort } from '../../../lib/format';
import { translate, useT, type MessageId } from '../../../lib/i18n';
import { useResellerCustomers, useResellerStats } from './api';

type ResellerStats = Schemas['ResellerStats'];
type ResellerCustomer = Schemas['ResellerCustomer'];

/** 'YYYY-MM-DD' (a UTC day) as 'Mar 4', in the reader's language. */
const dayLabel = formatUtcDayShort;
const creditsOf = (n: number) => translate('admin.resellerStats.credits', { count: n });
const purchasesOf = (n: number) => translate('admin.resellerStats.purchases', { count: n });
const keysOf = (n: number) => translate('admin.resellerStats.keys', { count: n });

/** How a status reads in the keys-for-customers line. */
const STATUS_WORDS: Record<string, MessageId> = {
  used: 'admin.resellerStats.status.used',
  available: 'admin.resellerStats.status.available',
  expired: 'admin.resellerStats.status.expired',
  revoked: 'admin.resellerStats.status.revoked',
};

function ReferralLink({ path }: { path: string }) {
  const link = `${window.location.origin}${path}`;
  const t = useT();
  return (
    <Card title={t('admin.resellerStats.referralTitle')}>
      <p className="muted small">{t('admin.resellerStats.referralHint')}</p>
      <div className="referral-link">
        <code data-testid="referral-link">{link}</code>
        <CopyButton text={link} label={t('admin.resellerStats.copyReferral')} copiedMessage={t('admin.resellerStats.referralCopied')} />
      </div>
    </Card>
  );
}

function Figures({ stats }: { stats: ResellerStats }) {
  const tier = stats.reseller.tier;
  const t = useT();
  const allTime = (n: number) => t('admin.resellerStats.allTime', { amount: formatCredits(n) });
  return (
    <section className="stat-grid" aria-label={t('admin.resellerStats.figures')}>
      <StatCard
        label={t('admin.resellerStats.earned')}
        value={formatCredits(stats.totals.earned)}
        hint={[
          allTime(stats.allTime.earned),
          tier && t('admin.resellerStats.commission', { percent: formatPercent(tier.commissionPercent), tier: tier.name }),
        ]
          .filter(Boolean)
          .join(' · ')}
        tone="green"
        icon={<Icon name="dollar" />}
      />
      <StatCard
        label={t('admin.resellerStats.spent')}
        value={formatCredits(stats.totals.spent)}
        hint={[allTime(stats.allTime.spent), tier && t('admin.resellerStats.discount', { percent: formatPercent(tier.discountPercent) })]
          .filter(Boolean)
          .join(' · ')}
        tone="orange"
        icon={<Icon name="key" />}
      />
      <StatCard
        label={t('admin.resellerStats.customers')}
        value={formatCredits(stats.allTime.customers)}
        hint={t('admin.resellerStats.commissionedPurchases', { count: stats.allTime.customerPurchases })}
        tone="purple"
        icon={<Icon name="users" />}
      />
      <StatCard
        label={t('admin.resellerStats.keysForCustomers')}
        value={formatCredits(stats.allTime.keysForCustomers)}
        hint={Object.entries(stats.keysForCustomersByStatus)
          .map(([status, n]) => (status in STATUS_WORDS ? t(STATUS_WORDS[status], { count: n }) : `${formatCredits(n)} ${status}`))
          .join(' · ')}
        tone="blue"
        icon={<Icon name="check" />}
      />
    </section>
  );
}

function Customers({ resellerId }: { resellerId: string | null }) {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [debounced] = useDebounced(search);
  const customers = useResellerCustomers(resellerId, page, debounced);
  const t = useT();
  return (
    <Card title={t('admin.resellerStats.customers')}>
      <Field
        label={t('admin.assign.findCustomer')}
        type="search"
        placeholder={t('admin.users.searchPlaceholder')}
        value={search}
        maxLength={100}
        onChange={(e) => {
          setSearch(e.target.value);
          setPage(1);
        }}
      />
      <QueryState
        query={customers}
        loading={t('admin.resellerStats.customersLoading')}
        failed={t('admin.resellerStats.customersFailed')}
        isEmpty={(data) => data.customers.length === 0}
        empty={<p className="muted">{debounced ? t('admin.resellerStats.noCustomerMatches') : t('admin.resellerStats.noCustomers')}</p>}
      >
        {(data) => (
          <>
            <DataTable<ResellerCustomer>
              label={t('admin.resellerStats.customers')}
              rows={data.customers}
              rowKey={(c) => c._id}
              busy={customers.isFetching}
              columns={[
                {
                  header: t('admin.resellerStats.customer'),
                  label: t('admin.resellerStats.customer'),
                  cell: (c) => <span>{c.username}</span>,
                },
                { header: t('admin.resellerStats.email'), label: t('admin.resellerStats.email'), cell: (c) => c.email },
                { header: t('admin.resellerStats.joined'), label: t('admin.resellerStats.joined'), cell: (c) => formatDate(c.createdAt) },
                // A customer moved to another reseller stays listed with what they bought while they were this one's.
                {
                  header: t('admin.resellerStats.customerUntil'),
                  label: t('admin.resellerStats.customerUntil'),
                  cell: (c) => (c.customerUntil === null ? t('admin.resellerStats.now') : formatDate(c.customerUntil)),
                },
                {
                  header: t('admin.resellerStats.purchasesColumn'),
                  label: t('admin.resellerStats.purchasesColumn'),
                  cell: (c) =>
                    t('admin.resellerStats.purchasesCell', { count: formatCredits(c.purchases), credits: creditsOf(c.creditsSpent) }),
                },
                {
                  header: t('admin.resellerStats.commissionColumn'),
                  label: t('admin.resellerStats.commissionColumn'),
                  cell: (c) => creditsOf(c.commissionEarned),
                },
                {
                  header: t('admin.resellerStats.keysBought'),
                  label: t('admin.resellerStats.keysBought'),
                  cell: (c) => formatCredits(c.keysFromReseller),
                },
              ]}
            />
            <Pagination page={page} totalPages={data.totalPages} onChange={setPage} disabled={customers.isFetching} />
          </>
        )}
      </QueryState>
    </Card>
  );
}

/** `resellerId` null: the signed-in reseller's own. */
export function ResellerStatistics({ resellerId = null, title }: { resellerId?: string | null; title?: string }) {
  const t = useT();
  const [days, setDays] = useState<number>(DEFAULT_RESELLER_STATS_PERIOD);
  const stats = useResellerStats(resellerId, days);
  const titleId = useId();
  const series = (data: ResellerStats, pick: (d: ResellerStats['daily'][number]) => number) =>
    data.daily.map((d) => ({ label: dayLabel(d.date), value: pick(d) }));
  return (
    <section className="admin-section reseller-stats" aria-labelledby={titleId}>
      <div className="section-head">
        <div>
          <h2 id={titleId}>{title ?? t('admin.resellerStats.myTitle')}</h2>
          <p className="muted">
            {stats.data
              ? t('admin.resellerStats.period', { from: dayLabel(stats.data.from), to: dayLabel(stats.data.to) })
              : t('admin.resellerStats.subtitle')}
          </p>
        </div>
        <div className="period-picker" role="group" aria-label={t('admin.resellerStats.periodPicker')}>
          {RESELLER_STATS_PERIODS.map((p) => (
            <button
              key={p}
              type="button"
              className={`btn btn-sm ${p === days ? 'btn-primary' : 'btn-secondary'}`}
              aria-pressed={p === days}
              onClick={() => setDays(p)}
            >
              {t('admin.resellerStats.lastDays', { count: p })}
            </button>
          ))}
        </div>
      </div>
      <QueryState query={stats} loading={t('admin.overview.loading')} failed={t('admin.resellerStats.failed')}>
        {(data) => (
          <div className="analytics" aria-busy={stats.isFetching}>
            {data.reseller.referralPath && <ReferralLink path={data.reseller.referralPath} />}
            <Figures stats={data} />
            <div className="chart-grid">
              <DailyBarChart
                title={t('admin.resellerStats.earnedPerDay')}
                valueLabel={t('admin.resellerStats.creditsEarned')}
                points={series(data, (d) => d.earned)}
                format={creditsOf}
                tone="green"
              />
              <DailyBarChart
                title={t('admin.resellerStats.spentPerDay')}
                valueLabel={t('admin.resellerStats.creditsSpent')}
                points={series(data, (d) => d.spent)}
                format={creditsOf}
                tone="orange"
              />
              <RankedBarChart
                title={t('admin.resellerStats.earnedByProduct')}
                itemLabel={t('admin.resellerStats.product')}
                valueLabel={t('admin.resellers.earned')}
                points={data.byProduct
                  .filter((p) => p.earned > 0)
                  .map((p) => ({
                    label: p.keyTag ? `${p.name} (${p.keyTag})` : p.name,
                    value: p.earned,
                    note: purchasesOf(p.customerPurchases),
                  }))}
                format={creditsOf}
              />
              <RankedBarChart
                title={t('admin.resellerStats.spentByProduct')}
                itemLabel={t('admin.resellerStats.product')}
                valueLabel={t('admin.resellers.spent')}
                points={data.byProduct
                  .filter((p) => p.spent > 0)
                  .sort((a, b) => b.spent - a.spent)
                  .map((p) => ({
                    label: p.keyTag ? `${p.name} (${p.keyTag})` : p.name,
                    value: p.spent,
                    note: keysOf(p.keysForCustomers),
                  }))}
                format={creditsOf}
              />
            </div>
            <Customers resellerId={resellerId} />
          </div>
        )}
      </QueryState>
    </section>
  );
}
