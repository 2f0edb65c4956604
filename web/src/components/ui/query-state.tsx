// One way to show a query's loading, failure and empty states, so every list reads (and retries) alike.
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { Spinner } from './spinner';

type QueryStateProps<T> = {
  query: UseQueryResult<T>;
  /** What the spinner announces ("Loading payments…"). */
  loading: string;
  /** What the failure says before its Try again button ("Could not load your payments."). */
  failed: ReactNode;
  isEmpty?: (data: T) => boolean;
  /** Shown instead of `children` when `isEmpty` says so. */
  empty?: ReactNode;
  children: (data: T) => ReactNode;
};

export function QueryState<T>({ query, loading, failed, isEmpty, empty, children }: QueryStateProps<T>) {
  if (query.isPending)
    return (
      <div className="panel-loading">
        <Spinner label={loading} />
      </div>
    );
  if (query.isError)
    return (
      <div className="notice notice-error" role="alert">
        {failed} {/* refetch resolves with the query's state and never rejects. */}
        <button type="button" className="link-button" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}
