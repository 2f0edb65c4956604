// The keys this account gave to others and received: the line a transfer leaves behind.
import { useState } from 'react';
import { Pagination } from '../../components/ui/pagination';
import { formatDateTime } from '../../lib/format';
import { useKeyTransfers } from './api';

export function KeyTransfers() {
  const [page, setPage] = useState(1);
  const transfers = useKeyTransfers(page);
  if (!transfers.data || transfers.data.total === 0) return null;
  return (
    <section className="card key-transfers" aria-labelledby="key-transfers-heading">
      <h2 id="key-transfers-heading">Transferred keys</h2>
      <ul className="device-list">
        {transfers.data.transfers.map((t) => (
          <li key={t._id}>
            <span>
              <code>{t.key}</code> <span className="muted">({t.product})</span>{' '}
              {t.direction === 'given' ? `given to ${t.to ?? 'a deleted account'}` : `received from ${t.from ?? 'a deleted account'}`}
              {t.valueKept && (
                <span className="muted">
                  {t.direction === 'given' ? ' · you kept its value' : ' · the giver kept its value: regenerate it for one only you know'}
                </span>
              )}
              <span className="muted"> · {formatDateTime(t.at)}</span>
            </span>
          </li>
        ))}
      </ul>
      <Pagination page={page} totalPages={transfers.data.totalPages} onChange={setPage} disabled={transfers.isFetching} />
    </section>
  );
}
