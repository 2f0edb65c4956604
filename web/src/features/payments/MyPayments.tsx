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
import { useT, type Translate } from '../../lib/i18n';

const columns = (t: Translate): Column<Schemas['Payment']>[] => [
  { header: t('payments.date'), className: 'nowrap', cell: (p) => formatDateTime(p.createdAt) },
  { header: t('payments.amount'), cell: (p) => formatUsd(p.amount) },
  { header: t('myKeys.status'), cell: (p) => <PaymentStatusBadge payment={p} /> },
];

export function MyPayments() {
  const t = useT();
  const [page, setPage] = useState(1);
  const list = useMyPayments(page);
  return (
    <Card title={t('payments.title')}>
      <QueryState
        query={list}
        loading={t('payments.loading')}
        failed={t('payments.loadFailed')}
        isEmpty={(data) => data.payments.length === 0}
        empty={<p className="muted">{t('payments.empty')}</p>}
      >
        {(data) => (
          <DataTable label={t('payments.title')} rows={data.payments} rowKey={(p) => p._id} columns={columns(t)} busy={list.isFetching} />
        )}
      </QueryState>
      {list.data && <Pagination page={page} totalPages={list.data.totalPages} onChange={setPage} disabled={list.isFetching} />}
    </Card>
  );
}
