import type { Schemas } from '../../../../worker/platform/api-client';
import { Card, EmptyState } from '../../components/ui/card';
import { DataTable, type Column } from '../../components/ui/data-table';
import { QueryState } from '../../components/ui/query-state';
import { formatDateTime } from '../../lib/format';
import { useSecurityLog } from './api';
import { eventLabel, WARNING_EVENTS } from './events';

const COLUMNS: Column<Schemas['SecurityLogEntry']>[] = [
  { header: 'Event', cell: (entry) => eventLabel(entry.event) },
  { header: 'IP address', className: 'mono', cell: (entry) => entry.ipAddress ?? '—' },
  { header: 'Date and time', cell: (entry) => formatDateTime(entry.timestamp) },
];

export function SecurityLogCard() {
  const log = useSecurityLog();
  return (
    <Card title="Security log">
      <QueryState
        query={log}
        loading="Loading the security log…"
        failed="Could not load the security log."
        isEmpty={(entries) => entries.length === 0}
        empty={<EmptyState title="No security events yet" />}
      >
        {(entries) => (
          <DataTable
            label="Security events"
            rows={entries}
            rowKey={(entry) => entry._id}
            columns={COLUMNS}
            rowClassName={(entry) => (WARNING_EVENTS.has(entry.event) ? 'log-warning' : undefined)}
            scroll={{ className: 'security-log', label: 'Security log entries' }}
          />
        )}
      </QueryState>
    </Card>
  );
}
