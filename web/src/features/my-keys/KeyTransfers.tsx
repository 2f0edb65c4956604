// The keys this account gave to others and received: the line a transfer leaves behind.
import { useState } from 'react';
import { Pagination } from '../../components/ui/pagination';
import { formatDateTime } from '../../lib/format';
import { useKeyTransfers } from './api';
import { useT } from '../../lib/i18n';

export function KeyTransfers() {
  const t = useT();
  const [page, setPage] = useState(1);
  const transfers = useKeyTransfers(page);
  if (!transfers.data || transfers.data.total === 0) return null;
  return (
    <section className="card key-transfers" aria-labelledby="key-transfers-heading">
      <h2 id="key-transfers-heading">{t('transfers.title')}</h2>
      <ul className="device-list">
        {transfers.data.transfers.map((tr) => (
          <li key={tr._id}>
            <span>
              <code>{tr.key}</code> <span className="muted">({tr.product})</span>{' '}
              {tr.direction === 'given'
                ? t('transfers.givenTo', { who: tr.to ?? t('keyHistory.deletedAccount') })
                : t('transfers.receivedFrom', { who: tr.from ?? t('keyHistory.deletedAccount') })}
              {tr.valueKept && (
                <span className="muted">
                  {' · '}
                  {tr.direction === 'given' ? t('transfers.youKept') : t('transfers.giverKept')}
                </span>
              )}
              <span className="muted"> · {formatDateTime(tr.at)}</span>
            </span>
          </li>
        ))}
      </ul>
      <Pagination page={page} totalPages={transfers.data.totalPages} onChange={setPage} disabled={transfers.isFetching} />
    </section>
  );
}
