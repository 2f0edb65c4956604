// Downloads a file the API streams (the data exports): the API takes the bearer header, so the file
// is fetched, then saved from a Blob under the name its content-disposition gives.
import { ApiError } from './api';
import { HTTP_TIMEOUT_MS } from './constants';
import { appStore, tokenAtom } from './session/store';
import { translate } from './i18n/runtime';

export type DownloadPath = '/api/users/my-data' | '/api/admin/export';

/** The file name a content-disposition header gives (`attachment; filename="x.csv"`), else `fallback`. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const match = disposition?.match(/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i);
  const name = match?.[1] ? decodeURIComponent(match[1]).replace(/[/\\]/g, '_') : '';
  return name || fallback;
}

/** Fetches the export and saves it; answers the file's name. A refusal throws the server's message. */
export async function downloadFile(path: DownloadPath, query: Record<string, string | undefined>, fallbackName: string): Promise<string> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query)) if (value) url.searchParams.set(name, value);
  const token = appStore.get(tokenAtom);
  // Long enough for a large shop: the export streams, and the timeout covers the whole file.
  const response = await fetch(url, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(HTTP_TIMEOUT_MS * 10),
  }).catch(() => {
    throw new ApiError(translate('api.network'), 0, 'NETWORK');
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string; code?: string };
    throw new ApiError(body.message ?? translate('api.downloadFailed'), response.status, body.code);
  }
  const blob = await response.blob();
  const name = fileNameOf(response.headers.get('content-disposition'), fallbackName);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
  return name;
}
