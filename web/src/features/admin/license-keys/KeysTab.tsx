// The License Keys tab: the owner's License Key Management and the reseller's
// My License Keys. Search, status filter, select-all, cards, details, revoke, delete, bulk delete,
// pagination; only the owner sees the actions that change keys.
import { useEffect, useState } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Badge } from '../../../components/ui/badge';
import { EmptyState } from '../../../components/ui/card';
import { CopyButton } from '../../../components/ui/copy-button';
import { Detail } from '../../../components/ui/detail';
import { CheckboxField, Field, SelectField } from '../../../components/ui/field';
import { Icon } from '../../../components/ui/icons';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { EXPIRY_WARNING_DAYS } from '../../../lib/constants';
import { useDebounced } from '../../../lib/debounce';
import { formatDate, formatCredits } from '../../../lib/format';
import { useT } from '../../../lib/i18n';
import { useCurrentUser } from '../../../lib/session';
import { daysLeft, KEY_STATUS_LABELS, KEY_STATUS_OPTIONS, KEY_STATUS_TONES, shownStatus } from './key-status';
import { BulkDeleteModal, DeleteKeyModal, KeyDetailsModal, RevokeKeyModal } from './KeyModals';
import { useLicenseKeys } from './api';

type LicenseKey = Schemas['LicenseKey'];
type KeyStatus = Schemas['KeyStatus'];

type Dialog = { kind: 'details' | 'revoke' | 'delete'; key: LicenseKey } | { kind: 'bulk' } | null;

function KeyCard({
  licenseKey: k,
  isOwner,
  selected,
  onSelect,
  open,
}: {
  licenseKey: LicenseKey;
  isOwner: boolean;
  selected: boolean;
  onSelect: (on: boolean) => void;
  open: (d: Dialog) => void;
}) {
  const t = useT();
  const status = shownStatus(k);
  const left = daysLeft(k);
  const productName = k.product.name || t('admin.keys.unknownProduct');
  const headingId = `admin-key-${k._id}`;
  return (
    <li className={`card admin-key-card${selected ? ' selected' : ''}`}>
      <div className="admin-key-head">
        {isOwner && (
          <input
            type="checkbox"
            className="admin-key-select"
            checked={selected}
            onChange={(e) => onSelect(e.target.checked)}
            aria-label={t('admin.keys.select', { key: k.key })}
          />
        )}
        <div className="admin-key-title">
          <h3 id={headingId} className="product-name">
            {productName}
          </h3>
          <div className="user-card-badges">
            <span className="key-tag">{k.product.keyTag}</span>
            <Badge tone={KEY_STATUS_TONES[status]}>{t(KEY_STATUS_LABELS[status])}</Badge>
            {left !== null && left <= EXPIRY_WARNING_DAYS && (
              // Spelled as the spec has it ('3d left'), not capitalised.
              <Badge tone="orange" asWritten title={t('admin.keys.expiresIn', { count: left })}>
                {t('admin.keys.daysLeftShort', { count: left })}
              </Badge>
            )}
          </div>
        </div>
      </div>
      <div className="key-box">
        <code>{k.key}</code>
        <CopyButton text={k.key} label={t('admin.keys.copy', { key: k.key })} copiedMessage={t('admin.keys.copied')} />
      </div>
      <dl className="key-details">
        <Detail label={t('admin.keys.owner')}>{k.purchasedBy?.username ?? <span className="muted">{t('admin.keys.unsold')}</span>}</Detail>
        <Detail label={t('admin.keys.createdBy')}>{k.createdBy?.username ?? '—'}</Detail>
        <Detail label={t('admin.keys.created')}>{formatDate(k.createdAt)}</Detail>
        <Detail label={t('admin.keys.expires')}>
          {k.expiresAt ? formatDate(k.expiresAt) : t('admin.keys.daysAfterActivation', { count: k.duration })}
        </Detail>
        <Detail label={t('admin.keys.price')}>{t('admin.keys.priceCredits', { credits: formatCredits(k.purchasePrice) })}</Detail>
        <Detail label={t('admin.keys.devices')}>
          {t('admin.keys.devicesOf', { used: formatCredits(k.activations.length), max: formatCredits(k.maxActivations) })}
        </Detail>
      </dl>
      <div className="user-card-actions">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={t('admin.keys.detailsOf', { key: k.key })}
          onClick={() => open({ kind: 'details', key: k })}
        >
          {t('admin.keys.details')}
        </button>
        {isOwner && k.status !== 'revoked' && (
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            aria-label={t('admin.keys.revokeNamed', { key: k.key })}
            onClick={() => open({ kind: 'revoke', key: k })}
          >
            {t('admin.keys.revoke')}
          </button>
        )}
        {isOwner && (
          <button
            type="button"
            className="btn btn-danger btn-sm"
            aria-label={t('admin.keys.deleteNamed', { key: k.key })}
            onClick={() => open({ kind: 'delete', key: k })}
          >
            {t('admin.keys.delete')}
          </button>
        )}
      </div>
    </li>
  );
}

