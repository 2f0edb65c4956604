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
import { translate, useT, type MessageId } from '../../lib/i18n';

/** 'YYYY-MM-DD' (a UTC day) as 'Mar 4', '4 mar', '3月4日'… in the reader's language (the page says the days are UTC's). */
const dayLabel = formatUtcDayShort;
/** A count in words ('1 credit', '5 keys'), from a plural message taking `count`. */
const count = (id: MessageId) => (n: number) => translate(id, { count: n });
const creditsOf = count('analytics.nCredits');

export function AnalyticsPage() {
  const t = useT();
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
          <h1>{t('dashboard.systemAnalytics')}</h1>
          <p className="muted">
            {data ? t('analytics.range', { from: dayLabel(data.from), to: dayLabel(data.to) }) : t('analytics.subtitle')}
          </p>
        </div>
        <div className="period-picker" role="group" aria-label={t('analytics.period')}>
          {ANALYTICS_PERIODS.map((p) => (
            <button
              key={p}
              type="button"
              className={`btn btn-sm ${p === days ? 'btn-primary' : 'btn-secondary'}`}
              aria-pressed={p === days}
              onClick={() => setParams({ days: String(p) })}
            >
              {t('analytics.lastDays', { days: p })}
            </button>
          ))}
        </div>
      </header>

      {analytics.isPending ? (
        <PageSpinner label={t('analytics.loading')} />
      ) : !data ? (
        <EmptyState title={t('analytics.loadFailed')} icon="⚠">
          <button type="button" className="btn btn-secondary" onClick={() => void analytics.refetch()}>
            {t('common.tryAgain')}
          </button>
        </EmptyState>
      ) : (
        <div className="analytics" aria-busy={analytics.isFetching}>
          <div className="stat-grid">
            <StatCard
              label={t('analytics.revenue')}
              value={formatCredits(data.totals.revenue)}
              hint={t('analytics.revenueHint')}
              tone="green"
              icon={<Icon name="dollar" />}
            />
            <StatCard
              label={t('analytics.keysSold')}
              value={formatCredits(data.totals.keysSold)}
              hint={t('analytics.keysSoldHint')}
              tone="blue"
              icon={<Icon name="key" />}
            />
            <StatCard
              label={t('analytics.newUsers')}
              value={formatCredits(data.totals.newUsers)}
              tone="purple"
              icon={<Icon name="users" />}
            />
            <StatCard
              label={t('analytics.activations')}
              value={formatCredits(data.totals.activations)}
              hint={t('analytics.activationsHint')}
              tone="orange"
              icon={<Icon name="check" />}
            />
          </div>
          <section className="stat-grid" aria-label={t('analytics.cardTopUps')}>
            <StatCard
              label={t('analytics.cardTopUpsLabel')}
              value={formatUsd(data.payments.toppedUp)}
              hint={t('analytics.topUpsHint', { count: data.payments.topUps })}
              tone="green"
              icon={<Icon name="dollar" />}
            />
            <StatCard
              label={t('payments.status.refunded')}
              value={formatUsd(data.payments.refunded)}
              hint={t('analytics.stillOwed', { usd: formatUsd(data.payments.refundOwed) })}
              tone="orange"
              icon={<Icon name="swap" />}
            />
            <StatCard
              label={t('analytics.disputes')}
              value={formatCredits(data.payments.disputes)}
              hint={t('analytics.disputesHint')}
              tone="purple"
              icon={<Icon name="users" />}
            />
          </section>
          <div className="chart-grid">
            <DailyBarChart
              title={t('analytics.revenuePerDay')}
              valueLabel={t('analytics.revenue')}
              points={series((d) => d.revenue)}
              format={creditsOf}
              tone="green"
            />
            <DailyBarChart
              title={t('analytics.keysSoldPerDay')}
              valueLabel={t('analytics.keysSoldLabel')}
              points={series((d) => d.keysSold)}
              format={count('analytics.nKeys')}
              tone="blue"
            />
            <RankedBarChart
              title={t('analytics.salesByProduct')}
              itemLabel={t('receipt.product')}
              valueLabel={t('analytics.keysSoldLabel')}
              points={data.salesByProduct.map((p) => ({ label: `${p.name} (${p.keyTag})`, value: p.keysSold, note: creditsOf(p.revenue) }))}
              format={count('analytics.nKeys')}
            />
            <DailyBarChart
              title={t('analytics.newUsersPerDay')}
              valueLabel={t('analytics.newUsersLabel')}
              points={series((d) => d.newUsers)}
              format={count('analytics.nUsers')}
              tone="purple"
            />
            <DailyBarChart
              title={t('analytics.activationsPerDay')}
              valueLabel={t('analytics.activations')}
              points={series((d) => d.activations)}
              format={count('analytics.nActivations')}
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
  const t = useT();
  const usage = useUsageAnalytics(days);
  return (
    <section className="card" aria-labelledby="usage-by-product">
      <h2 id="usage-by-product" className="section-title">
        {t('analytics.usage')}
      </h2>
      <QueryState
        query={usage}
        loading={t('analytics.usageLoading')}
        failed={t('analytics.usageFailed')}
        isEmpty={(u) => u.products.length === 0}
        empty={<p className="muted">{t('analytics.usageEmpty')}</p>}
      >
        {(u) => (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">{t('analytics.usageCaption', { days })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('receipt.product')}</th>
                  <th scope="col">{t('analytics.uses')}</th>
                  <th scope="col">{t('analytics.addedByTopUps')}</th>
                  <th scope="col">{t('analytics.keysUsing')}</th>
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
