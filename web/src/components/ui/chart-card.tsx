// A chart in a card: a figure captioned by the chart's title (and, under it, a one-line summary the
// drawing can name as its description), the chart itself, and what goes below it (its data table).
// The system analytics' charts and the admin Overview's bar lists use it.
import { useId, type ReactNode } from 'react';

/** The ids of the caption's title and summary, for a drawing to be labelled and described by them. */
export type ChartCaptionIds = { title: string; desc: string };

type ChartCardProps = {
  title: string;
  summary?: string;
  className?: string;
  footer?: ReactNode;
  children: ReactNode | ((ids: ChartCaptionIds) => ReactNode);
};

export function ChartCard({ title, summary, className = '', footer, children }: ChartCardProps) {
  const id = useId();
  const ids = { title: `${id}-title`, desc: `${id}-desc` };
  return (
    <figure className={`card chart ${className}`}>
      <figcaption>
        <h2 id={ids.title} className="card-title">
          {title}
        </h2>
        {summary && (
          <p id={ids.desc} className="muted small">
            {summary}
          </p>
        )}
      </figcaption>
      {typeof children === 'function' ? children(ids) : children}
      {footer}
    </figure>
  );
}
