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
import { translate, useT } from '../../../lib/i18n';
import { PAYMENT_STATUS_LABELS, PaymentStatusBadge } from '../../../components/payments/PaymentStatusBadge';
import { useAdminPayments, type PaymentsQuery } from './api';

type Payment = Schemas['Payment'];

/** The table's columns, their headers in the language in force. */
const columns = (): Column<Payment>[] => [
  { header: translate('admin.payments.date'), className: 'nowrap', cell: (p) => formatDateTime(p.createdAt) },
  {
    header: translate('admin.payments.customer'),
    cell: (p) => (
      <>
        {p.user?.username ?? translate('admin.payments.deletedUser')}{' '}
        {p.accountFlagged && (
          <Badge tone="red" title={translate('admin.payments.flaggedHint')}>
            {translate('admin.payments.flagged')}
          </Badge>
        )}
      </>
    ),
  },
  { header: translate('admin.payments.amount'), cell: (p) => formatUsd(p.amount) },
  { header: translate('admin.payments.status'), cell: (p) => <PaymentStatusBadge payment={p} /> },
  { header: translate('admin.payments.refunded'), cell: (p) => (p.refunded ? formatUsd(p.refunded) : '—') },
  { header: translate('admin.payments.owed'), cell: (p) => (p.refundOwed ? <strong>{formatUsd(p.refundOwed)}</strong> : '—') },
];

export function PaymentsTab() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<PaymentsQuery['status']>('');
  const [user, setUser] = useState('');
  const [debouncedUser] = useDebounced(user);
  const list = useAdminPayments({ page, status, user: debouncedUser });
  const t = useT();

  return (
    <Card title={t('admin.payments.title')}>
      <div className="filters">
        <SelectField
          label={t('admin.payments.status')}
          id="payments-status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as PaymentsQuery['status']);
            setPage(1);
          }}
        >
          <option value="">{t('admin.payments.allStatuses')}</option>
          {PAYMENT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {PAYMENT_STATUS_LABELS[s]}
            </option>
          ))}
        </SelectField>
        <Field
          label={t('admin.payments.customerFilter')}
          id="payments-user"
          type="search"
          value={user}
          placeholder={t('admin.payments.anyCustomer')}
          onChange={(e) => {
            setUser(e.target.value);
            setPage(1);
          }}
        />
      </div>
      <QueryState
        query={list}
        loading={t('admin.payments.loading')}
        failed={t('admin.payments.failed')}
        isEmpty={(data) => data.payments.length === 0}
        empty={<p className="muted">{t('admin.payments.empty')}</p>}
      >
        {(data) => (
          <DataTable
            label={t('admin.payments.table')}
            rows={data.payments}
            rowKey={(p) => p._id}
            columns={columns()}
            busy={list.isFetching}
          />
        )}
      </QueryState>
      <p className="muted small">{t('admin.payments.hint')}</p>
      {list.data && <Pagination page={page} totalPages={list.data.totalPages} onChange={setPage} disabled={list.isFetching} />}
    </Card>
  );
}
