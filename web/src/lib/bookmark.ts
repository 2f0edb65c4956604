// D1's bookmark (see the Worker's platform/db/session.ts): the newest point in the database this tab has
// seen, sent with every call so that a replica answering it is at least as new as the tab's own
// writes: a key just bought shows in My Keys on the next call. Kept for the tab (sessionStorage), so
// a reload still reads its own writes.
export const BOOKMARK_HEADER = 'x-d1-bookmark';
const STORAGE_KEY = 'd1Bookmark';
const FORM = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/i;

let latest: string | null = null;

export function currentBookmark(): string | null {
  if (latest) return latest;
  try {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    latest = stored && FORM.test(stored) ? stored : null;
  } catch {
    latest = null;
  }
  return latest;
}

/** Keeps the newer of the two: answers can arrive out of order, and bookmarks sort by their position. */
export function rememberBookmark(value: string | null) {
  if (!value || !FORM.test(value)) return;
  const current = currentBookmark();
  if (current && current >= value) return;
  latest = value;
  try {
    sessionStorage.setItem(STORAGE_KEY, value);
  } catch {
    /* storage full or blocked: memory is enough for this page */
  }
}
