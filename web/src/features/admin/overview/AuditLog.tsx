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
import { formatDateTime, formatUsd } from '../../../lib/format';
import { translate, useT, type MessageId } from '../../../lib/i18n';
import { useAuditLog, type AuditQuery } from './api';
import { describeKeyAction, keyTargetOf } from './key-audit';

type AuditEntry = Schemas['AuditEntry'];

/** How the log names each action; one without a label here shows as the API names it. */
export const AUDIT_ACTION_LABELS: Record<string, MessageId> = {
  'user.create': 'admin.audit.action.userCreate',
  'user.update': 'admin.audit.action.userUpdate',
  'user.add_funds': 'admin.audit.action.userAddFunds',
  'user.delete': 'admin.audit.action.userDelete',
  'settings.update': 'admin.audit.action.settingsUpdate',
  'settings.reset': 'admin.audit.action.settingsReset',
  'keys.auto_cleanup': 'admin.audit.action.keysAutoCleanup',
  'keys.generate': 'admin.audit.action.keysGenerate',
  'keys.import': 'admin.audit.action.keysImport',
  'key.revoke': 'admin.audit.action.keyRevoke',
  'key.delete': 'admin.audit.action.keyDelete',
  'keys.bulk_delete': 'admin.audit.action.keysBulkDelete',
  'key.remove_activation': 'admin.audit.action.keyRemoveActivation',
  'key.release_seat': 'admin.audit.action.keyReleaseSeat',
  'key.entitlements': 'admin.audit.action.keyEntitlements',
  'key.top_up': 'admin.audit.action.keyTopUp',
  'key.purchase_for_user': 'admin.audit.action.keyPurchaseForUser',
  'payment.credited': 'admin.audit.action.paymentCredited',
  'payment.refunded': 'admin.audit.action.paymentRefunded',
  'payment.disputed': 'admin.audit.action.paymentDisputed',
  'reseller_tier.create': 'admin.audit.action.resellerTierCreate',
  'reseller_tier.update': 'admin.audit.action.resellerTierUpdate',
  'reseller_tier.delete': 'admin.audit.action.resellerTierDelete',
  'reseller.tier_changed': 'admin.audit.action.resellerTierChanged',
  'customer.reseller_changed': 'admin.audit.action.customerResellerChanged',
};

const actionLabel = (action: string) => (action in AUDIT_ACTION_LABELS ? translate(AUDIT_ACTION_LABELS[action]) : action);

/** A short human reading of what changed. */
export function describeDetails(entry: AuditEntry): string {
  const d = entry.details ?? {};
  const changes = d.changes as Record<string, { from: unknown; to: unknown }> | undefined;
  const who = typeof d.username === 'string' ? d.username : null;
  if (entry.action === 'user.add_funds')
    return d.type === 'credits' ? translate('admin.audit.credits', { count: Number(d.amount) }) : formatUsd(Number(d.amount));
  if (changes) {
    const list = Object.entries(changes).map(([field, c]) => `${field}: ${String(c.from)} → ${String(c.to)}`);
    return list.length ? list.join(', ') : translate('admin.audit.noChange');
  }
  if (entry.action === 'keys.auto_cleanup') return translate('admin.audit.keys', { count: Number(d.count ?? 0) });
  if (entry.action === 'payment.credited') return formatUsd(Number(d.amount));
  if (entry.action === 'payment.refunded') return translate('admin.audit.refundedInAll', { amount: formatUsd(Number(d.refundedTotal)) });
  if (entry.action === 'payment.disputed')
    return typeof d.reason === 'string' && d.reason
      ? translate('admin.audit.disputedBecause', { amount: formatUsd(Number(d.amount)), reason: d.reason })
      : translate('admin.audit.disputed', { amount: formatUsd(Number(d.amount)) });
  return describeKeyAction(entry) ?? who ?? '';
}

function targetOf(entry: AuditEntry): string {
  const username = typeof entry.details?.username === 'string' ? entry.details.username : null;
  if (entry.targetType === 'user')
    return username ? translate('admin.audit.targetUserNamed', { username }) : translate('admin.audit.targetUser');
  if (entry.targetType === 'settings') return translate('admin.audit.targetSettings');
  if (entry.targetType === 'payment') return translate('admin.audit.targetPayment');
  return keyTargetOf(entry) ?? entry.targetType ?? '—';
}

/** The table's columns, their headers in the language in force. */
const columns = (): Column<AuditEntry>[] => [
  { header: translate('admin.audit.when'), className: 'nowrap', cell: (entry) => formatDateTime(entry.createdAt) },
  {
    header: translate('admin.audit.actor'),
    cell: (entry) => (entry.actor ? (entry.actor.username ?? translate('admin.audit.deletedUser')) : translate('admin.audit.system')),
  },
  { header: translate('admin.audit.action'), className: 'nowrap', cell: (entry) => actionLabel(entry.action) },
  { header: translate('admin.audit.target'), cell: targetOf },
  { header: translate('admin.audit.details'), className: 'audit-details', cell: describeDetails },
  { header: translate('admin.audit.ipAddress'), className: 'mono small', cell: (entry) => entry.ipAddress ?? '—' },
];

export function AuditLog() {
  const [page, setPage] = useState(1);
  const [action, setAction] = useState<AuditQuery['action']>('');
  const [actor, setActor] = useState('');
  const [debouncedActor] = useDebounced(actor);
  const log = useAuditLog({ page, action, actor: debouncedActor });
  const t = useT();

  return (
    <Card title={t('admin.audit.title')} className="audit-log">
      <div className="filters">
        <SelectField
          label={t('admin.audit.action')}
          id="audit-action"
          value={action}
          onChange={(e) => {
            setAction(e.target.value as AuditQuery['action']);
            setPage(1);
          }}
        >
          <option value="">{t('admin.audit.allActions')}</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {actionLabel(a)}
            </option>
          ))}
        </SelectField>
        <Field
          label={t('admin.audit.actorFilter')}
          id="audit-actor"
          type="search"
          value={actor}
          placeholder={t('admin.audit.anyActor')}
          onChange={(e) => {
            setActor(e.target.value);
            setPage(1);
          }}
        />
      </div>
      <QueryState
        query={log}
        loading={t('admin.audit.loading')}
        failed={t('admin.audit.failed')}
        isEmpty={(data) => data.entries.length === 0}
        empty={<p className="muted">{t('admin.audit.empty')}</p>}
      >
        {(data) => (
          <DataTable
            label={t('admin.audit.entries')}
            rows={data.entries}
            rowKey={(entry) => entry._id}
            columns={columns()}
            busy={log.isFetching}
          />
        )}
      </QueryState>
      {log.data && <Pagination page={page} totalPages={log.data.totalPages} onChange={setPage} disabled={log.isFetching} />}
    </Card>
  );
}
