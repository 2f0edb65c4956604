// The customer's own card payments: amount, status, date; newest first.
import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Card } from '../../components/ui/card';
import { DataTable, type Column } from '../../components/ui/data-table';
import { Pagination } from '../../components/ui/pagination';
import { QueryState } from '../../components/ui/query-state';
import { formatDateTime, formatUsd } from '../../lib/format';
import { useMyPayments } from './api';
import { PaymentStatusBadge } from '../../components/payments/PaymentStatusBadge';

const COLUMNS: Column<Schemas['Payment']>[] = [
  { header: 'Date', className: 'nowrap', cell: (p) => formatDateTime(p.createdAt) },
  { header: 'Amount', cell: (p) => formatUsd(p.amount) },
  { header: 'Status', cell: (p) => <PaymentStatusBadge payment={p} /> },
];

export function MyPayments() {
  const [page, setPage] = useState(1);
  const list = useMyPayments(page);
  return (
    <Card title="Your card payments">
      <QueryState
        query={list}
        loading="Loading your payments…"
        failed="Failed to load your payments."
        isEmpty={(data) => data.payments.length === 0}
        empty={<p className="muted">No card payments yet.</p>}
      >
        {(data) => (
          <DataTable label="Your card payments" rows={data.payments} rowKey={(p) => p._id} columns={COLUMNS} busy={list.isFetching} />
        )}
      </QueryState>
      {list.data && <Pagination page={page} totalPages={list.data.totalPages} onChange={setPage} disabled={list.isFetching} />}
    </Card>
  );
}
