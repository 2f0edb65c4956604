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
  const status = shownStatus(k);
  const left = daysLeft(k);
  const productName = k.product.name || 'Unknown Product';
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
            aria-label={`Select ${k.key}`}
          />
        )}
        <div className="admin-key-title">
          <h3 id={headingId} className="product-name">
            {productName}
          </h3>
          <div className="user-card-badges">
            <span className="key-tag">{k.product.keyTag}</span>
            <Badge tone={KEY_STATUS_TONES[status]}>{KEY_STATUS_LABELS[status]}</Badge>
            {left !== null && left <= EXPIRY_WARNING_DAYS && (
              // Spelled as the spec has it ('3d left'), not capitalised.
              <Badge tone="orange" asWritten title={`Expires in ${left} ${left === 1 ? 'day' : 'days'}`}>
                {left}d left
              </Badge>
            )}
          </div>
        </div>
      </div>
      <div className="key-box">
        <code>{k.key}</code>
        <CopyButton text={k.key} label={`Copy license key ${k.key}`} copiedMessage="License key copied to clipboard" />
      </div>
      <dl className="key-details">
        <Detail label="Owner">{k.purchasedBy?.username ?? <span className="muted">Unsold</span>}</Detail>
        <Detail label="Created by">{k.createdBy?.username ?? '—'}</Detail>
        <Detail label="Created">{formatDate(k.createdAt)}</Detail>
        <Detail label="Expires">{k.expiresAt ? formatDate(k.expiresAt) : `${k.duration}d after activation`}</Detail>
        <Detail label="Price">{formatCredits(k.purchasePrice)} credits</Detail>
        <Detail label="Devices">
          {k.activations.length} / {k.maxActivations}
        </Detail>
      </dl>
      <div className="user-card-actions">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={`Details of ${k.key}`}
          onClick={() => open({ kind: 'details', key: k })}
        >
          Details
        </button>
        {isOwner && k.status !== 'revoked' && (
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            aria-label={`Revoke ${k.key}`}
            onClick={() => open({ kind: 'revoke', key: k })}
          >
            Revoke
          </button>
        )}
        {isOwner && (
          <button
            type="button"
            className="btn btn-danger btn-sm"
            aria-label={`Delete ${k.key}`}
            onClick={() => open({ kind: 'delete', key: k })}
          >
            Delete
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
  const title = isOwner ? 'License Key Management' : 'My License Keys';

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
              ? `${formatCredits(keys.data.total)} ${keys.data.total === 1 ? 'key' : 'keys'}`
              : isOwner
                ? 'Every license key in the shop'
                : 'The keys you created and sold'}
          </p>
        </div>
        <div className="button-row">
          <button type="button" className="btn btn-secondary" onClick={() => void keys.refetch()} disabled={keys.isFetching}>
            <Icon name="refresh" size={16} className={keys.isFetching ? 'spin' : ''} />
            Refresh Keys
          </button>
          {isOwner && (
            <button type="button" className="btn btn-danger" onClick={() => setDialog({ kind: 'bulk' })} disabled={selected.size === 0}>
              Delete Selected ({selected.size})
            </button>
          )}
        </div>
      </div>

      <div className="filters">
        <Field
          label="Search keys"
          id="key-search"
          className="grow"
          type="search"
          placeholder="Key, product name or tag, username"
          value={search}
          maxLength={100}
          onChange={(e) => filtersChanged(() => setSearch(e.target.value))}
        />
        <SelectField
          label="Status"
          id="key-status-filter"
          value={status}
          onChange={(e) => filtersChanged(() => setStatus(e.target.value as KeyStatus | ''))}
        >
          <option value="">All statuses</option>
          {KEY_STATUS_OPTIONS.map((s) => (
            <option key={s} value={s}>
              {KEY_STATUS_LABELS[s]}
            </option>
          ))}
        </SelectField>
      </div>

      <CheckboxField
        className="select-all"
        label="Select all on this page"
        checked={allSelected}
        disabled={!isOwner || list.length === 0}
        onChange={(e) => toggleAll(e.target.checked)}
      />

      <QueryState
        query={keys}
        loading="Loading license keys…"
        failed="Failed to load data"
        keepDataOnError
        isEmpty={(data) => data.keys.length === 0}
        empty={
          <EmptyState title="No license keys found" icon="🔑">
            <p className="muted">
              {search || status
                ? 'No key matches these filters.'
                : isOwner
                  ? 'Generate keys or sell some, and they appear here.'
                  : 'Keys you buy for your customers appear here.'}
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
