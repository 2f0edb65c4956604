import type { Schemas } from '../../../../worker/platform/api-client';
import { Card, EmptyState } from '../../components/ui/card';
import { DataTable, type Column } from '../../components/ui/data-table';
import { QueryState } from '../../components/ui/query-state';
import { formatDateTime } from '../../lib/format';
import { useSecurityLog } from './api';
import { eventLabel, WARNING_EVENTS } from './events';
import { useT, type Translate } from '../../lib/i18n';

const columns = (t: Translate): Column<Schemas['SecurityLogEntry']>[] => [
  { header: t('securityLog.event'), cell: (entry) => eventLabel(entry.event) },
  { header: t('securityLog.ip'), className: 'mono', cell: (entry) => entry.ipAddress ?? '—' },
  { header: t('securityLog.when'), cell: (entry) => formatDateTime(entry.timestamp) },
];

export function SecurityLogCard() {
  const t = useT();
  const log = useSecurityLog();
  return (
    <Card title={t('securityLog.title')}>
      <QueryState
        query={log}
        loading={t('securityLog.loading')}
        failed={t('securityLog.loadFailed')}
        isEmpty={(entries) => entries.length === 0}
        empty={<EmptyState title={t('securityLog.empty')} />}
      >
        {(entries) => (
          <DataTable
            label={t('securityLog.events')}
            rows={entries}
            rowKey={(entry) => entry._id}
            columns={columns(t)}
            rowClassName={(entry) => (WARNING_EVENTS.has(entry.event) ? 'log-warning' : undefined)}
            scroll={{ className: 'security-log', label: t('securityLog.entries') }}
          />
        )}
      </QueryState>
    </Card>
  );
}
