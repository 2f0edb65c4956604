// Charts drawn as plain SVG (System Analytics, a reseller's statistics): a bar per day, and a bar per product. Each is a figure whose SVG is an
// image named by the chart's title and described by a one-line summary, with the numbers behind
// it in a data table for anyone who cannot (or would rather not) read the picture.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { currentLanguage, directionOf, useLanguage, useT } from '../../lib/i18n';
import { formatNumber } from '../../lib/format';
import { ChartCard, type ChartCaptionIds } from './chart-card';

export type Point = { label: string; value: number; /** Said after the value (a product's revenue). */ note?: string };

const DEFAULT_WIDTH = 640;
const HEIGHT = 240;

/** The chart's width in CSS pixels, so the SVG is drawn at 1:1 and its text stays readable on a phone. */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(DEFAULT_WIDTH);
  useEffect(() => {
    const node = ref.current;
    if (!node) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.max(240, Math.round(entry.contentRect.width))));
    observer.observe(node);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}
const PAD = { top: 12, right: 12, bottom: 28, left: 48 };

/**
 * A round axis maximum at or above the largest value, even so that the middle gridline is a whole
 * number too: 2, 4, 6, 8 or 10 times a power of ten (2 at the least).
 */
export function niceMax(value: number): number {
  if (value <= 2) return 2;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 4, 6, 8, 10]) if (step * power >= value && (step * power) % 2 === 0) return step * power;
  return 10 * power;
}

/** An axis figure, short past ten thousand ('12K', '1.5M', '1,2 M', '1.2万'). */
const short = (n: number) => formatNumber(n, n >= 10_000 ? { notation: 'compact', maximumFractionDigits: 1 } : undefined);

