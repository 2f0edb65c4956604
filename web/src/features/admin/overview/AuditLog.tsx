// The audit log in the owner's Overview: who did what, to whom, when and from where; filterable
// by action and by the actor's username.
import { useState } from 'react';
import { AUDIT_ACTIONS } from '../../../../../worker/modules/audit/schemas';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Card } from '../../../components/ui/card';
import { DataTable, type Column } from '../../../components/ui/data-table';
import { Field, SelectField } from '../../../components/ui/field';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { useDebounced } from '../../../lib/debounce';
import { formatDateTime } from '../../../lib/format';
import { useAuditLog, type AuditQuery } from './api';
import { describeKeyAction, keyTargetOf } from './key-audit';

type AuditEntry = Schemas['AuditEntry'];

/** How the log names each action; one without a label here shows as the API names it. */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  'user.create': 'User created',
  'user.update': 'User edited',
  'user.add_funds': 'Funds added',
  'user.delete': 'User deleted',
  'settings.update': 'Settings saved',
  'settings.reset': 'Settings reset',
  'keys.auto_cleanup': 'Expired keys cleaned up',
  'keys.generate': 'Keys generated',
  'keys.import': 'Keys imported',
  'key.revoke': 'Key revoked',
  'key.delete': 'Key deleted',
  'keys.bulk_delete': 'Keys deleted',
  'key.remove_activation': 'Activation removed',
  'key.release_seat': 'Seat released',
  'key.entitlements': 'Key entitlements changed',
  'key.top_up': 'Key uses topped up',
  'key.purchase_for_user': 'Key bought for a user',
  'payment.credited': 'Card top-up credited',
  'payment.refunded': 'Card payment refunded',
  'payment.disputed': 'Card payment disputed',
  'reseller_tier.create': 'Reseller tier created',
  'reseller_tier.update': 'Reseller tier edited',
  'reseller_tier.delete': 'Reseller tier deleted',
  'reseller.tier_changed': 'Reseller moved to a tier',
  'customer.reseller_changed': 'Customer given to a reseller',
};

const actionLabel = (action: string) => AUDIT_ACTION_LABELS[action] ?? action;

/** A short human reading of what changed. */
export function describeDetails(entry: AuditEntry): string {
  const d = entry.details ?? {};
  const changes = d.changes as Record<string, { from: unknown; to: unknown }> | undefined;
  const who = typeof d.username === 'string' ? d.username : null;
  if (entry.action === 'user.add_funds') return d.type === 'credits' ? `${Number(d.amount)} credits` : `$${Number(d.amount).toFixed(2)}`;
  if (changes) {
    const list = Object.entries(changes).map(([field, c]) => `${field}: ${String(c.from)} → ${String(c.to)}`);
    return list.length ? list.join(', ') : 'No change';
  }
  if (entry.action === 'keys.auto_cleanup') return `${Number(d.count ?? 0)} keys`;
  if (entry.action === 'payment.credited') return `$${Number(d.amount).toFixed(2)}`;
  if (entry.action === 'payment.refunded') return `$${Number(d.refundedTotal).toFixed(2)} refunded in all`;
  if (entry.action === 'payment.disputed')
    return `$${Number(d.amount).toFixed(2)} disputed${typeof d.reason === 'string' && d.reason ? ` (${d.reason})` : ''}`;
  return describeKeyAction(entry) ?? who ?? '';
}

function targetOf(entry: AuditEntry): string {
  const username = typeof entry.details?.username === 'string' ? entry.details.username : null;
  if (entry.targetType === 'user') return username ? `User ${username}` : 'User';
  if (entry.targetType === 'settings') return 'Settings';
  if (entry.targetType === 'payment') return 'Card payment';
  return keyTargetOf(entry) ?? entry.targetType ?? '—';
}

const COLUMNS: Column<AuditEntry>[] = [
  { header: 'When', className: 'nowrap', cell: (entry) => formatDateTime(entry.createdAt) },
  { header: 'Actor', cell: (entry) => (entry.actor ? (entry.actor.username ?? 'Deleted user') : 'System') },
  { header: 'Action', className: 'nowrap', cell: (entry) => actionLabel(entry.action) },
  { header: 'Target', cell: targetOf },
  { header: 'Details', className: 'audit-details', cell: describeDetails },
  { header: 'IP address', className: 'mono small', cell: (entry) => entry.ipAddress ?? '—' },
];

export function AuditLog() {
  const [page, setPage] = useState(1);
  const [action, setAction] = useState<AuditQuery['action']>('');
  const [actor, setActor] = useState('');
  const [debouncedActor] = useDebounced(actor);
  const log = useAuditLog({ page, action, actor: debouncedActor });

  return (
    <Card title="Audit Log" className="audit-log">
      <div className="filters">
        <SelectField
          label="Action"
          id="audit-action"
          value={action}
          onChange={(e) => {
            setAction(e.target.value as AuditQuery['action']);
            setPage(1);
          }}
        >
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {actionLabel(a)}
            </option>
          ))}
        </SelectField>
        <Field
          label="Actor (username)"
          id="audit-actor"
          type="search"
          value={actor}
          placeholder="Any actor"
          onChange={(e) => {
            setActor(e.target.value);
            setPage(1);
          }}
        />
      </div>
      <QueryState
        query={log}
        loading="Loading the audit log…"
        failed="Failed to load the audit log."
        isEmpty={(data) => data.entries.length === 0}
        empty={<p className="muted">No audit entries match these filters.</p>}
      >
        {(data) => (
          <DataTable label="Audit entries" rows={data.entries} rowKey={(entry) => entry._id} columns={COLUMNS} busy={log.isFetching} />
        )}
      </QueryState>
      {log.data && <Pagination page={page} totalPages={log.data.totalPages} onChange={setPage} disabled={log.isFetching} />}
    </Card>
  );
}
