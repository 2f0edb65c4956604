// Display formats shared by every screen.
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const formatUsd = (amount: number | null | undefined) => `$${(amount ?? 0).toFixed(2)}`;
export const formatCredits = (credits: number | null | undefined) => (credits ?? 0).toLocaleString('en-US');

/** 'Just now', 'Nm ago', 'Nh ago', 'Nd ago', or 'Never'. */
export function formatRelativeTime(value: string | number | Date | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined || value === '') return 'Never';
  const time = new Date(value).getTime();
  if (Number.isNaN(time)) return 'Never';
  const elapsed = Math.max(0, now - time);
  if (elapsed < MINUTE) return 'Just now';
  if (elapsed < HOUR) return `${Math.floor(elapsed / MINUTE)}m ago`;
  if (elapsed < DAY) return `${Math.floor(elapsed / HOUR)}h ago`;
  return `${Math.floor(elapsed / DAY)}d ago`;
}

export function formatDate(value: string | number | Date | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Whole days from now until `value`, rounded up; negative once past. */
export function daysUntil(value: string | number | Date, now = Date.now()): number {
  return Math.ceil((new Date(value).getTime() - now) / DAY);
}
