// One way to show a query's loading, failure and empty states, so every list reads (and retries) alike.
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { Spinner } from './spinner';
import { useT } from '../../lib/i18n';

type QueryStateProps<T> = {
  query: UseQueryResult<T>;
  /** What the spinner announces ("Loading payments…"). */
  loading: string;
  /** What the failure says before its Try again button ("Could not load your payments."). */
  failed: ReactNode;
  isEmpty?: (data: T) => boolean;
  /** Shown instead of `children` when `isEmpty` says so. */
  empty?: ReactNode;
  /**
   * A failed refetch leaves what was loaded on screen, and the screen tells of the failure its own way
   * (a toast); the failure shows here only when there is nothing to show.
   */
  keepDataOnError?: boolean;
  children: (data: T) => ReactNode;
};

export function QueryState<T>({ query, loading, failed, isEmpty, empty, keepDataOnError = false, children }: QueryStateProps<T>) {
  const t = useT();
  if (query.isPending)
    return (
      <div className="panel-loading">
        <Spinner label={loading} />
      </div>
    );
  if (query.isError && !(keepDataOnError && query.data !== undefined))
    return (
      <div className="notice notice-error" role="alert">
        {failed} {/* refetch resolves with the query's state and never rejects. */}
        <button type="button" className="link-button" onClick={() => void query.refetch()}>
          {t('common.tryAgain')}
        </button>
      </div>
    );
  // Past pending and failure, the query has its data (a failed refetch kept it, when asked to).
  const data = query.data as T;
  if (isEmpty?.(data)) return <>{empty}</>;
  return <>{children(data)}</>;
}
