// Generated keys as a CSV file the owner downloads (RFC 4180 quoting).
import type { LicenseKey } from '@schemas/entities';

const cell = (value: string | number) => {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function keysCsv(keys: LicenseKey[]): string {
  const rows = [['key', 'product', 'keyTag', 'durationDays', 'maxActivations', 'status', 'createdAt']];
  for (const k of keys) rows.push([k.key, k.product.name, k.product.keyTag, String(k.duration), String(k.maxActivations), k.status, k.createdAt]);
  return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
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
