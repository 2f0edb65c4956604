// The owner's Payments tab: every card top-up, filtered by status and customer, with refunds (and
// what they could not take back: owed) and disputes (the account is flagged) marked.
import { useState } from 'react';
import { PAYMENT_STATUSES } from '../../../../../worker/platform/vocabulary';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Badge } from '../../../components/ui/badge';
import { Card } from '../../../components/ui/card';
import { DataTable, type Column } from '../../../components/ui/data-table';
import { Field, SelectField } from '../../../components/ui/field';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { useDebounced } from '../../../lib/debounce';
import { formatDateTime, formatUsd } from '../../../lib/format';
import { PAYMENT_STATUS_LABELS, PaymentStatusBadge } from '../../../components/payments/PaymentStatusBadge';
import { useAdminPayments, type PaymentsQuery } from './api';

type Payment = Schemas['Payment'];

const COLUMNS: Column<Payment>[] = [
  { header: 'Date', className: 'nowrap', cell: (p) => formatDateTime(p.createdAt) },
  {
    header: 'Customer',
    cell: (p) => (
      <>
        {p.user?.username ?? 'Deleted user'}{' '}
        {p.accountFlagged && (
          <Badge tone="red" title="A card payment of this account was disputed; its card top-ups are paused">
            Flagged
          </Badge>
        )}
      </>
    ),
  },
  { header: 'Amount', cell: (p) => formatUsd(p.amount) },
  { header: 'Status', cell: (p) => <PaymentStatusBadge payment={p} /> },
  { header: 'Refunded', cell: (p) => (p.refunded ? formatUsd(p.refunded) : '—') },
  { header: 'Owed', cell: (p) => (p.refundOwed ? <strong>{formatUsd(p.refundOwed)}</strong> : '—') },
];

export function PaymentsTab() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<PaymentsQuery['status']>('');
  const [user, setUser] = useState('');
  const [debouncedUser] = useDebounced(user);
  const list = useAdminPayments({ page, status, user: debouncedUser });

  return (
    <Card title="Card Payments">
      <div className="filters">
        <SelectField
          label="Status"
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
        </SelectField>
        <Field
          label="Customer (username)"
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
      <QueryState
        query={list}
        loading="Loading payments…"
        failed="Failed to load payments."
        isEmpty={(data) => data.payments.length === 0}
        empty={<p className="muted">No card payments match these filters.</p>}
      >
        {(data) => <DataTable label="Card payments" rows={data.payments} rowKey={(p) => p._id} columns={COLUMNS} busy={list.isFetching} />}
      </QueryState>
      <p className="muted small">
        A refund takes the amount back from the customer's USD balance as far as it goes; the rest shows as owed. A dispute flags the
        account and pauses its card top-ups.
      </p>
      {list.data && <Pagination page={page} totalPages={list.data.totalPages} onChange={setPage} disabled={list.isFetching} />}
    </Card>
  );
}
