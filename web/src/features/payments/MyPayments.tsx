// The customer's own card payments: amount, status, date; newest first.
import { useState } from 'react';
import { Card } from '../../components/ui/card';
import { Pagination } from '../../components/ui/pagination';
import { Spinner } from '../../components/ui/spinner';
import { formatDateTime, formatUsd } from '../../lib/format';
import { useMyPayments } from './api';
import { PaymentStatusBadge } from './PaymentStatusBadge';

export function MyPayments() {
  const [page, setPage] = useState(1);
  const list = useMyPayments(page);
  return (
    <Card title="Your card payments">
      {list.isPending ? (
        <Spinner label="Loading your payments…" />
      ) : list.isError ? (
        <div className="notice notice-error" role="alert">
          Failed to load your payments.{' '}
          <button type="button" className="link-button" onClick={() => list.refetch()}>
            Try again
          </button>
        </div>
      ) : list.data.payments.length === 0 ? (
        <p className="muted">No card payments yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Your card payments" aria-busy={list.isFetching}>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.data.payments.map((p) => (
                <tr key={p._id}>
                  <td className="nowrap">{formatDateTime(p.createdAt)}</td>
                  <td>{formatUsd(p.amount)}</td>
                  <td>
                    <PaymentStatusBadge payment={p} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pagination page={page} totalPages={list.data.totalPages} onChange={setPage} disabled={list.isFetching} />}
    </Card>
  );
}