export function KeysTab() {
  const user = useCurrentUser()!;
  const isOwner = user.role === 'owner';
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<KeyStatus | ''>('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const [debouncedSearch] = useDebounced(search);
  const keys = useLicenseKeys({ page, search: debouncedSearch, status });
  const t = useT();

  // A failed load of the admin key list is logged, not toasted.
  useEffect(() => {
    if (keys.error) console.error('Failed to load license keys', keys.error);
  }, [keys.error]);

  // A page emptied by deletions falls back to the last page there is (set while rendering, as React
  // advises for state that follows other state, so no frame shows the empty page).
  const totalPages = keys.data?.totalPages ?? 0;
  if (totalPages > 0 && page > totalPages) setPage(totalPages);

  const list = keys.data?.keys ?? [];
  const allSelected = list.length > 0 && list.every((k) => selected.has(k._id));
  const title = isOwner ? t('admin.keys.title') : t('admin.keys.resellerTitle');

  function toggle(id: string, on: boolean) {
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }
  function toggleAll(on: boolean) {
    setSelected((s) => {
      const next = new Set(s);
      for (const k of list) {
        if (on) next.add(k._id);
        else next.delete(k._id);
      }
      return next;
    });
  }
  const filtersChanged = (apply: () => void) => {
    apply();
    setPage(1);
    setSelected(new Set());
  };

  return (
    <section aria-labelledby="keys-title" className="admin-section">
      <div className="section-head">
        <div>
          <h2 id="keys-title">{title}</h2>
          <p className="muted">
            {keys.data
              ? t('admin.keys.count', { count: keys.data.total })
              : isOwner
                ? t('admin.keys.subtitle')
                : t('admin.keys.resellerSubtitle')}
          </p>
        </div>
        <div className="button-row">
          <button type="button" className="btn btn-secondary" onClick={() => void keys.refetch()} disabled={keys.isFetching}>
            <Icon name="refresh" size={16} className={keys.isFetching ? 'spin' : ''} />
            {t('admin.keys.refresh')}
          </button>
          {isOwner && (
            <button type="button" className="btn btn-danger" onClick={() => setDialog({ kind: 'bulk' })} disabled={selected.size === 0}>
              {t('admin.keys.deleteSelected', { count: selected.size })}
            </button>
          )}
        </div>
      </div>

      <div className="filters">
        <Field
          label={t('admin.keys.search')}
          id="key-search"
          className="grow"
          type="search"
          placeholder={t('admin.keys.searchPlaceholder')}
          value={search}
          maxLength={100}
          onChange={(e) => filtersChanged(() => setSearch(e.target.value))}
        />
        <SelectField
          label={t('admin.keys.status')}
          id="key-status-filter"
          value={status}
          onChange={(e) => filtersChanged(() => setStatus(e.target.value as KeyStatus | ''))}
        >
          <option value="">{t('admin.keys.allStatuses')}</option>
          {KEY_STATUS_OPTIONS.map((s) => (
            <option key={s} value={s}>
              {t(KEY_STATUS_LABELS[s])}
            </option>
          ))}
        </SelectField>
      </div>

      <CheckboxField
        className="select-all"
        label={t('admin.keys.selectAll')}
        checked={allSelected}
        disabled={!isOwner || list.length === 0}
        onChange={(e) => toggleAll(e.target.checked)}
      />

      <QueryState
        query={keys}
        loading={t('admin.keys.loading')}
        failed={t('admin.keys.loadFailed')}
        keepDataOnError
        isEmpty={(data) => data.keys.length === 0}
        empty={
          <EmptyState title={t('admin.keys.emptyTitle')} icon="🔑">
            <p className="muted">
              {search || status ? t('admin.keys.emptyFiltered') : isOwner ? t('admin.keys.empty') : t('admin.keys.resellerEmpty')}
            </p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul className="admin-key-grid" aria-busy={keys.isFetching}>
            {data.keys.map((k) => (
              <KeyCard
                key={k._id}
                licenseKey={k}
                isOwner={isOwner}
                selected={selected.has(k._id)}
                onSelect={(on) => toggle(k._id, on)}
                open={setDialog}
              />
            ))}
          </ul>
        )}
      </QueryState>
      {keys.data && <Pagination page={page} totalPages={keys.data.totalPages} onChange={setPage} disabled={keys.isFetching} />}

      {dialog?.kind === 'details' && <KeyDetailsModal licenseKey={dialog.key} canManage={isOwner} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'revoke' && <RevokeKeyModal licenseKey={dialog.key} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'delete' && (
        <DeleteKeyModal
          licenseKey={dialog.key}
          onClose={() => {
            toggle(dialog.key._id, false);
            setDialog(null);
          }}
        />
      )}
      {dialog?.kind === 'bulk' && (
        <BulkDeleteModal keyIds={[...selected]} onClose={() => setDialog(null)} onDeleted={() => setSelected(new Set())} />
      )}
    </section>
  );
}
