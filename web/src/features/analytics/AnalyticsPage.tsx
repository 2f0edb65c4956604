// /system-analytics (owner): the shop day by day over the last 7, 30 or 90 days: revenue and keys
// sold per day, sales by product, new users per day and activations per day.
import { useEffect } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ANALYTICS_PERIODS, DEFAULT_ANALYTICS_PERIOD } from '../../../../worker/modules/reporting/schemas';
import { EmptyState, StatCard } from '../../components/ui/card';
import { Icon } from '../../components/ui/icons';
import { PageSpinner } from '../../components/ui/spinner';
import { formatCredits, formatUsd, formatUtcDayShort } from '../../lib/format';
import { useAnalytics, useUsageAnalytics } from './api';
import { QueryState } from '../../components/ui/query-state';
import { DailyBarChart, RankedBarChart } from '../../components/ui/charts';

/** 'YYYY-MM-DD' (a UTC day) as 'Mar 4', in the reader's language. */
const dayLabel = formatUtcDayShort;
const count = (word: string) => (n: number) => `${formatCredits(n)} ${word}${n === 1 ? '' : 's'}`;
const creditsOf = count('credit');

export function AnalyticsPage() {
  const [params, setParams] = useSearchParams();
  const requested = Number(params.get('days'));
  const days = (ANALYTICS_PERIODS as readonly number[]).includes(requested) ? requested : DEFAULT_ANALYTICS_PERIOD;
  const analytics = useAnalytics(days);

  useEffect(() => {
    if (analytics.error) console.error('Failed to load analytics', analytics.error);
  }, [analytics.error]);

  const data = analytics.data;
  const series = (pick: (d: NonNullable<typeof data>['daily'][number]) => number) =>
    (data?.daily ?? []).map((d) => ({ label: dayLabel(d.date), value: pick(d) }));

  return (
    <div className="page">
      <header className="page-header-row">
        <div className="page-header">
          <h1>System Analytics</h1>
          <p className="muted">
            {data ? `${dayLabel(data.from)} to ${dayLabel(data.to)} (UTC days)` : 'Sales, customers and activations over time'}
          </p>
        </div>
        <div className="period-picker" role="group" aria-label="Period">
          {ANALYTICS_PERIODS.map((p) => (
            <button
              key={p}
              type="button"
              className={`btn btn-sm ${p === days ? 'btn-primary' : 'btn-secondary'}`}
              aria-pressed={p === days}
              onClick={() => setParams({ days: String(p) })}
            >
              Last {p} days
            </button>
          ))}
        </div>
      </header>

      {analytics.isPending ? (
        <PageSpinner label="Loading analytics…" />
      ) : !data ? (
        <EmptyState title="Failed to load data" icon="⚠">
          <button type="button" className="btn btn-secondary" onClick={() => void analytics.refetch()}>
            Try again
          </button>
        </EmptyState>
      ) : (
        <div className="analytics" aria-busy={analytics.isFetching}>
          <div className="stat-grid">
            <StatCard
              label="Revenue"
              value={formatCredits(data.totals.revenue)}
              hint="credits spent on keys"
              tone="green"
              icon={<Icon name="dollar" />}
            />
            <StatCard
              label="Keys Sold"
              value={formatCredits(data.totals.keysSold)}
              hint="free direct purchases included"
              tone="blue"
              icon={<Icon name="key" />}
            />
            <StatCard label="New Users" value={formatCredits(data.totals.newUsers)} tone="purple" icon={<Icon name="users" />} />
            <StatCard
              label="Activations"
              value={formatCredits(data.totals.activations)}
              hint="new devices"
              tone="orange"
              icon={<Icon name="check" />}
            />
          </div>
          <section className="stat-grid" aria-label="Card top-ups">
            <StatCard
              label="Card Top-ups"
              value={formatUsd(data.payments.toppedUp)}
              hint={`${formatCredits(data.payments.topUps)} paid payments started in the period`}
              tone="green"
              icon={<Icon name="dollar" />}
            />
            <StatCard
              label="Refunded"
              value={formatUsd(data.payments.refunded)}
              hint={`${formatUsd(data.payments.refundOwed)} of it still owed`}
              tone="orange"
              icon={<Icon name="swap" />}
            />
            <StatCard
              label="Disputes"
              value={formatCredits(data.payments.disputes)}
              hint="accounts flagged for the owner"
              tone="purple"
              icon={<Icon name="users" />}
            />
          </section>
          <div className="chart-grid">
            <DailyBarChart title="Revenue per day" valueLabel="Revenue" points={series((d) => d.revenue)} format={creditsOf} tone="green" />
            <DailyBarChart
              title="Keys sold per day"
              valueLabel="Keys sold"
              points={series((d) => d.keysSold)}
              format={count('key')}
              tone="blue"
            />
            <RankedBarChart
              title="Sales by product"
              itemLabel="Product"
              valueLabel="Keys sold"
              points={data.salesByProduct.map((p) => ({ label: `${p.name} (${p.keyTag})`, value: p.keysSold, note: creditsOf(p.revenue) }))}
              format={count('key')}
            />
            <DailyBarChart
              title="New users per day"
              valueLabel="New users"
              points={series((d) => d.newUsers)}
              format={count('user')}
              tone="purple"
            />
            <DailyBarChart
              title="Activations per day"
              valueLabel="Activations"
              points={series((d) => d.activations)}
              format={count('activation')}
              tone="orange"
            />
          </div>
          <UsageByProduct days={days} />
        </div>
      )}
    </div>
  );
}

/** Metered products: the uses their keys' apps debited in the period, top-ups, and keys that used any. */
function UsageByProduct({ days }: { days: number }) {
  const usage = useUsageAnalytics(days);
  return (
    <section className="card" aria-labelledby="usage-by-product">
      <h2 id="usage-by-product" className="section-title">
        Usage by product
      </h2>
      <QueryState
        query={usage}
        loading="Loading usage…"
        failed="Could not load the usage."
        isEmpty={(u) => u.products.length === 0}
        empty={<p className="muted">No metered uses in this period.</p>}
      >
        {(u) => (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">Uses per metered product in the last {days} days</caption>
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Uses</th>
                  <th scope="col">Added by top-ups</th>
                  <th scope="col">Keys using</th>
                </tr>
              </thead>
              <tbody>
                {u.products.map((p) => (
                  <tr key={p.productId}>
                    <td>
                      {p.name} <span className="key-tag">{p.keyTag}</span>
                    </td>
                    <td>{formatCredits(p.consumed)}</td>
                    <td>{formatCredits(p.toppedUp)}</td>
                    <td>{formatCredits(p.keysUsing)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
    </section>
  );
}
