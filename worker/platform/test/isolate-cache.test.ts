import { describe, expect, it } from 'vitest';
import '../../index';
import { clearIsolateCaches, ISOLATE_CACHES, IsolateCache, liveIsolateCaches } from '../isolate-cache';

const cache = (spec: { ttlMs?: number; max: number }) =>
  new IsolateCache<string, number>('test', { holds: 'numbers', invalidation: 'none', ...spec });

describe('IsolateCache', () => {
  it('keeps an entry for its TTL and no longer', () => {
    const c = cache({ ttlMs: 1_000, max: 10 });
    c.set('a', 1, 5_000);
    expect(c.get('a', 5_999)).toBe(1);
    expect(c.get('a', 6_000)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('takes a TTL per entry, and keeps an entry without one until evicted', () => {
    const c = cache({ max: 10 });
    c.set('forever', 1, 0);
    c.set('short', 2, 0, 10);
    expect(c.get('forever', Number.MAX_SAFE_INTEGER)).toBe(1);
    expect(c.get('short', 9)).toBe(2);
    expect(c.get('short', 10)).toBeUndefined();
  });

  it('holds at most `max` entries, dropping the oldest written', () => {
    const c = cache({ max: 2 });
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 3); // rewriting makes it the newest
    c.set('c', 4);
    expect(c.size).toBe(2);
    expect(c.get('b')).toBeUndefined();
    expect([c.get('a'), c.get('c')]).toEqual([3, 4]);
  });

  it('makes a missing entry once with getOrSet', () => {
    const c = cache({ ttlMs: 100, max: 10 });
    let made = 0;
    const make = () => ++made;
    expect(c.getOrSet('k', make, 0)).toBe(1);
    expect(c.getOrSet('k', make, 99)).toBe(1);
    expect(c.getOrSet('k', make, 100)).toBe(2);
  });

  it('forgets everything on clear() and one entry on delete()', () => {
    const c = cache({ max: 10 });
    c.set('a', 1);
    c.set('b', 2);
    expect(c.delete('a')).toBe(true);
    expect(c.get('a')).toBeUndefined();
    c.clear();
    expect(c.size).toBe(0);
  });
});

describe('the registry of isolate caches', () => {
  it('lists exactly the caches the Worker makes', () => {
    // The Worker's modules are loaded (../index): each declared cache is in use, none is left over.
    expect([...liveIsolateCaches().keys()].sort()).toEqual(Object.keys(ISOLATE_CACHES).sort());
  });

  it('says what each holds, how long and how it is invalidated', () => {
    for (const [name, spec] of Object.entries(ISOLATE_CACHES)) {
      expect(spec.holds, name).not.toBe('');
      expect(spec.invalidation, name).not.toBe('');
      expect(spec.max, name).toBeGreaterThan(0);
    }
  });

  it('clears every cache at once', () => {
    const settings = liveIsolateCaches().get('settings')!;
    const products = liveIsolateCaches().get('recent-products')!;
    settings.set({}, 1);
    products.set('p', 2);
    clearIsolateCaches();
    expect([settings.size, products.size]).toEqual([0, 0]);
  });
});