function DataTable({ caption, columns, rows }: { caption: string; columns: [string, string]; rows: Array<[string, string]> }) {
  const t = useT();
  return (
    <details className="chart-data">
      <summary>{t('chart.dataTable')}</summary>
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{columns[0]}</th>
              <th scope="col">{columns[1]}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([a, b], i) => (
              <tr key={`${i}-${a}`}>
                <th scope="row">{a}</th>
                <td>{b}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/**
 * The chart's width, and its x axis as the reader reads: right to left in Arabic, the first day and
 * an item's label at the right. `x(at, w)` places a thing of width `w` whose left-to-right place is
 * `at`; `anchor` turns a text's anchor about.
 */
type Frame = ChartCaptionIds & { width: number; x: (at: number, w?: number) => number; anchor: (a: 'start' | 'end') => 'start' | 'end' };

function ChartFrame({
  title,
  summary,
  children,
  table,
}: {
  title: string;
  summary: string;
  children: (frame: Frame) => ReactNode;
  table: ReactNode;
}) {
  const { ref, width } = useWidth();
  // The tree is drawn anew when the language changes (the provider keys it by the language).
  const rtl = directionOf(currentLanguage()) === 'rtl';
  const x = (at: number, w = 0) => (rtl ? width - at - w : at);
  const anchor = (a: 'start' | 'end') => (rtl ? (a === 'start' ? 'end' : 'start') : a);
  return (
    <ChartCard title={title} summary={summary} footer={table}>
      {(ids) => (
        <div ref={ref} className="chart-area">
          {children({ ...ids, width, x, anchor })}
        </div>
      )}
    </ChartCard>
  );
}

/** One bar per day. `format` writes a value for the summary, the tooltips and the table. */
export function DailyBarChart({
  title,
  points,
  format,
  tone = 'primary',
  valueLabel,
}: {
  title: string;
  points: Point[];
  format: (n: number) => string;
  tone?: 'primary' | 'green' | 'blue' | 'orange' | 'purple';
  valueLabel: string;
}) {
  const t = useT();
  const { language } = useLanguage();
  const total = points.reduce((sum, p) => sum + p.value, 0);
  const peak = points.reduce<Point | null>((best, p) => (best === null || p.value > best.value ? p : best), null);
  const max = niceMax(peak?.value ?? 0);
  const summary =
    total === 0
      ? t('chart.daily.none', { what: valueLabel.toLocaleLowerCase(language), days: points.length })
      : t('chart.daily.summary', { total: format(total), days: points.length, day: peak!.label, peak: format(peak!.value) });

  return (
    <ChartFrame
      title={title}
      summary={summary}
      table={<DataTable caption={title} columns={[t('chart.day'), valueLabel]} rows={points.map((p) => [p.label, format(p.value)])} />}
    >
      {({ title: titleId, desc, width, x: along, anchor }) => {
        const plotW = width - PAD.left - PAD.right;
        const plotH = HEIGHT - PAD.top - PAD.bottom;
        const slot = plotW / Math.max(points.length, 1);
        const barW = Math.max(1, slot * 0.7);
        // A date label every 60 pixels or so, whatever the period and the screen.
        const labelEvery = Math.max(1, Math.ceil(points.length / Math.max(1, Math.floor(plotW / 60))));
        return (
          <svg
            className={`chart-svg chart-${tone}`}
            viewBox={`0 0 ${width} ${HEIGHT}`}
            width={width}
            height={HEIGHT}
            role="img"
            aria-labelledby={titleId}
            aria-describedby={desc}
          >
            <title>{title}</title>
            {[0, 0.5, 1].map((f) => {
              const y = PAD.top + plotH * (1 - f);
              return (
                <g key={f} className="chart-gridline">
                  <line x1={along(PAD.left)} x2={along(width - PAD.right)} y1={y} y2={y} />
                  <text x={along(PAD.left - 6)} y={y + 4} textAnchor={anchor('end')}>
                    {short(max * f)}
                  </text>
                </g>
              );
            })}
            {points.map((p, i) => {
              const h = (p.value / max) * plotH;
              const x = PAD.left + i * slot + (slot - barW) / 2;
              return (
                <rect
                  key={p.label}
                  className="chart-bar"
                  x={along(x, barW)}
                  y={PAD.top + plotH - h}
                  width={barW}
                  height={Math.max(h, p.value > 0 ? 1 : 0)}
                  rx={Math.min(3, barW / 3)}
                >
                  <title>{`${p.label}: ${format(p.value)}`}</title>
                </rect>
              );
            })}
            {points.map((p, i) =>
              i % labelEvery === 0 ? (
                <text
                  key={`label-${p.label}`}
                  className="chart-axis"
                  x={along(PAD.left + i * slot + slot / 2)}
                  y={HEIGHT - 8}
                  textAnchor="middle"
                >
                  {p.label}
                </text>
              ) : null,
            )}
          </svg>
        );
      }}
    </ChartFrame>
  );
}

/** One horizontal bar per item (sales by product), longest first. */
export function RankedBarChart({
  title,
  points,
  format,
  valueLabel,
  itemLabel,
}: {
  title: string;
  points: Point[];
  format: (n: number) => string;
  valueLabel: string;
  itemLabel: string;
}) {
  const t = useT();
  const rowH = 30;
  const height = Math.max(points.length, 1) * rowH + 8;
  const max = niceMax(points.reduce((m, p) => Math.max(m, p.value), 0));
  const withNote = (p: Point) => (p.note ? `${format(p.value)} · ${p.note}` : format(p.value));
  const summary =
    points.length === 0
      ? t('chart.ranked.none')
      : t('chart.ranked.summary', { count: points.length, top: points[0].label, value: format(points[0].value) });

  return (
    <ChartFrame
      title={title}
      summary={summary}
      table={<DataTable caption={title} columns={[itemLabel, valueLabel]} rows={points.map((p) => [p.label, withNote(p)])} />}
    >
      {({ title: titleId, desc, width, x: along, anchor }) => {
        if (points.length === 0) return <p className="chart-empty muted">{t('chart.ranked.empty')}</p>;
        const labelW = Math.min(170, Math.round(width * 0.35));
        const barSpace = width - labelW - 150;
        const clip = (text: string) =>
          text.length * 7 > labelW - 12 ? `${text.slice(0, Math.max(4, Math.floor((labelW - 12) / 7) - 1))}…` : text;
        return (
          <svg
            className="chart-svg chart-purple"
            viewBox={`0 0 ${width} ${height}`}
            width={width}
            height={height}
            role="img"
            aria-labelledby={titleId}
            aria-describedby={desc}
          >
            <title>{title}</title>
            {points.map((p, i) => {
              const y = 4 + i * rowH;
              const w = (p.value / max) * barSpace;
              return (
                <g key={`${i}-${p.label}`}>
                  <text className="chart-axis" x={along(labelW - 8)} y={y + rowH / 2 + 4} textAnchor={anchor('end')}>
                    {clip(p.label)}
                  </text>
                  <rect
                    className="chart-bar"
                    x={along(labelW, Math.max(w, p.value > 0 ? 2 : 0))}
                    y={y + 5}
                    width={Math.max(w, p.value > 0 ? 2 : 0)}
                    height={rowH - 10}
                    rx={3}
                  >
                    <title>{`${p.label}: ${withNote(p)}`}</title>
                  </rect>
                  <text className="chart-value" x={along(labelW + w + 6)} y={y + rowH / 2 + 4} textAnchor={anchor('start')}>
                    {withNote(p)}
                  </text>
                </g>
              );
            })}
          </svg>
        );
      }}
    </ChartFrame>
  );
}
