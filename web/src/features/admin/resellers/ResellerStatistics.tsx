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
import { formatCredits, formatDate, formatUtcDayShort } from '../../../lib/format';
import { useResellerCustomers, useResellerStats } from './api';

type ResellerStats = Schemas['ResellerStats'];
type ResellerCustomer = Schemas['ResellerCustomer'];

/** 'YYYY-MM-DD' (a UTC day) as 'Mar 4', in the reader's language. */
const dayLabel = formatUtcDayShort;
const count = (word: string) => (n: number) => `${formatCredits(n)} ${word}${n === 1 ? '' : 's'}`;
const creditsOf = count('credit');

function ReferralLink({ path }: { path: string }) {
  const link = `${window.location.origin}${path}`;
  return (
    <Card title="Your referral link">
      <p className="muted small">Customers who register through it are yours: their own purchases earn you your tier’s commission.</p>
      <div className="referral-link">
        <code data-testid="referral-link">{link}</code>
        <CopyButton text={link} label="Copy referral link" copiedMessage="Referral link copied" />
      </div>
    </Card>
  );
}

function Figures({ stats }: { stats: ResellerStats }) {
  const tier = stats.reseller.tier;
  return (
    <section className="stat-grid" aria-label="Reseller figures">
      <StatCard
        label="Credits Earned"
        value={formatCredits(stats.totals.earned)}
        hint={`${formatCredits(stats.allTime.earned)} all time${tier ? ` · ${tier.commissionPercent}% commission (${tier.name})` : ''}`}
        tone="green"
        icon={<Icon name="dollar" />}
      />
      <StatCard
        label="Credits Spent"
        value={formatCredits(stats.totals.spent)}
        hint={`${formatCredits(stats.allTime.spent)} all time${tier ? ` · ${tier.discountPercent}% wholesale discount` : ''}`}
        tone="orange"
        icon={<Icon name="key" />}
      />
      <StatCard
        label="Customers"
        value={formatCredits(stats.allTime.customers)}
        hint={`${count('purchase')(stats.allTime.customerPurchases)} that earned a commission`}
        tone="purple"
        icon={<Icon name="users" />}
      />
      <StatCard
        label="Keys for Customers"
        value={formatCredits(stats.allTime.keysForCustomers)}
        hint={Object.entries(stats.keysForCustomersByStatus)
          .map(([status, n]) => `${n} ${status === 'used' ? 'active' : status}`)
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
  return (
    <Card title="Customers">
      <Field
        label="Find a customer"
        type="search"
        placeholder="Username or email starts with…"
        value={search}
        maxLength={100}
        onChange={(e) => {
          setSearch(e.target.value);
          setPage(1);
        }}
      />
      <QueryState
        query={customers}
        loading="Loading customers…"
        failed="Could not load the customers."
        isEmpty={(data) => data.customers.length === 0}
        empty={<p className="muted">{debounced ? 'No customer matches.' : 'No customers yet: share the referral link.'}</p>}
      >
        {(data) => (
          <>
            <DataTable<ResellerCustomer>
              label="Customers"
              rows={data.customers}
              rowKey={(c) => c._id}
              busy={customers.isFetching}
              columns={[
                { header: 'Customer', label: 'Customer', cell: (c) => <span>{c.username}</span> },
                { header: 'Email', label: 'Email', cell: (c) => c.email },
                { header: 'Joined', label: 'Joined', cell: (c) => formatDate(c.createdAt) },
                // A customer moved to another reseller stays listed with what they bought while they were this one's.
                {
                  header: 'Customer until',
                  label: 'Customer until',
                  cell: (c) => (c.customerUntil === null ? 'Now' : formatDate(c.customerUntil)),
                },
                { header: 'Purchases', label: 'Purchases', cell: (c) => `${c.purchases} (${creditsOf(c.creditsSpent)})` },
                { header: 'Commission', label: 'Commission', cell: (c) => creditsOf(c.commissionEarned) },
                { header: 'Keys bought for them', label: 'Keys bought for them', cell: (c) => formatCredits(c.keysFromReseller) },
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
export function ResellerStatistics({ resellerId = null, title = 'My Statistics' }: { resellerId?: string | null; title?: string }) {
  const [days, setDays] = useState<number>(DEFAULT_RESELLER_STATS_PERIOD);
  const stats = useResellerStats(resellerId, days);
  const titleId = useId();
  const series = (data: ResellerStats, pick: (d: ResellerStats['daily'][number]) => number) =>
    data.daily.map((d) => ({ label: dayLabel(d.date), value: pick(d) }));
  return (
    <section className="admin-section reseller-stats" aria-labelledby={titleId}>
      <div className="section-head">
        <div>
          <h2 id={titleId}>{title}</h2>
          <p className="muted">
            {stats.data ? `${dayLabel(stats.data.from)} to ${dayLabel(stats.data.to)} (UTC days)` : 'Your commissions and purchases'}
          </p>
        </div>
        <div className="period-picker" role="group" aria-label="Period">
          {RESELLER_STATS_PERIODS.map((p) => (
            <button
              key={p}
              type="button"
              className={`btn btn-sm ${p === days ? 'btn-primary' : 'btn-secondary'}`}
              aria-pressed={p === days}
              onClick={() => setDays(p)}
            >
              Last {p} days
            </button>
          ))}
        </div>
      </div>
      <QueryState query={stats} loading="Loading statistics…" failed="Could not load the statistics.">
        {(data) => (
          <div className="analytics" aria-busy={stats.isFetching}>
            {data.reseller.referralPath && <ReferralLink path={data.reseller.referralPath} />}
            <Figures stats={data} />
            <div className="chart-grid">
              <DailyBarChart
                title="Credits earned per day"
                valueLabel="Credits earned"
                points={series(data, (d) => d.earned)}
                format={creditsOf}
                tone="green"
              />
              <DailyBarChart
                title="Credits spent per day"
                valueLabel="Credits spent"
                points={series(data, (d) => d.spent)}
                format={creditsOf}
                tone="orange"
              />
              <RankedBarChart
                title="Earned by product"
                itemLabel="Product"
                valueLabel="Earned"
                points={data.byProduct
                  .filter((p) => p.earned > 0)
                  .map((p) => ({
                    label: p.keyTag ? `${p.name} (${p.keyTag})` : p.name,
                    value: p.earned,
                    note: count('purchase')(p.customerPurchases),
                  }))}
                format={creditsOf}
              />
              <RankedBarChart
                title="Spent by product"
                itemLabel="Product"
                valueLabel="Spent"
                points={data.byProduct
                  .filter((p) => p.spent > 0)
                  .sort((a, b) => b.spent - a.spent)
                  .map((p) => ({
                    label: p.keyTag ? `${p.name} (${p.keyTag})` : p.name,
                    value: p.spent,
                    note: count('key')(p.keysForCustomers),
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
