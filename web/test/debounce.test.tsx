// lib/debounce: a search reaches its query once typing pauses, and Clear Filters settles at once.
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEBOUNCE_MS, useDebounced } from '../src/lib/debounce';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const pass = (ms: number) =>
  act(() => {
    vi.advanceTimersByTime(ms);
  });

describe('useDebounced', () => {
  it('answers the first value at once, and a new one only once it has stopped changing', () => {
    const { result, rerender } = renderHook(({ text }) => useDebounced(text)[0], { initialProps: { text: '' } });
    expect(result.current).toBe('');
    rerender({ text: 'a' });
    pass(DEBOUNCE_MS - 1);
    rerender({ text: 'ad' });
    pass(DEBOUNCE_MS - 1);
    rerender({ text: 'ada' });
    pass(DEBOUNCE_MS - 1);
    // Each keystroke came before the pause was over: nothing has settled yet.
    expect(result.current).toBe('');
    pass(1);
    expect(result.current).toBe('ada');
  });

  it('waits as long as it is told', () => {
    const { result, rerender } = renderHook(({ text }) => useDebounced(text, { ms: 1000 })[0], { initialProps: { text: '' } });
    rerender({ text: 'grace' });
    pass(999);
    expect(result.current).toBe('');
    pass(1);
    expect(result.current).toBe('grace');
  });

  it('tells onSettle each settled value, in the same render as the value', () => {
    const seen: Array<[string, number]> = [];
    let renders = 0;
    const onSettle = vi.fn();
    const { rerender } = renderHook(
      ({ text }) => {
        renders += 1;
        const [settled] = useDebounced(text, { onSettle });
        seen.push([settled, onSettle.mock.calls.length]);
        return settled;
      },
      { initialProps: { text: '' } },
    );
    pass(DEBOUNCE_MS);
    expect(onSettle).toHaveBeenLastCalledWith('');
    rerender({ text: 'x' });
    rerender({ text: 'xy' });
    const before = renders;
    pass(DEBOUNCE_MS);
    expect(onSettle).toHaveBeenCalledTimes(2);
    expect(onSettle).toHaveBeenLastCalledWith('xy');
    // One render brings the settled value, with onSettle already called (its state changes batched).
    expect(renders - before).toBe(1);
    expect(seen.at(-1)).toEqual(['xy', 2]);
  });

  it('settles a value at once when asked (Clear Filters), without waiting', () => {
    const { result, rerender } = renderHook(({ text }) => useDebounced(text), { initialProps: { text: 'old' } });
    rerender({ text: '' });
    act(() => result.current[1](''));
    expect(result.current[0]).toBe('');
  });
});
