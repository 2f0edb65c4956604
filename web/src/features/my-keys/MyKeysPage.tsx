// /my-keys: the customer's keys with search, status filter, paging and automatic refresh.
import { useEffect, useId, useState } from 'react';
import { Link } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { EmptyState } from '../../components/ui/card';
import { Icon } from '../../components/ui/icons';
import { Pagination } from '../../components/ui/pagination';
import { PageSpinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { useDebounced } from '../../lib/debounce';
import { useMyKeys } from './api';
import { KeyCard, STATUS_LABELS } from './KeyCard';
import { KeyTransfers } from './KeyTransfers';
import { OfflineDevices } from './OfflineDevices';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';

type KeyStatus = Schemas['KeyStatus'];

const STATUS_OPTIONS: KeyStatus[] = ['used', 'available', 'expired', 'revoked'];

export function MyKeysPage() {
  const t = useT();
  const searchId = useId();
  const statusId = useId();
  const [searchText, setSearchText] = useState('');
  const [status, setStatus] = useState<KeyStatus | ''>('');
  const [page, setPage] = useState(1);
  // Search as the customer types, without a request per keystroke; a new search starts at page 1.
  const [search, settleSearch] = useDebounced(searchText, { onSettle: () => setPage(1) });
  const keys = useMyKeys({ page, search, status });

  useEffect(() => {
    if (keys.isError) toast.error(t('myKeys.loadFailedToast'));
  }, [keys.isError, t]);

  // A page that emptied (keys filtered away elsewhere) falls back to the last one (set while
  // rendering, as React advises for state that follows other state).
  const totalPages = keys.data?.totalPages ?? 0;
  if (totalPages > 0 && page > totalPages) setPage(totalPages);

  const filtered = search.trim() !== '' || status !== '';
  function clearFilters() {
    setSearchText('');
    settleSearch('');
    setStatus('');
    setPage(1);
  }

  async function refresh() {
    const result = await keys.refetch();
    if (!result.isError) toast.success(t('myKeys.refreshed'), 2000);
  }

  return (
    <div className="page">
      <header className="page-header-row">
        <div className="page-header">
          <h1>{t('myKeys.title')}</h1>
          <p className="muted">{t('myKeys.subtitle')}</p>
        </div>
        <button type="button" className="btn btn-secondary" onClick={asyncHandler(refresh)} disabled={keys.isFetching}>
          <Icon name="refresh" size={16} className={keys.isFetching ? 'spin' : ''} />
          {t('myKeys.refresh')}
        </button>
      </header>
      <section className="filters card" aria-label={t('myKeys.filters')}>
        <div className="field">
          <label htmlFor={searchId}>{t('myKeys.search')}</label>
          <input
            id={searchId}
            type="search"
            placeholder={t('myKeys.searchPlaceholder')}
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            maxLength={100}
          />
        </div>
        <div className="field">
          <label htmlFor={statusId}>{t('myKeys.status')}</label>
          <select
            id={statusId}
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as KeyStatus | '');
              setPage(1);
            }}
          >
            <option value="">{t('myKeys.allStatuses')}</option>
            {STATUS_OPTIONS.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="btn btn-secondary filters-clear" onClick={clearFilters} disabled={!filtered && searchText === ''}>
          {t('myKeys.clearFilters')}
        </button>
      </section>
      {keys.isPending ? (
        <PageSpinner label={t('myKeys.loading')} />
      ) : keys.isError && !keys.data ? (
        <div className="notice notice-error" role="alert">
          {t('myKeys.loadFailed')}{' '}
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => void keys.refetch()}>
            {t('common.tryAgain')}
          </button>
        </div>
      ) : keys.data.keys.length === 0 ? (
        filtered ? (
          <EmptyState title={t('myKeys.noMatch')} icon="🔍">
            <button type="button" className="btn btn-secondary" onClick={clearFilters}>
              {t('myKeys.clearFilters')}
            </button>
          </EmptyState>
        ) : (
          <EmptyState title={t('myKeys.emptyTitle')} icon="🔑">
            <p className="muted">{t('myKeys.emptyBody')}</p>
            <div className="empty-actions">
              <Link to="/products" className="btn btn-primary">
                {t('myKeys.browseProducts')}
              </Link>
              <Link to="/purchase" className="btn btn-secondary">
                {t('myKeys.purchaseKeys')}
              </Link>
            </div>
          </EmptyState>
        )
      ) : (
        <div className="key-results">
          <p className="muted" aria-live="polite">
            {t('myKeys.count', { count: keys.data.total })}
          </p>
          <div className="key-grid">
            {keys.data.keys.map((k) => (
              <KeyCard key={k._id} licenseKey={k} />
            ))}
          </div>
          <Pagination page={page} totalPages={totalPages} onChange={setPage} disabled={keys.isFetching} />
        </div>
      )}
      {keys.data && (keys.data.total > 0 || filtered) && <OfflineDevices />}
      <KeyTransfers />
    </div>
  );
}
