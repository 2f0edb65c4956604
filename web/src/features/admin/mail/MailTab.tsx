// The Mail tab (owner): every mail KeyPanel sent or is sending, newest first, with its state and,
// for one the mail API refused, its last status: what a customer who says "I got no mail" needs.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Badge, type BadgeTone } from '../../../components/ui/badge';
import { Card, EmptyState } from '../../../components/ui/card';
import { DataTable, type Column } from '../../../components/ui/data-table';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { api } from '../../../lib/api';
import { formatDateTime, formatNumber } from '../../../lib/format';
import { translate, useT, type MessageId } from '../../../lib/i18n';

type MailEntry = Schemas['MailEntry'];
type State = MailEntry['state'] | '';

const STATE_TONES: Record<MailEntry['state'], BadgeTone> = {
  sent: 'green',
  queued: 'yellow',
  failed: 'red',
  skipped: 'gray',
};

const KIND_LABELS: Record<MailEntry['kind'], MessageId> = {
  verification: 'admin.mail.kind.verification',
  password_reset: 'admin.mail.kind.passwordReset',
  import_invitation: 'admin.mail.kind.importInvitation',
  security_notice: 'admin.mail.kind.securityNotice',
  expiry_reminder: 'admin.mail.kind.expiryReminder',
  receipt: 'admin.mail.kind.receipt',
  auto_renew_failed: 'admin.mail.kind.autoRenewFailed',
  low_balance: 'admin.mail.kind.lowBalance',
  new_device: 'admin.mail.kind.newDevice',
  key_received: 'admin.mail.kind.keyReceived',
};

const STATE_WORDS: Record<MailEntry['state'], MessageId> = {
  sent: 'admin.mail.state.sent',
  queued: 'admin.mail.state.queued',
  failed: 'admin.mail.state.failed',
  skipped: 'admin.mail.state.skipped',
};

function stateText(mail: MailEntry) {
  if (mail.state === 'queued' && mail.providerStatus !== null) return translate('admin.mail.retrying', { status: mail.providerStatus });
  if (mail.state === 'failed' && mail.providerStatus !== null) return translate('admin.mail.failedWith', { status: mail.providerStatus });
  return translate(STATE_WORDS[mail.state]);
}

/** The table's columns, their headers in the language in force. */
const columns = (): Column<MailEntry>[] => [
  { header: translate('admin.mail.kind'), cell: (m) => translate(KIND_LABELS[m.kind]) },
  { header: translate('admin.mail.to'), cell: (m) => m.to ?? translate('admin.mail.deletedAccount') },
  {
    header: translate('admin.mail.subject'),
    cell: (m) => m.subject ?? <span className="muted">{translate('admin.mail.writtenWhenSent')}</span>,
  },
  {
    header: translate('admin.mail.state'),
    cell: (m) => (
      <Badge tone={STATE_TONES[m.state]} asWritten>
        {stateText(m)}
      </Badge>
    ),
  },
  { header: translate('admin.mail.attempts'), cell: (m) => formatNumber(m.attempts) },
  { header: translate('admin.mail.created'), cell: (m) => formatDateTime(m.createdAt) },
  { header: translate('admin.mail.sent'), cell: (m) => (m.sentAt ? formatDateTime(m.sentAt) : '—') },
];

export function MailTab() {
  const [page, setPage] = useState(1);
  const [state, setState] = useState<State>('');
  const mails = useQuery({
    queryKey: ['admin', 'mails', page, state],
    queryFn: ({ signal }) => api.get('/api/admin/mails', { page, limit: 25, ...(state ? { state } : {}) }, signal),
    refetchInterval: 15_000,
  });
  const t = useT();
  return (
    <Card title={t('admin.mail.title')}>
      <p className="muted small">{t('admin.mail.intro')}</p>
      <label className="field field-inline">
        <span>{t('admin.mail.state')}</span>
        <select
          value={state}
          onChange={(e) => {
            setState(e.target.value as State);
            setPage(1);
          }}
        >
          <option value="">{t('admin.mail.all')}</option>
          <option value="queued">{t('admin.mail.filter.queued')}</option>
          <option value="sent">{t('admin.mail.filter.sent')}</option>
          <option value="failed">{t('admin.mail.filter.failed')}</option>
          <option value="skipped">{t('admin.mail.filter.skipped')}</option>
        </select>
      </label>
      <QueryState
        query={mails}
        loading={t('admin.mail.loading')}
        failed={t('admin.mail.failed')}
        isEmpty={(data) => data.mails.length === 0}
        empty={<EmptyState title={t('admin.mail.empty')} />}
      >
        {(data) => (
          <>
            <DataTable label={t('admin.mail.table')} columns={columns()} rows={data.mails} rowKey={(m) => m._id} busy={mails.isFetching} />
            <Pagination page={page} totalPages={data.totalPages} onChange={setPage} disabled={mails.isFetching} />
          </>
        )}
      </QueryState>
    </Card>
  );
}
