// Generated keys as a CSV file the owner downloads (RFC 4180 quoting, formulas neutralised).
import { csvRow } from '../../../../../worker/platform/schemas/csv';
import type { Schemas } from '../../../../../worker/platform/api-client';

export function keysCsv(keys: Schemas['LicenseKey'][]): string {
  let text = csvRow(['key', 'product', 'keyTag', 'durationDays', 'maxActivations', 'status', 'createdAt']);
  for (const k of keys) text += csvRow([k.key, k.product.name, k.product.keyTag, k.duration, k.maxActivations, k.status, k.createdAt]);
  return text;
}

/** Saves text as a file through a temporary link (no server round trip). */
export function downloadText(filename: string, text: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
