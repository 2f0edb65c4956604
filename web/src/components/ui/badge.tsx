import type { CSSProperties, ReactNode } from 'react';

export type BadgeTone = 'gray' | 'blue' | 'green' | 'red' | 'yellow' | 'purple' | 'orange' | 'indigo';

/** Each tone's background and text, from the palette in styles.css. */
const TONES: Record<BadgeTone, [background: string, text: string]> = {
  gray: ['#f3f4f6', '#374151'],
  blue: ['var(--blue-soft)', 'var(--blue)'],
  green: ['var(--green-soft)', 'var(--green)'],
  red: ['var(--red-soft)', 'var(--red)'],
  yellow: ['#fef9c3', '#854d0e'],
  purple: ['var(--purple-soft)', 'var(--purple)'],
  orange: ['var(--orange-soft)', 'var(--orange)'],
  indigo: ['var(--primary-soft)', 'var(--primary)'],
};

const toneStyle = (tone: BadgeTone) => ({ '--tone-bg': TONES[tone][0], '--tone-fg': TONES[tone][1] }) as CSSProperties;

/** A small label in a tone; `asWritten` keeps its text's case (the badge capitalises otherwise). */
export function Badge({
  tone = 'gray',
  children,
  title,
  asWritten = false,
}: {
  tone?: BadgeTone;
  children: ReactNode;
  title?: string;
  asWritten?: boolean;
}) {
  return (
    <span className={asWritten ? `badge badge-${tone} badge-as-written` : `badge badge-${tone}`} style={toneStyle(tone)} title={title}>
      {children}
    </span>
  );
}
