// A key's history (its activity), newest first and paged: in My Keys and in the owner's key details.
// The caller says where to read it (the customer's route or the owner's); the lines read alike.
import { useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Schemas } from '../../../worker/platform/api-client';
import { shortFingerprint } from '../lib/devices';
import { formatCredits, formatDate, formatDateTime } from '../lib/format';
import { Pagination } from './ui/pagination';
import { QueryState } from './ui/query-state';
import { visibleText } from '../../../worker/platform/schemas/text';

type KeyHistoryEvent = Schemas['KeyHistoryEvent'];
type KeyHistoryResponse = Schemas['KeyHistoryResponse'];

export const KEY_HISTORY_WEB_PAGE_SIZE = 10;

const device = (e: KeyHistoryEvent) => {
  const name = e.deviceName ? visibleText(e.deviceName) : '';
  const fp = e.device ? shortFingerprint(visibleText(e.device)) : 'a device';
  return name ? `${name} (${fp})` : fp;
};
const account = (name: string | null) => name ?? 'a deleted account';
const times = (n: number) => `${n} ${n === 1 ? 'time' : 'times'}`;

/** What happened, in words: the line's title and its detail. */
export function describeKeyEvent(e: KeyHistoryEvent): { title: string; detail: string } {
  switch (e.kind) {
    case 'purchased':
      return { title: 'Purchased', detail: e.price === null ? '' : `${formatCredits(e.price)} credits` };
    case 'created':
      return { title: 'Created', detail: 'Made by the shop' };
    case 'activated':
      return { title: 'Device activated', detail: device(e) };
    case 'device_removed':
      return { title: 'Device removed', detail: `${device(e)}${e.by === 'owner' ? ', by the shop' : ''}` };
    case 'device_swapped':
      return { title: 'Device swapped', detail: `${device(e)} gave its slot to another device` };
    case 'transferred':
      return { title: 'Transferred', detail: `From ${account(e.from)} to ${account(e.to)}` };
    case 'regenerated':
      return {
        title: 'New key value',
        detail: [e.reason, e.devicesFreed ? `${e.devicesFreed} device${e.devicesFreed === 1 ? '' : 's'} freed` : null]
          .filter(Boolean)
          .join(' · '),
      };
    case 'revoked':
      return { title: 'Revoked', detail: e.reason ?? '' };
    case 'validated':
      return {
        title: 'Validated',
        detail: `${device(e)}: ${times(e.validations ?? 0)} on ${e.day ? formatDate(`${e.day}T12:00:00Z`) : 'that day'}`,
      };
    case 'renewed':
      return {
        title: 'Renewed',
        detail: [
          `${e.days ?? 0} ${e.days === 1 ? 'day' : 'days'}`,
          e.by === 'auto' ? 'automatically' : e.by === 'customer' ? null : `by the ${e.by === 'owner' ? 'shop' : e.by}`,
          e.price ? `${formatCredits(e.price)} credits` : 'free',
          e.expiresAt ? `expires ${formatDate(e.expiresAt)}` : null,
        ]
          .filter(Boolean)
          .join(' · '),
      };
    case 'auto_renew_failed':
      return {
        title: 'Auto-renewal failed',
        detail: `${e.days ?? 0} days for ${formatCredits(e.price ?? 0)} credits: the credits did not cover it`,
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
        Activity
      </Heading>
      <QueryState
        query={history}
        loading="Loading the key's activity…"
        failed="Could not load the key's activity."
        isEmpty={(data) => data.total === 0}
        empty={<p className="muted">Nothing has happened to this key yet.</p>}
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
