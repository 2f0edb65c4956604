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
import { formatDateTime } from '../../../lib/format';

type MailEntry = Schemas['MailEntry'];
type State = MailEntry['state'] | '';

const STATE_TONES: Record<MailEntry['state'], BadgeTone> = {
  sent: 'green',
  queued: 'yellow',
  failed: 'red',
  skipped: 'gray',
};

const KIND_LABELS: Record<MailEntry['kind'], string> = {
  verification: 'Address verification',
  password_reset: 'Password reset',
  import_invitation: 'Import invitation',
  security_notice: 'Security notice',
  expiry_reminder: 'Expiry reminder',
  receipt: 'Receipt',
  auto_renew_failed: 'Auto-renew failed',
  low_balance: 'Low balance',
  new_device: 'New device',
  key_received: 'Key received',
};

function stateText(mail: MailEntry) {
  if (mail.state === 'queued' && mail.providerStatus !== null) return `retrying (the mail API answered ${mail.providerStatus})`;
  if (mail.state === 'failed') return mail.providerStatus !== null ? `failed (the mail API answered ${mail.providerStatus})` : 'failed';
  return mail.state;
}

const columns: Column<MailEntry>[] = [
  { header: 'Kind', cell: (m) => KIND_LABELS[m.kind] },
  { header: 'To', cell: (m) => m.to ?? 'a deleted account' },
  { header: 'Subject', cell: (m) => m.subject ?? <span className="muted">written when sent</span> },
  {
    header: 'State',
    cell: (m) => (
      <Badge tone={STATE_TONES[m.state]} asWritten>
        {stateText(m)}
      </Badge>
    ),
  },
  { header: 'Attempts', cell: (m) => m.attempts },
  { header: 'Created', cell: (m) => formatDateTime(m.createdAt) },
  { header: 'Sent', cell: (m) => (m.sentAt ? formatDateTime(m.sentAt) : '—') },
];

export function MailTab() {
  const [page, setPage] = useState(1);
  const [state, setState] = useState<State>('');
  const mails = useQuery({
    queryKey: ['admin', 'mails', page, state],
    queryFn: ({ signal }) => api.get('/api/admin/mails', { page, limit: 25, ...(state ? { state } : {}) }, signal),
    refetchInterval: 15_000,
  });
  return (
    <Card title="Mail">
      <p className="muted small">
        Every mail goes by the mail queue: a mail API that is down delays it and loses none. Notices (reminders, receipts, low balance, new
        devices, keys received) go only while Email Notifications are on in Settings, and only to customers who want them.
      </p>
      <label className="field field-inline">
        <span>State</span>
        <select
          value={state}
          onChange={(e) => {
            setState(e.target.value as State);
            setPage(1);
          }}
        >
          <option value="">All</option>
          <option value="queued">Queued</option>
          <option value="sent">Sent</option>
          <option value="failed">Failed</option>
          <option value="skipped">Skipped</option>
        </select>
      </label>
      <QueryState
        query={mails}
        loading="Loading mail…"
        failed="Could not load the mail."
        isEmpty={(data) => data.mails.length === 0}
        empty={<EmptyState title="No mail yet" />}
      >
        {(data) => (
          <>
            <DataTable label="Mail, newest first" columns={columns} rows={data.mails} rowKey={(m) => m._id} busy={mails.isFetching} />
            <Pagination page={page} totalPages={data.totalPages} onChange={setPage} disabled={mails.isFetching} />
          </>
        )}
      </QueryState>
    </Card>
  );
}
