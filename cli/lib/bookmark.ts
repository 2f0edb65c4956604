// D1's bookmark per server (see the Worker's platform/db/session.ts): the newest point in the database this
// machine's CLI has seen, sent with every call, so the next command reads what the last one wrote
// even when a read replica answers it. Kept beside the config, never required: a bookmark that
// cannot be read or written only costs that guarantee.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configDir } from './config';

export const BOOKMARK_HEADER = 'x-d1-bookmark';
const FORM = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/i;

const bookmarksFile = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'bookmarks.json');

function readAll(file: string): Record<string, string> {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function readBookmark(url: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = readAll(bookmarksFile(env))[url];
  return typeof value === 'string' && FORM.test(value) ? value : undefined;
}

/** Keeps the newer bookmark for this server (they sort by their position in the database's history). */
export function rememberBookmark(url: string, value: string | null, env: NodeJS.ProcessEnv = process.env) {
  if (!value || !FORM.test(value)) return;
  const file = bookmarksFile(env);
  const all = readAll(file);
  if (all[url] && all[url] >= value) return;
  all[url] = value;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    /* a read-only home: the next command simply may not see this one's writes at once */
  }
}
