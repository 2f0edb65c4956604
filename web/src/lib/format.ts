// Display formats shared by every screen, in the language in force (lib/i18n): numbers, credits and
// USD amounts as its readers write them, dates and times in the reader's time zone, relative times
// and durations in words.
import type { FormatNumberOptions } from 'react-intl';
import { activeIntl, translate } from './i18n/runtime';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type When = string | number | Date | null | undefined;

/** A USD amount as currency ('$1,234.50', '1.234,50 US$', 'US$ 1.234,50'…), never a bare `$` prefix. */
export const formatUsd = (amount: number | null | undefined) =>
  activeIntl().formatNumber(amount ?? 0, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A whole number of credits with the language's grouping ('2,000', '2.000', '٢٬٠٠٠'). */
export const formatCredits = (credits: number | null | undefined) => activeIntl().formatNumber(credits ?? 0, { maximumFractionDigits: 0 });

/** Any other count or figure. */
export const formatNumber = (value: number | null | undefined, options?: FormatNumberOptions) =>
  activeIntl().formatNumber(value ?? 0, options);

/** A percentage of 0-100 ('12%', '12 %', '٪١٢'). */
export const formatPercent = (percent: number | null | undefined) =>
  activeIntl().formatNumber((percent ?? 0) / 100, { style: 'percent', maximumFractionDigits: 1 });

const toDate = (value: When): Date | null => {
  if (value === null || value === undefined || value === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
};

/** 'just now', '5 minutes ago', 'hace 3 horas', '2 天前'…; 'Never' for no time. */
export function formatRelativeTime(value: When, now = Date.now()): string {
  const date = toDate(value);
  if (!date) return translate('common.never');
  const elapsed = Math.max(0, now - date.getTime());
  const intl = activeIntl();
  if (elapsed < MINUTE) return translate('common.justNow');
  if (elapsed < HOUR) return intl.formatRelativeTime(-Math.floor(elapsed / MINUTE), 'minute', { numeric: 'always' });
  if (elapsed < DAY) return intl.formatRelativeTime(-Math.floor(elapsed / HOUR), 'hour', { numeric: 'always' });
  return intl.formatRelativeTime(-Math.floor(elapsed / DAY), 'day', { numeric: 'always' });
}

/** A day in the reader's time zone ('Mar 5, 2026'); '—' for none. */
export function formatDate(value: When): string {
  const date = toDate(value);
  return date ? activeIntl().formatDate(date, { year: 'numeric', month: 'short', day: 'numeric' }) : '—';
}

/** A day and time in the reader's time zone; '—' for none. */
export function formatDateTime(value: When): string {
  const date = toDate(value);
  return date ? activeIntl().formatDate(date, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}

/**
 * A UTC day ('2026-03-05', as the statistics count them) in the reader's words, with UTC said: the
 * day boundary is UTC's, not the reader's.
 */
export function formatUtcDay(day: string): string {
  const date = toDate(`${day}T00:00:00Z`);
  return date ? `${activeIntl().formatDate(date, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' })} UTC` : day;
}

/**
 * A UTC day as a chart's axis and its table name it ('Mar 5', '5 مارس'): the reader's language, the
 * UTC calendar (the heading above says the days are UTC's).
 */
export function formatUtcDayShort(day: string): string {
  const date = toDate(`${day}T00:00:00Z`);
  return date ? activeIntl().formatDate(date, { month: 'short', day: 'numeric', timeZone: 'UTC' }) : day;
}

/** A number of days as a duration ('30 days', '1 día', '30 天'). */
export const formatDays = (days: number) => activeIntl().formatNumber(days, { style: 'unit', unit: 'day', unitDisplay: 'long' });

/** A duration in milliseconds in its largest whole unit ('2 hours', '5 minutes', '3 days'). */
export function formatDuration(ms: number): string {
  const intl = activeIntl();
  const unit = (value: number, name: 'day' | 'hour' | 'minute' | 'second') =>
    intl.formatNumber(value, { style: 'unit', unit: name, unitDisplay: 'long' });
  if (ms >= DAY) return unit(Math.round(ms / DAY), 'day');
  if (ms >= HOUR) return unit(Math.round(ms / HOUR), 'hour');
  if (ms >= MINUTE) return unit(Math.round(ms / MINUTE), 'minute');
  return unit(Math.max(0, Math.round(ms / 1000)), 'second');
}

/** Whole days from now until `value`, rounded up; negative once past. */
export function daysUntil(value: string | number | Date, now = Date.now()): number {
  return Math.ceil((new Date(value).getTime() - now) / DAY);
}
