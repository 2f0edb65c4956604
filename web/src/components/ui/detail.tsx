// One term of a description list (<dl>) and its value: a card's figures, a dialog's details.
import type { ReactNode } from 'react';

export function Detail({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
