// The card after a purchase: product, duration, expiry, cost, and the key with a copy button.
import { useId, type ReactNode } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { CopyButton } from '../../components/ui/copy-button';
import { formatCredits, formatDateTime } from '../../lib/format';

type Props = { receipt: Schemas['PurchaseReceipt']; title: string; note: ReactNode; dismissLabel: string; onDismiss: () => void };

export function ReceiptCard({ receipt, title, note, dismissLabel, onDismiss }: Props) {
  const headingId = useId();
  return (
    <section className="card success-card" aria-labelledby={headingId} role="status">
      <h2 id={headingId}>{title}</h2>
      <dl className="receipt">
        <div>
          <dt>Product</dt>
          <dd>{receipt.product}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            {receipt.duration} {receipt.duration === 1 ? 'day' : 'days'}
          </dd>
        </div>
        <div>
          <dt>Expiry date</dt>
          <dd>{formatDateTime(receipt.expiryDate)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCredits(receipt.cost)} credits</dd>
        </div>
      </dl>
      <div className="key-box">
        <code data-testid="purchased-key">{receipt.key}</code>
        <CopyButton text={receipt.key} label="Copy license key" copiedMessage="License key copied to clipboard" />
      </div>
      <p className="muted">{note}</p>
      <button type="button" className="btn btn-secondary btn-sm" onClick={onDismiss}>
        {dismissLabel}
      </button>
    </section>
  );
}
