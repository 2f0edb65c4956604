// The owner's Payments tab: every card top-up, filtered by status and customer, with refunds (and
// what they could not take back: owed) and disputes (the account is flagged) marked.
import { useState } from 'react';
import { PAYMENT_STATUSES } from '@schemas/payments';
import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { Pagination } from '../../components/ui/pagination';
import { Spinner } from '../../components/ui/spinner';
import { formatDateTime, formatUsd } from '../../lib/format';
import { PAYMENT_STATUS_LABELS, PaymentStatusBadge } from '../payments';
import { useAdminPayments, type PaymentsQuery } from './payments-api';
import { useDebounced } from './useDebounced';

export function PaymentsTab() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<PaymentsQuery['status']>('');
  const [user, setUser] = useState('');
  const debouncedUser = useDebounced(user);
  const list = useAdminPayments({ page, status, user: debouncedUser });

  return (
    <Card title="Card Payments">
      <div className="filters">
        <div className="field">
          <label htmlFor="payments-status">Status</label>
          <select
            id="payments-status"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as PaymentsQuery['status']);
              setPage(1);
            }}
          >
            <option value="">All statuses</option>
            {PAYMENT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {PAYMENT_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="payments-user">Customer (username)</label>
          <input
            id="payments-user"
            type="search"
            value={user}
            placeholder="Any customer"
            onChange={(e) => {
              setUser(e.target.value);
              setPage(1);
            }}
          />
        </div>
      </div>
      {list.isPending ? (
        <div className="panel-loading">
          <Spinner label="Loading payments…" />
        </div>
      ) : list.isError ? (
        <div className="notice notice-error" role="alert">
          Failed to load payments.{' '}
          <button type="button" className="link-button" onClick={() => list.refetch()}>
            Try again
          </button>
        </div>
      ) : list.data.payments.length === 0 ? (
        <p className="muted">No card payments match these filters.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Card payments" aria-busy={list.isFetching}>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Customer</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
                <th scope="col">Refunded</th>
                <th scope="col">Owed</th>
              </tr>
            </thead>
            <tbody>
              {list.data.payments.map((p) => (
                <tr key={p._id}>
                  <td className="nowrap">{formatDateTime(p.createdAt)}</td>
                  <td>
                    {p.user?.username ?? 'Deleted user'}{' '}
                    {p.accountFlagged && (
                      <Badge tone="red" title="A card payment of this account was disputed; its card top-ups are paused">
                        Flagged
                      </Badge>
                    )}
                  </td>
                  <td>{formatUsd(p.amount)}</td>
                  <td>
                    <PaymentStatusBadge payment={p} />
                  </td>
                  <td>{p.refunded ? formatUsd(p.refunded) : '—'}</td>
                  <td>{p.refundOwed ? <strong>{formatUsd(p.refundOwed)}</strong> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small">
        A refund takes the amount back from the customer's USD balance as far as it goes; the rest shows as owed. A dispute flags the
        account and pauses its card top-ups.
      </p>
      {list.data && <Pagination page={page} totalPages={list.data.totalPages} onChange={setPage} disabled={list.isFetching} />}
    </Card>
  );
}
