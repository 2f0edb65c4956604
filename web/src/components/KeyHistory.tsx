// A key's history (its activity), newest first and paged: in My Keys and in the owner's key details.
// The caller says where to read it (the customer's route or the owner's); the lines read alike.
import { useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Schemas } from '../../../worker/platform/api-client';
import { shortFingerprint } from '../lib/devices';
import { formatCredits, formatDate, formatDateTime, formatDays, formatUtcDay } from '../lib/format';
import { Pagination } from './ui/pagination';
import { QueryState } from './ui/query-state';
import { visibleText } from '../../../worker/platform/schemas/text';
import { translate, useT } from '../lib/i18n';

type KeyHistoryEvent = Schemas['KeyHistoryEvent'];
type KeyHistoryResponse = Schemas['KeyHistoryResponse'];

export const KEY_HISTORY_WEB_PAGE_SIZE = 10;

const device = (e: KeyHistoryEvent) => {
  const name = e.deviceName ? visibleText(e.deviceName) : '';
  const fp = e.device ? shortFingerprint(visibleText(e.device)) : translate('keyHistory.aDevice');
  return name ? `${name} (${fp})` : fp;
};
const account = (name: string | null) => name ?? translate('keyHistory.deletedAccount');

/** What happened, in words: the line's title and its detail. */
export function describeKeyEvent(e: KeyHistoryEvent): { title: string; detail: string } {
  switch (e.kind) {
    case 'purchased':
      return {
        title: translate('keyHistory.purchased'),
        detail: e.price === null ? '' : translate('common.credits', { credits: formatCredits(e.price) }),
      };
    case 'created':
      return { title: translate('keyHistory.created'), detail: translate('keyHistory.createdDetail') };
    case 'activated':
      return { title: translate('keyHistory.activated'), detail: device(e) };
    case 'device_removed':
      return {
        title: translate('keyHistory.deviceRemoved'),
        detail: e.by === 'owner' ? translate('keyHistory.removedByShop', { device: device(e) }) : device(e),
      };
    case 'device_swapped':
      return { title: translate('keyHistory.swapped'), detail: translate('keyHistory.swappedDetail', { device: device(e) }) };
    case 'transferred':
      return {
        title: translate('keyHistory.transferred'),
        detail: translate('keyHistory.transferredDetail', { from: account(e.from), to: account(e.to) }),
      };
    case 'regenerated':
      return {
        title: translate('keyHistory.regenerated'),
        detail: [e.reason, e.devicesFreed ? translate('keyHistory.devicesFreed', { count: e.devicesFreed }) : null]
          .filter(Boolean)
          .join(' · '),
      };
    case 'revoked':
      return { title: translate('keyHistory.revoked'), detail: e.reason ?? '' };
    case 'validated':
      return {
        title: translate('keyHistory.validated'),
        detail: translate('keyHistory.validatedDetail', {
          device: device(e),
          count: e.validations ?? 0,
          day: e.day ? formatUtcDay(e.day) : translate('keyHistory.thatDay'),
        }),
      };
    case 'renewed':
      return {
        title: translate('keyHistory.renewed'),
        detail: [
          formatDays(e.days ?? 0),
          e.by === 'auto'
            ? translate('keyHistory.byAuto')
            : e.by === 'customer'
              ? null
              : e.by === 'owner'
                ? translate('keyHistory.byShop')
                : e.by === 'reseller'
                  ? translate('keyHistory.byReseller')
                  : null,
          e.price ? translate('common.credits', { credits: formatCredits(e.price) }) : translate('keyHistory.free'),
          e.expiresAt ? translate('keyHistory.expires', { date: formatDate(e.expiresAt) }) : null,
        ]
          .filter(Boolean)
          .join(' · '),
      };
    case 'auto_renew_failed':
      return {
        title: translate('keyHistory.autoRenewFailed'),
        detail: translate('keyHistory.autoRenewFailedDetail', { days: e.days ?? 0, credits: formatCredits(e.price ?? 0) }),
      };
  }
}

type Props = {
  /** The query key's root for this key (the page is added). */
  queryKey: readonly unknown[];
  load: (page: number, signal: AbortSignal) => Promise<KeyHistoryResponse>;
  /** The heading's level where it is shown. */
  headingLevel?: 2 | 3 | 4;
};

export function KeyHistory({ queryKey, load, headingLevel = 3 }: Props) {
  const t = useT();
  const [page, setPage] = useState(1);
  const headingId = useId();
  const Heading = `h${headingLevel}` as const;
  const history = useQuery({
    queryKey: [...queryKey, page],
    queryFn: ({ signal }) => load(page, signal),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="key-history" aria-labelledby={headingId}>
      <Heading id={headingId} className="section-title">
        {t('keyHistory.title')}
      </Heading>
      <QueryState
        query={history}
        loading={t('keyHistory.loading')}
        failed={t('keyHistory.loadFailed')}
        isEmpty={(data) => data.total === 0}
        empty={<p className="muted">{t('keyHistory.empty')}</p>}
      >
        {(data) => (
          <>
            <ol className="key-history-list">
              {data.events.map((e) => {
                const { title, detail } = describeKeyEvent(e);
                return (
                  <li key={e._id} data-kind={e.kind}>
                    <time dateTime={e.at}>{formatDateTime(e.at)}</time>
                    <span className="key-history-title">{title}</span>
                    {detail && <span className="key-history-detail">{detail}</span>}
                  </li>
                );
              })}
            </ol>
            <Pagination page={page} totalPages={data.totalPages} onChange={setPage} disabled={history.isFetching} />
          </>
        )}
      </QueryState>
    </section>
  );
}
