// lib/bookmark.ts keeps the newest D1 bookmark for the tab; each test loads a fresh copy of the module.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const older = '00000001-00000002-00004000-0123456789abcdef0123456789abcdef';
const newer = '00000001-00000003-00004000-0123456789abcdef0123456789abcdef';

async function load() {
  vi.resetModules();
  return import('../src/lib/bookmark');
}

beforeEach(() => sessionStorage.clear());

describe('bookmark', () => {
  it('starts with none, then keeps what an answer carried, for the tab', async () => {
    const bookmark = await load();
    expect(bookmark.currentBookmark()).toBeNull();
    bookmark.rememberBookmark(older);
    expect(bookmark.currentBookmark()).toBe(older);
    expect(sessionStorage.getItem('d1Bookmark')).toBe(older);
  });

  it('keeps the newer of two bookmarks whatever order the answers arrive in', async () => {
    const bookmark = await load();
    bookmark.rememberBookmark(newer);
    bookmark.rememberBookmark(older);
    expect(bookmark.currentBookmark()).toBe(newer);
  });

  it('ignores values not shaped like a bookmark', async () => {
    const bookmark = await load();
    bookmark.rememberBookmark(older);
    bookmark.rememberBookmark('zzzz');
    bookmark.rememberBookmark(null);
    expect(bookmark.currentBookmark()).toBe(older);
  });

  it('reads the stored bookmark after a reload, and drops a corrupt one', async () => {
    sessionStorage.setItem('d1Bookmark', newer);
    expect((await load()).currentBookmark()).toBe(newer);
    sessionStorage.setItem('d1Bookmark', 'not-a-bookmark');
    expect((await load()).currentBookmark()).toBeNull();
  });
});
