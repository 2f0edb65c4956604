// Debouncing what is typed: a search field's text reaches the query only once typing pauses.
import { useEffect, useEffectEvent, useState } from 'react';

export const DEBOUNCE_MS = 300;

type DebounceOptions<T> = {
  ms?: number;
  /** Runs with each value as it settles, in the same update (a list goes back to its first page). */
  onSettle?: (value: T) => void;
};

/**
 * The value once it has stopped changing for `ms`, so typing does not fire a request per key; and a
 * function that settles a value at once, without the wait (a Clear Filters button).
 */
export function useDebounced<T>(value: T, { ms = DEBOUNCE_MS, onSettle }: DebounceOptions<T> = {}) {
  const [settled, setSettled] = useState(value);
  const settle = useEffectEvent((next: T) => {
    setSettled(next);
    onSettle?.(next);
  });
  useEffect(() => {
    const timer = setTimeout(() => settle(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return [settled, setSettled] as const;
}
